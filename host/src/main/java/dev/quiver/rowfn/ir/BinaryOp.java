package dev.quiver.rowfn.ir;

/** Element-wise operations with two operands of the same type. */
public enum BinaryOp {
    ADD("+", true),
    SUB("-", true),
    MUL("*", true),
    /**
     * Division. Floating point follows IEEE 754 (x/0 is ±infinity or NaN). Integer division
     * truncates toward zero, {@code MIN_VALUE / -1} wraps to {@code MIN_VALUE}, and a zero
     * divisor in a non-null row is an {@link ArithmeticException} that names the row; zero
     * divisors behind nulls are ignored.
     */
    DIV("/", true),
    /** Minimum as {@link Math#min}: NaN if either operand is NaN, and -0.0 below +0.0. */
    MIN("min", false),
    /** Maximum as {@link Math#max}: NaN if either operand is NaN, and +0.0 above -0.0. */
    MAX("max", false);

    private final String symbol;
    private final boolean infix;

    BinaryOp(String symbol, boolean infix) {
        this.symbol = symbol;
        this.infix = infix;
    }

    public String symbol() {
        return symbol;
    }

    public boolean isInfix() {
        return infix;
    }
}
