package dev.quiver.errors;

/**
 * A row whose value cannot be computed: a CAST of a value that does not convert, a pattern in a
 * column that is not a valid regular expression, a function that rejected its arguments
 * ({@link ErrorKind#EVALUATION}); or whose arithmetic is undefined ({@link ErrorKind#ARITHMETIC},
 * {@code dev.quiver.errors.KernelArithmeticException}). The same on every device: a batch that
 * fails on one fails the same way, at the same row, on all.
 */
public class EvaluationException extends QuiverException {
    public EvaluationException(String detail) {
        super(ErrorKind.EVALUATION, detail, null);
    }

    public EvaluationException(String detail, Throwable cause) {
        super(ErrorKind.EVALUATION, detail, cause);
    }

    protected EvaluationException(ErrorKind kind, String detail, Throwable cause) {
        super(kind, detail, cause);
    }
}
