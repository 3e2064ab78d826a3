package dev.quiver.expr;

/** The binary operators of {@link Expr.Binary}, with their SQL spelling. */
public enum Operator {
    PLUS("+"), MINUS("-"), MULTIPLY("*"), DIVIDE("/"), MODULO("%"),
    EQ("="), NOT_EQ("<>"), LT("<"), LT_EQ("<="), GT(">"), GT_EQ(">="),
    IS_DISTINCT_FROM("IS DISTINCT FROM"), IS_NOT_DISTINCT_FROM("IS NOT DISTINCT FROM"),
    AND("AND"), OR("OR");

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

    @Override
    public String toString() {
        return sql;
    }
}
