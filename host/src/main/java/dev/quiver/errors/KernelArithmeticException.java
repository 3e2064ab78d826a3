package dev.quiver.errors;

/**
 * A non-null row whose computation is undefined: an integer or decimal division by zero, or an
 * overflow of checked arithmetic. Names the expression, the row and the device; its kind is
 * {@link ErrorKind#ARITHMETIC}.
 */
public final class KernelArithmeticException extends EvaluationException {
    private final String what;
    private final String expression;
    private final String backend;

    public KernelArithmeticException(String what, String expression, long row, String backend) {
        super(ErrorKind.ARITHMETIC, what + " in " + expression + " at row " + row, null);
        fillExpression(expression);
        fillRow(row);
        fillDevice(backend);
        this.what = what;
        this.expression = expression;
        this.backend = backend;
    }

    /** The same failure at another row (a row of a compacted batch mapped back to the batch's). */
    public KernelArithmeticException atRow(long batchRow) {
        KernelArithmeticException e = new KernelArithmeticException(what, expression, batchRow, backend);
        e.setStackTrace(getStackTrace());
        return e;
    }

    /** The expression that failed, as text. */
    public String expression() {
        return expression;
    }

    /** The device it failed on. */
    public String backend() {
        return backend;
    }

    /** What went wrong, e.g. "division by zero" or "integer overflow". */
    public String what() {
        return what;
    }
}
