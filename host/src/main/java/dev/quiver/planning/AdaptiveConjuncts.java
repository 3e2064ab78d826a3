package dev.quiver.planning;

import dev.quiver.expr.Operator;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.Volatility;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.ConjunctOrder.Mobility;
import dev.quiver.physical.ConjunctionExpr;
import dev.quiver.physical.DictionaryMapExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.IsNullExpr;
import dev.quiver.physical.NotExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.physical.SharedExpr;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Plans each host AND/OR chain of two terms or more whose terms may run in another order as a
 * {@link ConjunctionExpr}, which orders them per query by measured cost and selectivity. A term's
 * {@link Mobility}: {@link Mobility#FIXED} when it is volatile or has side effects (a volatile
 * call, a non-immutable fused kernel, an async call); {@link Mobility#NOT_EARLIER} when it can
 * raise ({@link #canRaise}); {@link Mobility#FREE} otherwise. A chain no term of which could move
 * is left as it is, as is one of more than {@link #MAX_TERMS} terms, and the body of a
 * {@link DictionaryMapExpr} (computed on a dictionary's values, once).
 *
 * <p>Runs last, after {@link Fusion} and {@link DictionaryMapping}, so it sees the chains as they
 * will run (fused numeric terms as one term each). Off with {@code -Dquiver.conjuncts.adaptive=false}
 * (chains then run in written order). The walk recurses: it runs on the planner's deep-stack thread.
 */
final class AdaptiveConjuncts {
    /** The system property that turns adaptive ordering off ({@code false}); on by default. */
    static final String PROPERTY = "quiver.conjuncts.adaptive";

    /** Longer chains keep written order (ranking is quadratic in the terms). */
    static final int MAX_TERMS = 64;

    private final Map<PhysicalExpr, PhysicalExpr> done = new IdentityHashMap<>();

    private AdaptiveConjuncts() {}

    /** Whether {@link #PROPERTY} leaves adaptive ordering on. */
    static boolean enabled() {
        return !"false".equalsIgnoreCase(System.getProperty(PROPERTY, "true").trim());
    }

    /** {@code root} with its reorderable chains planned as {@link ConjunctionExpr}s. */
    static PhysicalExpr apply(PhysicalExpr root) {
        return new AdaptiveConjuncts().rewrite(root);
    }

    private PhysicalExpr rewrite(PhysicalExpr e) {
        PhysicalExpr known = done.get(e);
        if (known != null) {
            return known;
        }
        PhysicalExpr out;
        if (e instanceof BinaryExpr b && (b.op() == Operator.AND || b.op() == Operator.OR)) {
            out = chain(b);
        } else if (e instanceof DictionaryMapExpr || e.children().isEmpty()) {
            out = e;
        } else {
            out = withChildren(e, rewriteAll(e.children()));
        }
        done.put(e, out);
        return out;
    }

    private List<PhysicalExpr> rewriteAll(List<PhysicalExpr> children) {
        List<PhysicalExpr> out = new ArrayList<>(children.size());
        for (PhysicalExpr c : children) {
            out.add(rewrite(c));
        }
        return out;
    }

    private PhysicalExpr chain(BinaryExpr b) {
        List<PhysicalExpr> terms = rewriteAll(b.terms());
        List<Mobility> mobility =
                new ArrayList<>(terms.stream().map(AdaptiveConjuncts::mobility).toList());
        if (isNumericHead(terms.getFirst())) {
            // The chain's numbers as one dense loop at its head (ChainFusion): it costs what reading its columns
            // costs, which no host term undercuts, so it stays first; measured, a head run second on gathered
            // rows looked dearer than it is and could lose its place.
            mobility.set(0, Mobility.FIXED);
        }
        if (terms.size() <= MAX_TERMS && movable(mobility)) {
            return new ConjunctionExpr(b.op(), terms, b.dataType(), mobility);
        }
        return substitute(b, b.op(), terms.iterator());
    }

    /** {@code e}'s chain shape with its terms, left to right, from {@code terms}. */
    private static PhysicalExpr substitute(PhysicalExpr e, Operator op, Iterator<PhysicalExpr> terms) {
        if (e instanceof BinaryExpr b && b.op() == op) {
            PhysicalExpr l = substitute(b.left(), op, terms);
            PhysicalExpr r = substitute(b.right(), op, terms);
            return l == b.left() && r == b.right() ? b : new BinaryExpr(l, op, r, b.dataType(), b.mode());
        }
        return terms.next();
    }

    /** Whether some order other than the written one is allowed: a free term right after a term that is not fixed. */
    static boolean movable(List<Mobility> mobility) {
        for (int t = 1; t < mobility.size(); t++) {
            if (mobility.get(t) == Mobility.FREE && mobility.get(t - 1) != Mobility.FIXED) {
                return true;
            }
        }
        return false;
    }

    /** A Boolean kernel segment over columns alone that cannot fail: what ChainFusion puts at a chain's head. */
    static boolean isNumericHead(PhysicalExpr term) {
        return term instanceof FusedKernelExpr f
                && f.dataType() instanceof DataType.Bool
                && !f.program().isFallible()
                && f.inputs().stream().allMatch(i -> i instanceof ColumnExpr);
    }

    static Mobility mobility(PhysicalExpr term) {
        if (hasSideEffects(term)) {
            return Mobility.FIXED;
        }
        return canRaise(term) ? Mobility.NOT_EARLIER : Mobility.FREE;
    }

    /** Whether {@code e} is volatile or may have side effects anywhere in it: its runs may not be moved or skipped. */
    static boolean hasSideEffects(PhysicalExpr e) {
        boolean here = switch (e) {
            case ScalarFunctionExpr f ->
                f.function().signature().volatility() == Volatility.VOLATILE
                        || f.function() instanceof AsyncScalarFunction;
            // Its program does not say which of its calls is stable and which volatile: either pins it.
            case FusedKernelExpr f -> !f.immutable();
            default -> false;
        };
        if (here) {
            return true;
        }
        for (PhysicalExpr c : e.children()) {
            if (hasSideEffects(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether evaluating {@code e} could raise an error: false for what is cheap and infallible
     * ({@link PhysicalExpr#isCheapAndInfallible()}), and for comparisons, Boolean logic, IS NULL
     * tests and infallible fused kernels over parts that cannot raise; true for anything else.
     */
    static boolean canRaise(PhysicalExpr e) {
        if (e.isCheapAndInfallible()) {
            return false;
        }
        return switch (e) {
            case BinaryExpr b when !b.op().isArithmetic() -> canRaise(b.left()) || canRaise(b.right());
            case NotExpr n -> canRaise(n.input());
            case IsNullExpr n -> canRaise(n.input());
            case SharedExpr s -> canRaise(s.input());
            case ConjunctionExpr c -> c.terms().stream().anyMatch(AdaptiveConjuncts::canRaise);
            case FusedKernelExpr f ->
                f.program().isFallible() || f.inputs().stream().anyMatch(AdaptiveConjuncts::canRaise);
            default -> true;
        };
    }

    private static PhysicalExpr withChildren(PhysicalExpr e, List<PhysicalExpr> c) {
        List<PhysicalExpr> old = e.children();
        for (int i = 0; i < c.size(); i++) {
            if (c.get(i) != old.get(i)) {
                return Fusion.withChildren(e, c);
            }
        }
        return e;
    }
}
