package dev.quiver.expr;

/** The binary operators of {@link Expr.Binary}, with their SQL spelling. */
public enum Operator {
    PLUS("+"),
    MINUS("-"),
    MULTIPLY("*"),
    DIVIDE("/"),
    MODULO("%"),
    EQ("="),
    NOT_EQ("<>"),
    LT("<"),
    LT_EQ("<="),
    GT(">"),
    GT_EQ(">="),
    IS_DISTINCT_FROM("IS DISTINCT FROM"),
    IS_NOT_DISTINCT_FROM("IS NOT DISTINCT FROM"),
    AND("AND"),
    OR("OR");

    private final String sql;

    Operator(String sql) {
        this.sql = sql;
    }

    public String sql() {
        return sql;
    }

    public boolean isArithmetic() {
        return ordinal() <= MODULO.ordinal();
    }

    /** {@code = <> < <= > >=} and the two DISTINCT FROM forms. */
    public boolean isComparison() {
        return ordinal() >= EQ.ordinal() && ordinal() <= IS_NOT_DISTINCT_FROM.ordinal();
    }

    public boolean isLogical() {
        return this == AND || this == OR;
    }

    /** The operator with its operands swapped: {@code a < b} is {@code b > a}. */
    public Operator swap() {
        return switch (this) {
            case LT -> GT;
            case LT_EQ -> GT_EQ;
            case GT -> LT;
            case GT_EQ -> LT_EQ;
            default -> this;
        };
    }

    /**
     * For a comparison, the one that holds exactly where this one is FALSE (and is NULL where it
     * is NULL): {@code NOT (a < b)} is {@code a >= b}. Comparisons use a total order (for floats
     * SQL's, with NaN above everything), so this is exact.
     */
    public Operator negate() {
        return switch (this) {
            case EQ -> NOT_EQ;
            case NOT_EQ -> EQ;
            case LT -> GT_EQ;
            case LT_EQ -> GT;
            case GT -> LT_EQ;
            case GT_EQ -> LT;
            case IS_DISTINCT_FROM -> IS_NOT_DISTINCT_FROM;
            case IS_NOT_DISTINCT_FROM -> IS_DISTINCT_FROM;
            default -> throw new IllegalArgumentException(this + " is not a comparison");
        };
    }

    @Override
    public String toString() {
        return sql;
    }
}
