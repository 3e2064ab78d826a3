package dev.quiver.planning;

import dev.quiver.expr.Operator;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.PhysicalExpr;
import java.util.ArrayList;
import java.util.List;

/**
 * The terms every disjunct of an OR shares, taken out of it: {@code (a AND b AND x) OR (a AND b
 * AND y)} becomes {@code a AND b AND (x OR y)}, as DataFusion's {@code rewrite_disjunctive_predicate}
 * does, so TPC-H Q19's ship mode and instruction tests run once per row instead of once per
 * disjunct, and first. A disjunct left with no term of its own is TRUE, and so is the OR of the
 * rest: {@code (a AND b) OR (a AND b AND y)} is {@code a AND b}.
 *
 * <p>The result is the same in SQL's three-valued logic, which distributes AND over OR. Only
 * terms that are deterministic and cannot raise are taken out: such a term gives the same value
 * wherever it runs, while one that can raise must stay behind the terms that guard it in its
 * disjunct. The rest of each disjunct keeps its order. Applied bottom-up, to every OR of the tree.
 */
final class DisjunctFactoring {
    private DisjunctFactoring() {}

    /** {@code e} with the common terms of its ORs taken out; {@code e} itself when there are none. */
    static PhysicalExpr apply(PhysicalExpr e) {
        List<PhysicalExpr> kids = e.children();
        if (kids.isEmpty()) {
            return e;
        }
        List<PhysicalExpr> done = new ArrayList<>(kids.size());
        boolean changed = false;
        for (PhysicalExpr k : kids) {
            PhysicalExpr d = apply(k);
            changed |= d != k;
            done.add(d);
        }
        PhysicalExpr node = changed ? Fusion.withChildren(e, done) : e;
        return node instanceof BinaryExpr b && b.op() == Operator.OR ? factor(b) : node;
    }

    private static PhysicalExpr factor(BinaryExpr or) {
        List<PhysicalExpr> disjuncts = or.terms();
        List<List<PhysicalExpr>> conjuncts = new ArrayList<>(disjuncts.size());
        for (PhysicalExpr d : disjuncts) {
            conjuncts.add(d instanceof BinaryExpr b && b.op() == Operator.AND ? b.terms() : List.of(d));
        }
        if (conjuncts.stream().allMatch(c -> c.size() == 1)) {
            return or; // no conjunction to take a term out of (a repeated disjunct is left as written)
        }
        List<PhysicalExpr> common = new ArrayList<>();
        for (PhysicalExpr t : conjuncts.getFirst()) {
            if (!common.contains(t) && movable(t) && conjuncts.stream().allMatch(c -> c.contains(t))) {
                common.add(t);
            }
        }
        if (common.isEmpty()) {
            return or;
        }
        BinaryExpr like = or;
        List<PhysicalExpr> remainders = new ArrayList<>(disjuncts.size());
        for (List<PhysicalExpr> c : conjuncts) {
            List<PhysicalExpr> own = new ArrayList<>(c);
            own.removeIf(common::contains);
            if (own.isEmpty()) {
                // This disjunct is the common terms alone: the OR holds wherever they do.
                return join(common, Operator.AND, like);
            }
            remainders.add(join(own, Operator.AND, like));
        }
        List<PhysicalExpr> terms = new ArrayList<>(common);
        terms.add(join(remainders, Operator.OR, like));
        return join(terms, Operator.AND, like);
    }

    /** A term that may run before the others of its disjunct: deterministic, and unable to raise. */
    private static boolean movable(PhysicalExpr t) {
        return t.isCheapAndInfallible() && !CaseFusion.isVolatile(t);
    }

    private static PhysicalExpr join(List<PhysicalExpr> terms, Operator op, BinaryExpr like) {
        return ChainFusion.join(terms, op, like);
    }
}
