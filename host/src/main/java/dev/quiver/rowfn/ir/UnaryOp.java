package dev.quiver.rowfn.ir;

/** Element-wise operations with one operand. */
public enum UnaryOp {
    /** Negation; wraps for the smallest integer. */
    NEG("-"),
    /** Absolute value; {@code abs(MIN_VALUE)} is {@code MIN_VALUE} for integers, as in Java. */
    ABS("abs"),
    /** Correctly rounded square root; floating point only. */
    SQRT("sqrt");

    private final String symbol;

    UnaryOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }
}
