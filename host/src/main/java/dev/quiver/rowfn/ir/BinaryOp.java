package dev.quiver.rowfn.ir;

/** Element-wise operations with two operands of the same type. */
public enum BinaryOp {
    ADD("+", true, UnaryOp.Domain.NUMBER),
    SUB("-", true, UnaryOp.Domain.NUMBER),
    MUL("*", true, UnaryOp.Domain.NUMBER),
    /**
     * Division. Floating point follows IEEE 754 (x/0 is ±infinity or NaN). Integer division
     * truncates toward zero, {@code MIN_VALUE / -1} wraps to {@code MIN_VALUE}, and a zero
     * divisor in a row that is computed is an error that names the row.
     */
    DIV("/", true, UnaryOp.Domain.NUMBER),
    /**
     * Integer remainder as Java's {@code %} (the sign of the dividend; {@code MIN_VALUE % -1}
     * is 0); a zero divisor is an error, as for {@link #DIV}. Integers only.
     */
    REM("%", true, UnaryOp.Domain.INTEGER),
    /** Minimum as {@link Math#min}: NaN if either operand is NaN, and -0.0 below +0.0. */
    MIN("min", false, UnaryOp.Domain.NUMBER),
    /** Maximum as {@link Math#max}: NaN if either operand is NaN, and +0.0 above -0.0. */
    MAX("max", false, UnaryOp.Domain.NUMBER),
    /** Bitwise AND of integers, logical AND of Booleans. */
    AND("&", true, UnaryOp.Domain.INTEGER_OR_BOOL),
    OR("|", true, UnaryOp.Domain.INTEGER_OR_BOOL),
    XOR("^", true, UnaryOp.Domain.INTEGER_OR_BOOL),
    /** Shifts as Java's: the count is taken modulo the width (& 31 or & 63). */
    SHL("<<", true, UnaryOp.Domain.INTEGER),
    /** Arithmetic (sign-extending) right shift. */
    SHR(">>", true, UnaryOp.Domain.INTEGER),
    /** Logical (zero-filling) right shift. */
    USHR(">>>", true, UnaryOp.Domain.INTEGER),
    /** {@code x} to the power {@code y}, as {@link StrictMath#pow} (its special cases included). */
    POW("pow", false, UnaryOp.Domain.FLOAT),
    /** The angle of the point (x = right, y = left), as {@link StrictMath#atan2}: {@code atan2(y, x)}. */
    ATAN2("atan2", false, UnaryOp.Domain.FLOAT),
    /** {@code sqrt(x*x + y*y)} without intermediate overflow or underflow, as {@link StrictMath#hypot}. */
    HYPOT("hypot", false, UnaryOp.Domain.FLOAT);

    private final String symbol;
    private final boolean infix;
    private final UnaryOp.Domain domain;

    BinaryOp(String symbol, boolean infix, UnaryOp.Domain domain) {
        this.symbol = symbol;
        this.infix = infix;
        this.domain = domain;
    }

    public String symbol() {
        return symbol;
    }

    public boolean isInfix() {
        return infix;
    }

    public UnaryOp.Domain domain() {
        return domain;
    }

    /** True for integer DIV and REM, which fail on a zero divisor. */
    public boolean failsOnZeroDivisor() {
        return this == DIV || this == REM;
    }
}
