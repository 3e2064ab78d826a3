package dev.quiver.expr;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * Structural {@code equals} and {@code hashCode} of {@link Expr} trees, walked with an explicit
 * stack: the methods a record generates recurse once per level, which overflows the thread's
 * stack on a tree a few thousand levels deep (a long sum built in Java). Each node is compared by
 * its own fields (its "head": operator, name, flags, how many operands), then its operands.
 */
final class ExprStructure {
    private ExprStructure() {}

    static int hash(Expr root) {
        int h = 1;
        Deque<Expr> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            Expr e = todo.pop();
            h = 31 * h + head(e).hashCode();
            List<Expr> parts = parts(e);
            for (int i = parts.size() - 1; i >= 0; i--) {
                todo.push(parts.get(i));
            }
        }
        return h;
    }

    static boolean equal(Expr a, Object other) {
        if (!(other instanceof Expr b)) {
            return false;
        }
        Deque<Expr> left = new ArrayDeque<>();
        Deque<Expr> right = new ArrayDeque<>();
        left.push(a);
        right.push(b);
        while (!left.isEmpty()) {
            Expr x = left.pop();
            Expr y = right.pop();
            if (x == y) {
                continue;
            }
            if (x.getClass() != y.getClass() || !head(x).equals(head(y))) {
                return false;
            }
            List<Expr> px = parts(x);
            List<Expr> py = parts(y);
            // Heads of equal nodes have the same number of operands.
            for (int i = px.size() - 1; i >= 0; i--) {
                left.push(px.get(i));
                right.push(py.get(i));
            }
        }
        return true;
    }

    /**
     * What a node is apart from its operands, with which operands it has: two nodes with equal
     * heads have the same number of {@link #parts}, in the same roles.
     */
    private static List<Object> head(Expr e) {
        return switch (e) {
            case Expr.Column c -> list("column", c.qualifier(), c.name());
            case Expr.Literal l -> list("literal", l.value());
            case Expr.Binary b -> list("binary", b.op());
            case Expr.Not _ -> list("not");
            case Expr.IsNull n -> list("isnull", n.negated());
            case Expr.Negative _ -> list("negative");
            case Expr.Cast c -> list("cast", c.type());
            case Expr.TryCast c -> list("trycast", c.type());
            case Expr.Case c -> list("case", c.operand() != null, c.branches().size(), c.otherwise() != null);
            case Expr.InList i -> list("in", i.negated(), i.list().size());
            case Expr.Between b -> list("between", b.negated());
            case Expr.Like l -> list("like", l.escape(), l.negated(), l.caseInsensitive());
            case Expr.Call c -> list("call", c.function(), c.argNames());
            case Expr.Alias a -> list("alias", a.name());
            case Expr.ScalarSubquery s -> list("subquery", s.table(), s.limit(), s.where() != null);
        };
    }

    /** {@link List#of} does not take nulls, and heads hold some (an unqualified column, no ESCAPE). */
    private static List<Object> list(Object... items) {
        return Arrays.asList(items);
    }

    /**
     * Every direct subexpression, in order: {@link Expr#children()}, and a subquery's select and
     * where (which are not its children, being over another table's columns, but are part of it).
     */
    static List<Expr> parts(Expr e) {
        if (e instanceof Expr.ScalarSubquery s) {
            List<Expr> out = new ArrayList<>(2);
            out.add(s.select());
            if (s.where() != null) {
                out.add(s.where());
            }
            return out;
        }
        return e.children();
    }
}
