package dev.quiver.planning;

import dev.quiver.expr.Expr;
import dev.quiver.expr.Operator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Rebalances long AND and OR chains before planning: {@code t1 OR t2 OR ... OR tn}, which text
 * and builders make left-deep ({@code n} levels), becomes a balanced tree of the same terms in
 * the same order ({@code log2 n} levels). Nothing else changes: the physical AND/OR node runs a
 * chain as its flat list of terms, left to right ({@code BinaryExpr.terms()}), however the chain
 * is nested, so the rows each term sees and the result are the same. Chains of at most
 * {@value #BALANCED_FROM} terms are left as written, so messages and EXPLAIN of ordinary
 * expressions show them as written. The walk uses a stack of its own: the tree may be deep.
 */
final class LogicChains {
    /** Chains longer than this are balanced. */
    static final int BALANCED_FROM = 64;

    private LogicChains() {}

    /** {@code e} with each AND/OR chain of more than {@value #BALANCED_FROM} terms balanced; {@code e} itself when there is none. */
    static Expr balance(Expr e) {
        Deque<Frame> stack = new ArrayDeque<>();
        stack.push(new Frame(e));
        Expr result = null;
        while (result == null) {
            Frame f = stack.peek();
            if (f.done.size() < f.parts.size()) {
                stack.push(new Frame(f.parts.get(f.done.size())));
                continue;
            }
            stack.pop();
            Expr built = f.build();
            if (stack.isEmpty()) {
                result = built;
            } else {
                stack.peek().done.add(built);
            }
        }
        return result;
    }

    /** One node being rebuilt: its parts (a long chain's terms, else its children) and those rebuilt so far. */
    private static final class Frame {
        final Expr node;
        final Operator chain;
        final List<Expr> parts;
        final List<Expr> done = new ArrayList<>();

        Frame(Expr node) {
            this.node = node;
            List<Expr> terms = node instanceof Expr.Binary b && b.op().isLogical() ? terms(b) : null;
            if (terms != null && terms.size() > BALANCED_FROM) {
                this.chain = ((Expr.Binary) node).op();
                this.parts = terms;
            } else {
                this.chain = null;
                // A subquery's select and where are planned against its own table, by its pipeline.
                this.parts = node.children();
            }
        }

        Expr build() {
            if (chain != null) {
                return balanced(chain, done);
            }
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i) != done.get(i)) {
                    return withChildren(node, done);
                }
            }
            return node;
        }
    }

    /** The terms of the chain of {@code b}'s operator rooted at {@code b}, left to right. */
    private static List<Expr> terms(Expr.Binary b) {
        List<Expr> out = new ArrayList<>();
        Deque<Expr> todo = new ArrayDeque<>();
        todo.push(b);
        while (!todo.isEmpty()) {
            Expr e = todo.pop();
            if (e instanceof Expr.Binary x && x.op() == b.op()) {
                todo.push(x.right());
                todo.push(x.left());
            } else {
                out.add(e);
            }
        }
        return out;
    }

    /** The terms joined pairwise, level by level, in order. */
    private static Expr balanced(Operator op, List<Expr> terms) {
        List<Expr> level = terms;
        while (level.size() > 1) {
            List<Expr> next = new ArrayList<>((level.size() + 1) / 2);
            for (int i = 0; i + 1 < level.size(); i += 2) {
                next.add(new Expr.Binary(level.get(i), op, level.get(i + 1)));
            }
            if (level.size() % 2 == 1) {
                next.add(level.getLast());
            }
            level = next;
        }
        return level.getFirst();
    }

    /** {@code e} with its children ({@link Expr#children()} order) replaced. */
    private static Expr withChildren(Expr e, List<Expr> c) {
        return switch (e) {
            case Expr.Column x -> x;
            case Expr.Literal x -> x;
            case Expr.ScalarSubquery x -> x;
            case Expr.Binary x -> new Expr.Binary(c.get(0), x.op(), c.get(1));
            case Expr.Not _ -> new Expr.Not(c.getFirst());
            case Expr.IsNull x -> new Expr.IsNull(c.getFirst(), x.negated());
            case Expr.Negative _ -> new Expr.Negative(c.getFirst());
            case Expr.Cast x -> new Expr.Cast(c.getFirst(), x.type());
            case Expr.TryCast x -> new Expr.TryCast(c.getFirst(), x.type());
            case Expr.Case x -> {
                int k = 0;
                Expr operand = x.operand() == null ? null : c.get(k++);
                List<Expr.WhenThen> branches = new ArrayList<>(x.branches().size());
                for (int i = 0; i < x.branches().size(); i++) {
                    branches.add(new Expr.WhenThen(c.get(k), c.get(k + 1)));
                    k += 2;
                }
                yield new Expr.Case(operand, branches, x.otherwise() == null ? null : c.get(k));
            }
            case Expr.InList x -> new Expr.InList(c.getFirst(), c.subList(1, c.size()), x.negated());
            case Expr.Between x -> new Expr.Between(c.get(0), c.get(1), c.get(2), x.negated());
            case Expr.Like x -> new Expr.Like(c.get(0), c.get(1), x.escape(), x.negated(), x.caseInsensitive());
            case Expr.Call x -> new Expr.Call(x.function(), c, x.argNames());
            case Expr.Alias x -> new Expr.Alias(c.getFirst(), x.name());
        };
    }
}
