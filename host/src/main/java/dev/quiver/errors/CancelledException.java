package dev.quiver.errors;

/**
 * An evaluation was cancelled, through its cancel handle or by interrupting the thread that ran it, before it ended. It stops at the next kernel boundary; nothing it had allocated is left.
 */
public class CancelledException extends QuiverException {
    public CancelledException(String detail) {
        super(ErrorKind.CANCELLED, detail, null);
    }

    public CancelledException(String detail, Throwable cause) {
        super(ErrorKind.CANCELLED, detail, cause);
    }
}
