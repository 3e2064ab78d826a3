package dev.quiver.physical;

/** How EXPLAIN and error messages spell names and nodes. */
public final class Names {
    private Names() {
    }

    static String quote(String name) {
        return name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** The node as SQL text (for messages and EXPLAIN): columns by name, literals as SQL. */
    public static String sql(PhysicalExpr e) {
        return switch (e) {
            case ColumnExpr c -> c.name();
            case LiteralExpr l -> l.value().toSql();
            case BinaryExpr b -> "(" + sql(b.left()) + " " + b.op().sql() + " " + sql(b.right()) + ")";
            case NegativeExpr n -> "(- " + sql(n.input()) + ")";
            case CastExpr c -> (c.safe() ? "TRY_CAST(" : "CAST(") + sql(c.input()) + " AS " + dev.quiver.types.SqlTypes.sqlName(c.dataType()) + ")";
            case ScalarFunctionExpr f -> f.function().name() + "(" + String.join(", ", f.args().stream().map(Names::sql).toList()) + ")";
            case FusedKernelExpr f -> f.program().text();
            default -> e.describe();
        };
    }
}
