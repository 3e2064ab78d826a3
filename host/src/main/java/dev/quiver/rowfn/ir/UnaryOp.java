package dev.quiver.rowfn.ir;

/**
 * Element-wise operations with one operand. The reference ({@link RowInterpreter}) computes
 * the floating-point functions with {@link StrictMath} (fdlibm), so it is the same on every
 * machine; the backends may differ from it by the bounds documented in {@code docs/math.md}.
 */
public enum UnaryOp {
    /** Negation; wraps for the smallest integer. */
    NEG("-", Domain.NUMBER),
    /** Absolute value; {@code abs(MIN_VALUE)} is {@code MIN_VALUE} for integers, as in Java. */
    ABS("abs", Domain.NUMBER),
    /** Bitwise complement of an integer, logical negation of a Boolean. */
    NOT("not", Domain.INTEGER_OR_BOOL),
    /** Correctly rounded square root. */
    SQRT("sqrt", Domain.FLOAT),
    CBRT("cbrt", Domain.FLOAT),
    EXP("exp", Domain.FLOAT),
    /** {@code exp(x) - 1}, accurate near 0. */
    EXPM1("expm1", Domain.FLOAT),
    /** Natural logarithm. */
    LOG("ln", Domain.FLOAT),
    /** {@code ln(1 + x)}, accurate near 0. */
    LOG1P("log1p", Domain.FLOAT),
    /** Base-2 logarithm; exact for powers of two, within 1.5 ulp elsewhere (the reference's bound). */
    LOG2("log2", Domain.FLOAT),
    LOG10("log10", Domain.FLOAT),
    SIN("sin", Domain.FLOAT),
    COS("cos", Domain.FLOAT),
    TAN("tan", Domain.FLOAT),
    ASIN("asin", Domain.FLOAT),
    ACOS("acos", Domain.FLOAT),
    ATAN("atan", Domain.FLOAT),
    SINH("sinh", Domain.FLOAT),
    COSH("cosh", Domain.FLOAT),
    TANH("tanh", Domain.FLOAT),
    /** Largest integral value not above x ({@link Math#floor}); exact. */
    FLOOR("floor", Domain.FLOAT),
    /** Smallest integral value not below x ({@link Math#ceil}); exact. */
    CEIL("ceil", Domain.FLOAT),
    /** Integral part, rounding toward zero, keeping the sign of zero; exact. */
    TRUNC("trunc", Domain.FLOAT),
    /** Nearest integral value, ties to even ({@link Math#rint}); exact. */
    RINT("rint", Domain.FLOAT);

    /** Which operand types an operation takes. */
    public enum Domain {
        /** Int32, Int64, Float32, Float64. */
        NUMBER,
        /** Int32, Int64. */
        INTEGER,
        /** Float32, Float64. */
        FLOAT,
        /** Int32, Int64, Boolean. */
        INTEGER_OR_BOOL
    }

    private final String symbol;
    private final Domain domain;

    UnaryOp(String symbol, Domain domain) {
        this.symbol = symbol;
        this.domain = domain;
    }

    public String symbol() {
        return symbol;
    }

    public Domain domain() {
        return domain;
    }

    /** True for the operations whose result is exact (no rounding beyond the type). */
    public boolean isExact() {
        return switch (this) {
            case NEG, ABS, NOT, SQRT, FLOOR, CEIL, TRUNC, RINT -> true;
            default -> false;
        };
    }
}
