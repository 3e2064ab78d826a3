package dev.quiver.physical;

import dev.quiver.types.SqlTypes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** How EXPLAIN and error messages spell names and nodes. */
public final class Names {
    private Names() {}

    static String quote(String name) {
        return name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /**
     * The node as SQL text (for messages and EXPLAIN): columns by name, literals as SQL. Written
     * with a stack of its own, not by recursion: the tree may be deep.
     */
    public static String sql(PhysicalExpr e) {
        return sql(e, false);
    }

    /**
     * As {@link #sql(PhysicalExpr)}, with each dictionary decode written as the column it decodes:
     * the text of a subtree computed over a dictionary's values ({@code (payment_type = 'card')}).
     */
    static String sqlOverValues(PhysicalExpr e) {
        return sql(e, true);
    }

    private static String sql(PhysicalExpr e, boolean decodesAsColumns) {
        StringBuilder sb = new StringBuilder();
        Deque<Object> todo = new ArrayDeque<>(); // a String is appended, a node expanded
        todo.push(e);
        while (!todo.isEmpty()) {
            Object next = todo.pop();
            if (next instanceof String s) {
                sb.append(s);
                continue;
            }
            List<Object> pieces = switch ((PhysicalExpr) next) {
                case ColumnExpr c -> List.of(c.name());
                case LiteralExpr l -> List.of(l.value().toSql());
                case BinaryExpr b -> List.of("(", b.left(), " " + b.op().sql() + " ", b.right(), ")");
                case ConjunctionExpr c -> {
                    // Left-deep, as the chain is written and as BinaryExpr prints it: ((a AND b) AND c).
                    List<Object> out = new ArrayList<>();
                    out.add("(".repeat(c.terms().size() - 1));
                    out.add(c.terms().getFirst());
                    for (int i = 1; i < c.terms().size(); i++) {
                        out.add(" " + c.op().sql() + " ");
                        out.add(c.terms().get(i));
                        out.add(")");
                    }
                    yield out;
                }
                case NegativeExpr n -> List.of("(- ", n.input(), ")");
                case CastExpr c ->
                    List.of(c.safe() ? "TRY_CAST(" : "CAST(", c.input(), " AS " + SqlTypes.sqlName(c.dataType()) + ")");
                case ScalarFunctionExpr f -> {
                    List<Object> out = new ArrayList<>();
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
                case CaseExpr c -> {
                    List<Object> out = new ArrayList<>();
                    out.add("CASE");
                    if (c.operand() != null) {
                        out.add(" ");
                        out.add(c.operand());
                    }
                    for (int i = 0; i < c.whens().size(); i++) {
                        out.add(" WHEN ");
                        out.add(c.whens().get(i));
                        out.add(" THEN ");
                        out.add(c.thens().get(i));
                    }
                    if (c.otherwise() != null) {
                        out.add(" ELSE ");
                        out.add(c.otherwise());
                    }
                    out.add(" END");
                    yield out;
                }
                case NotExpr n -> List.of("(NOT ", n.input(), ")");
                case LikeExpr l ->
                    List.of(
                            "(",
                            l.input(),
                            (l.negated() ? " NOT" : "") + (l.caseInsensitive() ? " ILIKE " : " LIKE "),
                            l.pattern(),
                            l.escape() == null ? ")" : " ESCAPE '" + l.escape() + "')");
                case BetweenExpr b ->
                    List.of(
                            "(",
                            b.input(),
                            b.negated() ? " NOT BETWEEN " : " BETWEEN ",
                            b.low(),
                            " AND ",
                            b.high(),
                            ")");
                case InListExpr in -> {
                    List<Object> out = new ArrayList<>();
                    out.add("(");
                    out.add(in.input());
                    out.add(in.negated() ? " NOT IN (" : " IN (");
                    for (int i = 0; i < in.list().size(); i++) {
                        out.add(i > 0 ? ", " : "");
                        out.add(in.list().get(i));
                    }
                    out.add("))");
                    yield out;
                }
                case IsNullExpr n -> List.of("(", n.input(), n.negated() ? " IS NOT NULL)" : " IS NULL)");
                case FusedKernelExpr f -> List.of(f.program().text());
                case SharedExpr sh -> List.of(sh.input());
                case DictionaryMapExpr m -> List.of(m.body());
                case DictionaryDecodeExpr d when decodesAsColumns -> List.of(d.indices());
                case PhysicalExpr other -> List.of(other.describe());
            };
            for (int i = pieces.size() - 1; i >= 0; i--) {
                todo.push(pieces.get(i));
            }
        }
        return sb.toString();
    }
}
