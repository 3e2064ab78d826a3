package dev.quiver.planning;

import dev.quiver.expr.Operator;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.PhysicalExpr;
import java.util.ArrayList;
import java.util.List;

/**
 * An AND (or OR) chain that does not fuse whole, as a host chain whose numeric terms are one
 * kernel segment at its head: in {@code passenger_count > 1 AND payment_type = 'card' AND
 * fare > 10} the two comparisons of numbers run as one dense loop over the batch, then the string
 * test runs on the rows that loop left undecided. The terms that go into the segment are those
 * {@link CaseFusion#fusesAsNumericTerm} accepts: comparisons of numbers, dates and timestamps,
 * {@code BETWEEN}, short {@code IN} lists of literals, and AND/OR/NOT over them, over columns and
 * literals only, none of which can raise. The other terms follow in the order written, each fused
 * on its own, a nested chain of the other operator handled the same way.
 *
 * <p>Moving those terms first changes no result: AND and OR are commutative in SQL's three-valued
 * logic, and a term that cannot raise gives the same value wherever it stands. A term that can
 * raise only sees fewer rows than it did (those the segment decided no longer reach it), never a
 * row the terms written before it would have decided: {@code y <> 0 AND x / y > 1} still never
 * divides by zero. A chain with a volatile term is left as written: the rows such a term runs on
 * are its calls, which no other term may change. The terms are the chain's flat list ({@link BinaryExpr#terms()}), so what runs
 * does not depend on how the planner balanced a long chain.
 */
final class ChainFusion {
    private ChainFusion() {}

    /** {@code chain} (an AND or OR) as a host chain with its numeric terms fused into one segment at its head. */
    static PhysicalExpr chain(BinaryExpr chain) {
        Operator op = chain.op();
        List<PhysicalExpr> numeric = new ArrayList<>();
        List<PhysicalExpr> rest = new ArrayList<>();
        for (PhysicalExpr term : chain.terms()) {
            (CaseFusion.fusesAsNumericTerm(term) ? numeric : rest).add(term);
        }
        if (numeric.size() < 2 || rest.isEmpty() || rest.stream().anyMatch(CaseFusion::isVolatile)) {
            // Nothing to gather (a lone comparison is a host comparison kernel already), every term is numeric and
            // the chain was too large for one segment, or a volatile term, which nothing may cross (the rows it
            // runs on are its calls): the terms as written, each fused on its own.
            return join(fusedTerms(chain.terms()), op, chain);
        }
        List<PhysicalExpr> terms = new ArrayList<>();
        terms.add(Fusion.fuse(join(numeric, op, chain)));
        terms.addAll(fusedTerms(rest));
        return join(terms, op, chain);
    }

    private static List<PhysicalExpr> fusedTerms(List<PhysicalExpr> terms) {
        List<PhysicalExpr> out = new ArrayList<>(terms.size());
        for (PhysicalExpr t : terms) {
            out.add(CaseFusion.hostTerm(t));
        }
        return out;
    }

    /**
     * The terms as a chain of {@code op} typed as {@code like}: as written (left-deep) up to
     * {@link LogicChains#BALANCED_FROM} terms, balanced beyond, as {@link LogicChains} plans long ones.
     */
    static PhysicalExpr join(List<PhysicalExpr> terms, Operator op, BinaryExpr like) {
        if (terms.size() > LogicChains.BALANCED_FROM) {
            return balanced(terms, op, like);
        }
        PhysicalExpr acc = terms.getFirst();
        for (int i = 1; i < terms.size(); i++) {
            acc = new BinaryExpr(acc, op, terms.get(i), like.dataType(), like.mode());
        }
        return acc;
    }

    private static PhysicalExpr balanced(List<PhysicalExpr> terms, Operator op, BinaryExpr like) {
        if (terms.size() == 1) {
            return terms.getFirst();
        }
        int half = terms.size() / 2;
        return new BinaryExpr(
                balanced(terms.subList(0, half), op, like),
                op,
                balanced(terms.subList(half, terms.size()), op, like),
                like.dataType(),
                like.mode());
    }
}
