package dev.quiver.expr;

import dev.quiver.types.SqlTypes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Set;

/**
 * {@link Expr#toString()}: an expression as SQL text, written with an explicit stack instead of
 * recursion, so a tree of any depth prints (a 100,000-term sum built in Java is 100,000 levels
 * deep) in time linear in the text's length.
 */
public final class ExprText {
    private ExprText() {}

    /** Whether {@code name} is a plain lower-case word ({@code [a-z_][a-z0-9_]*}), without a regular expression per name. */
    static boolean isPlainWord(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** The whole text. */
    static String sql(Expr e) {
        return sql(e, Integer.MAX_VALUE);
    }

    /**
     * The text of {@code e}, cut after {@code maxChars} characters and then ending with {@code …}:
     * what a message shows of an expression that may be huge. Takes time in proportion to what it
     * writes, not to the size of the tree.
     */
    public static String sql(Expr e, int maxChars) {
        StringBuilder sb = new StringBuilder();
        // Work items: a String is appended as it is; an Expr is replaced by its pieces.
        Deque<Object> todo = new ArrayDeque<>();
        todo.push(e);
        while (!todo.isEmpty()) {
            if (sb.length() > maxChars) {
                sb.setLength(maxChars);
                return sb.append('…').toString();
            }
            Object next = todo.pop();
            if (next instanceof String s) {
                sb.append(s);
            } else {
                pushPieces((Expr) next, todo, sb);
            }
        }
        return sb.toString();
    }

    /**
     * Pushes the pieces of {@code e} so that they pop in reading order; leaves are appended to
     * {@code sb} at once.
     */
    private static void pushPieces(Expr e, Deque<Object> todo, StringBuilder sb) {
        Pieces p = new Pieces();
        switch (e) {
            case Expr.Column c ->
                sb.append((c.qualifier() == null ? "" : Expr.quoteIdentifier(c.qualifier()) + ".")
                        + Expr.quoteIdentifier(c.name()));
            case Expr.Literal l -> sb.append(l.value().toSql());
            case Expr.Binary b ->
                p.add("(")
                        .add(b.left())
                        .add(" " + b.op().sql() + " ")
                        .add(b.right())
                        .add(")");
            case Expr.Not n -> p.add("(NOT ").add(n.expr()).add(")");
            case Expr.IsNull n -> p.add("(").add(n.expr()).add(n.negated() ? " IS NOT NULL)" : " IS NULL)");
            case Expr.Negative n -> {
                // A minus directly on a number is read as part of the literal, and "- -x" does not
                // parse: parenthesize everything that does not print as a name, a call or a parenthesized form.
                Expr x = n.expr();
                boolean bare = x instanceof Expr.Column
                        || x instanceof Expr.Call
                        || x instanceof Expr.Binary
                        || x instanceof Expr.Not
                        || x instanceof Expr.IsNull
                        || x instanceof Expr.Negative
                        || x instanceof Expr.InList
                        || x instanceof Expr.Between
                        || x instanceof Expr.Like
                        || x instanceof Expr.ScalarSubquery;
                p.add(bare ? "(- " : "(- (").add(x).add(bare ? ")" : "))");
            }
            case Expr.Cast c -> p.add("CAST(").add(c.expr()).add(" AS " + SqlTypes.sqlName(c.type()) + ")");
            case Expr.TryCast c -> p.add("TRY_CAST(").add(c.expr()).add(" AS " + SqlTypes.sqlName(c.type()) + ")");
            case Expr.Case c -> {
                p.add("CASE");
                if (c.operand() != null) {
                    p.add(" ").add(c.operand());
                }
                for (Expr.WhenThen b : c.branches()) {
                    p.add(" WHEN ").add(b.when()).add(" THEN ").add(b.then());
                }
                if (c.otherwise() != null) {
                    p.add(" ELSE ").add(c.otherwise());
                }
                p.add(" END");
            }
            case Expr.InList i -> {
                p.add("(").add(i.expr()).add(i.negated() ? " NOT IN (" : " IN (");
                for (int k = 0; k < i.list().size(); k++) {
                    if (k > 0) {
                        p.add(", ");
                    }
                    p.add(i.list().get(k));
                }
                p.add("))");
            }
            case Expr.Between b ->
                p.add("(")
                        .add(b.expr())
                        .add(b.negated() ? " NOT BETWEEN " : " BETWEEN ")
                        .add(b.low())
                        .add(" AND ")
                        .add(b.high())
                        .add(")");
            case Expr.Like l ->
                p.add("(")
                        .add(l.expr())
                        .add((l.negated() ? " NOT" : "") + (l.caseInsensitive() ? " ILIKE " : " LIKE "))
                        .add(l.pattern())
                        .add((l.escape() == null ? "" : " ESCAPE '" + (l.escape() == '\'' ? "''" : l.escape()) + "'")
                                + ")");
            case Expr.Call c -> {
                // TRIM, SUBSTRING and OVERLAY have forms of their own, which take neither named arguments nor none:
                // quoted, the name is a call.
                boolean form = (c.hasNamedArgs() || c.args().isEmpty())
                        && Set.of("trim", "substring", "overlay").contains(c.function());
                p.add((form ? "\"" + c.function() + "\"" : Expr.quoteIdentifier(c.function())) + "(");
                for (int k = 0; k < c.args().size(); k++) {
                    String name = c.argNames().get(k);
                    p.add((k == 0 ? "" : ", ") + (name == null ? "" : Expr.quoteIdentifier(name) + " => "));
                    p.add(c.args().get(k));
                }
                p.add(")");
            }
            case Expr.Alias a -> p.add(a.expr()).add(" AS " + Expr.quoteIdentifier(a.name()));
            case Expr.ScalarSubquery s -> {
                p.add("(SELECT ").add(s.select()).add(" FROM " + Expr.quoteIdentifier(s.table()));
                if (s.where() != null) {
                    p.add(" WHERE ").add(s.where());
                }
                p.add((s.limit() == null ? "" : " LIMIT " + s.limit()) + ")");
            }
        }
        p.pushOnto(todo);
    }

    /** The pieces of one node, in reading order. */
    private static final class Pieces {
        private final ArrayList<Object> items = new ArrayList<>();

        Pieces add(Object piece) {
            items.add(piece);
            return this;
        }

        void pushOnto(Deque<Object> todo) {
            for (int i = items.size() - 1; i >= 0; i--) {
                todo.push(items.get(i));
            }
        }
    }
}
