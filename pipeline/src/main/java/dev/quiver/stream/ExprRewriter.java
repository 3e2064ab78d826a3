package dev.quiver.stream;

import dev.quiver.expr.Expr;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/** Rebuilds an expression with a function applied to each direct child. */
final class ExprRewriter {
    private ExprRewriter() {}

    /**
     * {@code e} with {@code f} applied to its direct children (the same instance when none
     * changed). A scalar subquery has no children here: its expressions read its own table.
     */
    static Expr mapChildren(Expr e, UnaryOperator<Expr> f) {
        return switch (e) {
            case Expr.Column c -> c;
            case Expr.Literal l -> l;
            case Expr.ScalarSubquery s -> s;
            case Expr.Binary b -> new Expr.Binary(f.apply(b.left()), b.op(), f.apply(b.right()));
            case Expr.Not n -> new Expr.Not(f.apply(n.expr()));
            case Expr.IsNull n -> new Expr.IsNull(f.apply(n.expr()), n.negated());
            case Expr.Negative n -> new Expr.Negative(f.apply(n.expr()));
            case Expr.Cast c -> new Expr.Cast(f.apply(c.expr()), c.type());
            case Expr.TryCast c -> new Expr.TryCast(f.apply(c.expr()), c.type());
            case Expr.Case c ->
                new Expr.Case(
                        c.operand() == null ? null : f.apply(c.operand()),
                        c.branches().stream()
                                .map(w -> new Expr.WhenThen(f.apply(w.when()), f.apply(w.then())))
                                .toList(),
                        c.otherwise() == null ? null : f.apply(c.otherwise()));
            case Expr.InList in ->
                new Expr.InList(f.apply(in.expr()), in.list().stream().map(f).toList(), in.negated());
            case Expr.Between b ->
                new Expr.Between(f.apply(b.expr()), f.apply(b.low()), f.apply(b.high()), b.negated());
            case Expr.Like l ->
                new Expr.Like(f.apply(l.expr()), f.apply(l.pattern()), l.escape(), l.negated(), l.caseInsensitive());
            case Expr.Call c ->
                new Expr.Call(c.function(), c.args().stream().map(f).toList(), c.argNames());
            case Expr.Alias a -> new Expr.Alias(f.apply(a.expr()), a.name());
        };
    }

    /** {@code e} rewritten bottom-up: children first, then {@code f} on the rebuilt node. */
    static Expr transformUp(Expr e, UnaryOperator<Expr> f) {
        return f.apply(mapChildren(e, c -> transformUp(c, f)));
    }

    /** Whether {@code test} holds for {@code e} or any node below it (not looking into subqueries). */
    static boolean any(Expr e, Predicate<Expr> test) {
        if (test.test(e)) {
            return true;
        }
        boolean[] found = new boolean[1];
        mapChildren(e, c -> {
            found[0] |= any(c, test);
            return c;
        });
        return found[0];
    }
}
