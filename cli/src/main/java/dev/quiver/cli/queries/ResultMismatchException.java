package dev.quiver.cli.queries;

/** An engine's result of a query differs from the reference's: the message says where and how. */
public final class ResultMismatchException extends RuntimeException {
    public ResultMismatchException(String message) {
        super(message);
    }
}
