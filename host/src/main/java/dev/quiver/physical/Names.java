package dev.quiver.physical;

/** How EXPLAIN and error messages spell names and nodes. */
public final class Names {
    private Names() {
    }

    static String quote(String name) {
        return name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /**
     * The node as SQL text (for messages and EXPLAIN): columns by name, literals as SQL. Written
     * with a stack of its own, not by recursion: the tree may be deep.
     */
    public static String sql(PhysicalExpr e) {
        StringBuilder sb = new StringBuilder();
        java.util.Deque<Object> todo = new java.util.ArrayDeque<>(); // a String is appended, a node expanded
        todo.push(e);
        while (!todo.isEmpty()) {
            Object next = todo.pop();
            if (next instanceof String s) {
                sb.append(s);
                continue;
            }
            java.util.List<Object> pieces = switch ((PhysicalExpr) next) {
                case ColumnExpr c -> java.util.List.of(c.name());
                case LiteralExpr l -> java.util.List.of(l.value().toSql());
                case BinaryExpr b -> java.util.List.of("(", b.left(), " " + b.op().sql() + " ", b.right(), ")");
                case NegativeExpr n -> java.util.List.of("(- ", n.input(), ")");
                case CastExpr c -> java.util.List.of(c.safe() ? "TRY_CAST(" : "CAST(", c.input(),
                        " AS " + dev.quiver.types.SqlTypes.sqlName(c.dataType()) + ")");
                case ScalarFunctionExpr f -> {
                    java.util.List<Object> out = new java.util.ArrayList<>();
                    out.add(f.function().name() + "(");
                    for (int i = 0; i < f.args().size(); i++) {
                        if (i > 0) {
                            out.add(", ");
                        }
                        out.add(f.args().get(i));
                    }
                    out.add(")");
                    yield out;
                }
                case FusedKernelExpr f -> java.util.List.of(f.program().text());
                case PhysicalExpr other -> java.util.List.of(other.describe());
            };
            for (int i = pieces.size() - 1; i >= 0; i--) {
                todo.push(pieces.get(i));
            }
        }
        return sb.toString();
    }
}
