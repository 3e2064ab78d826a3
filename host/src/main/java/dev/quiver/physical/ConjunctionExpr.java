package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.expr.Operator;
import dev.quiver.kernels.BooleanAccumulator;
import dev.quiver.kernels.Selection;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * An AND (or OR) chain whose terms run in the order measured to cost least, not necessarily as
 * written (adaptive conjunct ordering, as Velox's ConjunctExpr does): {@link ConjunctOrder}
 * ranks the terms by time per row over the share of rows each decides, from figures sampled as
 * batches go, and re-ranks as they change. Evaluation is the lazy chain of {@link BinaryExpr}
 * ({@link ChainEvaluation}) in that order, so the result is the same Kleene value; each term's
 * {@link ConjunctOrder.Mobility} keeps the guards: a term that can raise runs only after every
 * term written before it, so it sees no row written order would not have shown it.
 *
 * <p>One node per chain of the plan, shared by the threads that evaluate it; the planner
 * ({@code AdaptiveConjuncts}) builds it. {@link #children()} are the terms in written order.
 */
public final class ConjunctionExpr implements PhysicalExpr {
    private final Operator op;
    private final List<PhysicalExpr> terms;
    private final DataType dataType;
    private final ConjunctOrder order;

    /**
     * @param op       AND or OR
     * @param terms    the chain's terms in written order (at least two)
     * @param dataType the chain's type (Boolean)
     * @param mobility how far each term may move
     */
    public ConjunctionExpr(
            Operator op, List<PhysicalExpr> terms, DataType dataType, List<ConjunctOrder.Mobility> mobility) {
        this.op = Objects.requireNonNull(op, "op is null");
        if (op != Operator.AND && op != Operator.OR) {
            throw new IllegalArgumentException("a conjunction is AND or OR, not " + op);
        }
        this.terms = List.copyOf(terms);
        this.dataType = Objects.requireNonNull(dataType, "dataType is null");
        if (this.terms.size() < 2 || mobility.size() != this.terms.size()) {
            throw new IllegalArgumentException(
                    this.terms.size() + " term(s) with " + mobility.size() + " mobilities: need two or more, one each");
        }
        this.order = new ConjunctOrder(mobility);
    }

    public Operator op() {
        return op;
    }

    public List<PhysicalExpr> terms() {
        return terms;
    }

    /** The order and the figures it is ranked from. */
    public ConjunctOrder order() {
        return order;
    }

    /** The same chain over other terms, with fresh figures. */
    public ConjunctionExpr withTerms(List<PhysicalExpr> newTerms) {
        return new ConjunctionExpr(op, newTerms, dataType, order.mobility());
    }

    @Override
    public DataType dataType() {
        return dataType;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        ConjunctOrder.Batch batch = order.next();
        ColumnarValue v = ChainEvaluation.evaluate(terms, batch.order(), op == Operator.AND, ctx, batch.sample());
        order.done(batch);
        return v;
    }

    /** The chain's result on the heap, for a chain nested in another; only the rows {@code care} selects matter (null: all). */
    BooleanAccumulator accumulate(EvalContext ctx, Selection care) {
        ConjunctOrder.Batch batch = order.next();
        BooleanAccumulator acc =
                ChainEvaluation.accumulate(terms, batch.order(), op == Operator.AND, ctx, batch.sample(), care);
        order.done(batch);
        return acc;
    }

    @Override
    public boolean isCheapAndInfallible() {
        return terms.stream().allMatch(PhysicalExpr::isCheapAndInfallible);
    }

    @Override
    public List<PhysicalExpr> children() {
        return terms;
    }

    @Override
    public String describe() {
        return op.sql() + " (adaptive order: " + terms.size() + " terms, ranked by measured cost and selectivity)";
    }

    /**
     * For EXPLAIN ANALYZE: the order now, then per term in that order its number as written, its
     * text, the share of the rows it saw that it let through (its selectivity), nanoseconds per row
     * and how far it may move.
     */
    public String analyze() {
        StringBuilder sb = new StringBuilder();
        int[] now = order.current();
        List<ConjunctStats.Term> figures = order.stats().snapshot();
        sb.append(op.sql()).append(" of ").append(terms.size()).append(" terms, order now ");
        for (int i = 0; i < now.length; i++) {
            sb.append(i > 0 ? ", " : "").append('#').append(now[i] + 1);
        }
        sb.append(" (").append(order.schedule()).append(")\n");
        String decides = op == Operator.AND ? "FALSE" : "TRUE";
        for (int t : now) {
            ConjunctStats.Term f = figures.get(t);
            sb.append("  #")
                    .append(t + 1)
                    .append(' ')
                    .append(shortened(Names.sql(terms.get(t))))
                    .append(": ");
            if (f.samples() == 0) {
                sb.append("not measured yet");
            } else {
                sb.append(String.format(
                        Locale.ROOT,
                        "selectivity %.3f (%s on %.1f%% of the rows it saw), %.2f ns/row",
                        f.passFraction(),
                        decides,
                        100 * f.decidedFraction(),
                        f.nanosPerRow()));
                if (!Double.isNaN(f.selectedNanosPerRow()) && f.selectedNanosPerRow() != f.nanosPerRow()) {
                    sb.append(String.format(Locale.ROOT, " (%.2f on gathered rows)", f.selectedNanosPerRow()));
                }
                sb.append(", ").append(f.samples()).append(" samples");
            }
            ConjunctOrder.Mobility m = order.mobility().get(t);
            if (m != ConjunctOrder.Mobility.FREE) {
                sb.append(
                        m != ConjunctOrder.Mobility.FIXED
                                ? "; can raise: stays after the terms written before it"
                                : t == 0 && terms.get(0) instanceof FusedKernelExpr
                                        ? "; fixed (the chain's fused numeric head runs first)"
                                        : "; fixed (volatile)");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** A term's text for EXPLAIN: its first 100 characters. */
    private static String shortened(String sql) {
        return sql.length() <= 100 ? sql : sql.substring(0, 97) + "...";
    }

    @Override
    public String toString() {
        return Names.sql(this);
    }
}
