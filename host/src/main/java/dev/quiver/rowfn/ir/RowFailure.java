package dev.quiver.rowfn.ir;

/**
 * Thrown by {@link RowInterpreter#evaluate} when a row fails: a {@link IrNode.Check} fires or an
 * integer division or remainder has a zero divisor. {@link #getMessage()} is the complete
 * description, e.g. {@code gcd: ... (value -3)}; backends add the expression and the row.
 */
public final class RowFailure extends ArithmeticException {
    private final String what;
    private final Number value;

    public RowFailure(String what, Number value) {
        super(value == null ? what : what + " (value " + value + ")");
        this.what = what;
        this.value = value;
    }

    /** The check's message, without the value. */
    public String what() {
        return what;
    }

    /** The value that made the row fail, or null. */
    public Number value() {
        return value;
    }
}
