package dev.quiver.backend;

/**
 * A non-null row whose computation is undefined: an integer division by zero. Names the
 * expression, the row and the device.
 */
public final class KernelArithmeticException extends ArithmeticException {
    private final long row;

    public KernelArithmeticException(String what, String expression, long row, String backend) {
        super(what + " in " + expression + " at row " + row + " (on " + backend + ")");
        this.row = row;
    }

    /** The first failing row of the batch. */
    public long row() {
        return row;
    }
}
