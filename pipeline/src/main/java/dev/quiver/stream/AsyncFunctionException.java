package dev.quiver.stream;

import dev.quiver.errors.EvaluationException;

/**
 * A call of an async function failed (after its retries), timed out, or returned a wrong
 * result: the message names the function and the rows of the operator's input the call
 * covered, counted from the start of the stream; the cause is the function's own failure.
 */
public class AsyncFunctionException extends EvaluationException {
    private final String function;
    private final long firstRow;
    private final long endRow;

    public AsyncFunctionException(String function, long firstRow, long endRow, String message, Throwable cause) {
        super(message, cause);
        this.function = function;
        this.firstRow = firstRow;
        this.endRow = endRow;
    }

    /** The function's name. */
    public String function() {
        return function;
    }

    /** The first input row of the failed call. */
    public long firstRow() {
        return firstRow;
    }

    /** One past the last input row of the failed call. */
    public long endRow() {
        return endRow;
    }
}
