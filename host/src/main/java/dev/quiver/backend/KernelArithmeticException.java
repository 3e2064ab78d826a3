package dev.quiver.backend;

/**
 * A non-null row whose computation is undefined: an integer or decimal division by zero, or an
 * overflow of checked arithmetic. Names the expression, the row and the device.
 */
public final class KernelArithmeticException extends ArithmeticException {
    private final String what;
    private final long row;

    public KernelArithmeticException(String what, String expression, long row, String backend) {
        super(what + " in " + expression + " at row " + row + " (on " + backend + ")");
        this.what = what;
        this.row = row;
    }

    /** What went wrong, e.g. "division by zero" or "integer overflow". */
    public String what() {
        return what;
    }

    /** The first failing row of the batch. */
    public long row() {
        return row;
    }
}
