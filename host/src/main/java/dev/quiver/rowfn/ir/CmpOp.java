package dev.quiver.rowfn.ir;

/**
 * Comparisons, with Java's (IEEE 754) semantics: every comparison with NaN is false except
 * {@link #NE}, and {@code -0.0 == 0.0}. (SQL's comparisons order NaN above every number; the
 * planner writes those in terms of these when it fuses them.)
 */
public enum CmpOp {
    EQ("=="),
    NE("!="),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">=");

    private final String symbol;

    CmpOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    /** The comparison with its operands swapped: {@code a < b} is {@code b > a}. */
    public CmpOp swapped() {
        return switch (this) {
            case EQ, NE -> this;
            case LT -> GT;
            case LE -> GE;
            case GT -> LT;
            case GE -> LE;
        };
    }
}
