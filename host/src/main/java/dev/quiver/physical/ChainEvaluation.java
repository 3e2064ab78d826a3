package dev.quiver.physical;

import dev.quiver.expr.Operator;
import dev.quiver.kernels.BooleanAccumulator;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.memory.Resources;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;

/**
 * The lazy evaluation of an AND (or OR) chain, term by term in a given order: {@link BinaryExpr}
 * runs its terms in written order, {@link ConjunctionExpr} in the order it has measured to cost
 * least. After each term the rows already decided (FALSE for AND, TRUE for OR) are counted; when
 * none is left undecided the chain stops; the next term runs on the undecided rows only when at
 * most {@link BinaryExpr#PRE_SELECTION_THRESHOLD} of the batch is undecided, or whenever it could
 * fail or is costly ({@link PhysicalExpr#isCheapAndInfallible()} is false). Comparisons, IS [NOT]
 * NULL tests and nested chains combine straight into the running result.
 *
 * <p>With a {@link ConjunctSample}, each term's time, the rows it saw and the rows it decided are
 * written into it.
 */
final class ChainEvaluation {
    private ChainEvaluation() {}

    /**
     * The chain's value over the batch, owned by the caller.
     *
     * @param order  the positions in {@code terms} to evaluate, in order; null for written order
     * @param sample where to measure the terms; null for none
     */
    static ColumnarValue evaluate(
            List<PhysicalExpr> terms, int[] order, boolean and, EvalContext ctx, ConjunctSample sample) {
        int rows = ctx.rows();
        int first = order == null ? 0 : order[0];
        long start = sample == null ? 0 : System.nanoTime();
        ColumnarValue acc = terms.get(first).evaluate(ctx);
        int pending = first; // the last term run, whose decided rows are counted at the next step
        int pendingIn = rows;
        if (sample != null) {
            sample.ran(first, rows, rows, true, System.nanoTime() - start);
        }
        try {
            for (int i = 1; i < terms.size(); i++) {
                int index = order == null ? i : order[i];
                PhysicalExpr term = terms.get(index);
                // The rows the next term can still change: not yet FALSE (AND) or not yet TRUE (OR).
                Selection undecided = and ? Selection.ofNotFalse(acc, rows) : Selection.ofNotTrue(acc, rows);
                int in = undecided.count();
                if (sample != null) {
                    sample.decided(pending, pendingIn - in);
                }
                pending = -1;
                if (undecided.isNone()) {
                    break;
                }
                boolean whole = undecided.isAll()
                        || (term.isCheapAndInfallible() && in > BinaryExpr.PRE_SELECTION_THRESHOLD * rows);
                boolean inPlace = !whole && combinesInPlace(term);
                start = sample == null ? 0 : System.nanoTime();
                ColumnarValue previous = acc;
                acc = null; // step owns it, on an exception too
                acc = step(previous, term, undecided, whole, inPlace, and, ctx);
                if (sample != null) {
                    sample.ran(index, in, whole ? rows : in, whole, System.nanoTime() - start);
                    pending = index;
                    pendingIn = in;
                }
            }
            if (sample != null && pending >= 0) {
                Selection left = and ? Selection.ofNotFalse(acc, rows) : Selection.ofNotTrue(acc, rows);
                sample.decided(pending, pendingIn - left.count());
            }
            return acc;
        } catch (RuntimeException | Error e) {
            if (acc != null) {
                acc.close();
            }
            throw e;
        }
    }

    /**
     * {@code acc} combined with {@code term} on the {@code undecided} rows; takes ownership of {@code acc}.
     * {@code inPlace}: the term ({@link #combinesInPlace}) is combined straight into {@code acc},
     * reading only the undecided rows, with no selection of the batch.
     */
    private static ColumnarValue step(
            ColumnarValue acc,
            PhysicalExpr term,
            Selection undecided,
            boolean whole,
            boolean inPlace,
            boolean and,
            EvalContext ctx) {
        int rows = ctx.rows();
        // Every row known TRUE (AND) or known FALSE (OR): the result is the next term's. (A result of
        // our own is kept instead: combining into it in place costs less than a new vector.)
        boolean identity = undecided.isAll() && !hasNulls(acc) && !(acc instanceof ColumnarValue.Array a && a.owned());
        ColumnarValue next;
        try {
            if (identity) {
                next = term.evaluate(ctx);
                acc.close();
                return next;
            }
        } catch (RuntimeException | Error e) {
            acc.close();
            throw e;
        }
        if (whole || inPlace) {
            // owns acc when non-null
            ColumnarValue combined = combineInto(acc, term, and, ctx, whole ? null : undecided);
            if (combined != null) {
                return combined;
            }
        }
        try {
            // Pre-selected: NULL on the decided rows, which the Kleene operator then ignores.
            next = whole ? term.evaluate(ctx) : term.evaluateSelection(ctx, undecided);
        } catch (RuntimeException | Error e) {
            acc.close();
            throw e;
        }
        try (next) {
            return Kernels.logicConsumingLeft(acc, next, and, rows, ctx.allocator());
        }
    }

    /**
     * The chain's result on the heap, for a chain nested in another: each term is combined into it
     * (comparisons and IS NULL tests straight from their operands, nested chains from their own
     * accumulators) with the same short-circuit and pre-selection as {@link #evaluate}.
     */
    static BooleanAccumulator accumulate(
            List<PhysicalExpr> terms, int[] order, boolean and, EvalContext ctx, ConjunctSample sample) {
        return accumulate(terms, order, and, ctx, sample, null);
    }

    /**
     * {@link #accumulate(List, int[], boolean, EvalContext, ConjunctSample)} where only the rows
     * {@code care} selects matter (null: every row): the others start decided, so no term reads
     * them, and the result there is meaningless.
     */
    static BooleanAccumulator accumulate(
            List<PhysicalExpr> terms,
            int[] order,
            boolean and,
            EvalContext ctx,
            ConjunctSample sample,
            Selection care) {
        int rows = ctx.rows();
        BooleanAccumulator acc =
                care == null ? new BooleanAccumulator(and, rows) : new BooleanAccumulator(and, rows, care);
        int pending = -1;
        int pendingIn = 0;
        for (int i = 0; i < terms.size(); i++) {
            int index = order == null ? i : order[i];
            PhysicalExpr term = terms.get(index);
            Selection undecided = acc.undecided();
            int in = undecided.count();
            if (sample != null && pending >= 0) {
                sample.decided(pending, pendingIn - in);
            }
            pending = -1;
            if (undecided.isNone() && rows > 0) {
                break;
            }
            boolean whole = undecided.isAll()
                    || (term.isCheapAndInfallible() && in > BinaryExpr.PRE_SELECTION_THRESHOLD * rows);
            long start = sample == null ? 0 : System.nanoTime();
            boolean inPlace = !whole && combinesInPlace(term);
            if (!(whole || inPlace) || !combineWhole(acc, term, ctx, whole ? null : undecided)) {
                // NULL on the decided rows when pre-selected, which the Kleene operator then ignores.
                try (ColumnarValue v = whole ? term.evaluate(ctx) : term.evaluateSelection(ctx, undecided)) {
                    acc.combine(v);
                }
            }
            if (sample != null) {
                sample.ran(index, in, whole ? rows : in, whole, System.nanoTime() - start);
                pending = index;
                pendingIn = in;
            }
        }
        if (sample != null && pending >= 0) {
            sample.decided(pending, pendingIn - acc.undecided().count());
        }
        return acc;
    }

    /**
     * A comparison (or its negation) or an IS [NOT] NULL term combined straight into the running
     * result {@code acc}, with no vector of its own; null when {@code term} is not such a term.
     * Takes ownership of {@code acc} only when it returns non-null (also on an exception).
     */
    private static ColumnarValue combineInto(
            ColumnarValue acc, PhysicalExpr term, boolean and, EvalContext ctx, Selection care) {
        Combinable c = Combinable.of(term);
        if (c == null) {
            return null;
        }
        List<ColumnarValue> inputs = new ArrayList<>(2);
        BooleanAccumulator nested = null;
        try {
            switch (c) {
                case Combinable.Comparison x -> {
                    inputs.add(x.node().left().evaluate(ctx));
                    inputs.add(x.node().right().evaluate(ctx));
                }
                case Combinable.NullTest x -> inputs.add(x.input().evaluate(ctx));
                case Combinable.Membership x -> inputs.add(x.node().input().evaluate(ctx));
                case Combinable.Match x -> inputs.add(x.node().input().evaluate(ctx));
                // A nested chain of the other operator: built on the heap and merged in, no vector of its own.
                case Combinable.Chain x -> nested = x.accumulate(ctx, care);
            }
        } catch (RuntimeException | Error e) {
            inputs.add(acc);
            Resources.closeAll(inputs);
            throw e;
        }
        try {
            return switch (c) {
                case Combinable.Comparison x ->
                    Kernels.compareConsumingLeft(
                            acc, x.op(), inputs.get(0), inputs.get(1), and, ctx.rows(), ctx.allocator());
                case Combinable.NullTest x ->
                    Kernels.isNullConsumingLeft(acc, inputs.get(0), x.negated(), and, ctx.rows(), ctx.allocator());
                case Combinable.Match x ->
                    Kernels.likeConsumingLeft(
                            acc,
                            inputs.get(0),
                            x.node().compiled().orElseThrow(),
                            x.node().negated(),
                            and,
                            ctx.rows(),
                            ctx.allocator());
                case Combinable.Membership x ->
                    Kernels.inListConsumingLeft(
                            acc,
                            inputs.get(0),
                            x.node().prepared().orElseThrow(),
                            x.node().negated(),
                            and,
                            ctx.rows(),
                            ctx.allocator());
                case Combinable.Chain _ -> nested.mergeInto(acc, and, ctx.allocator());
            };
        } finally {
            Resources.closeAll(inputs);
        }
    }

    /**
     * Combines {@code term}, evaluated on the whole batch, into {@code acc} without a vector of its
     * own when it is a comparison (or its negation), an IS [NOT] NULL test or an AND/OR chain;
     * false (nothing evaluated) for any other node.
     */
    static boolean combineWhole(BooleanAccumulator acc, PhysicalExpr term, EvalContext ctx, Selection care) {
        switch (Combinable.of(term)) {
            case null -> {
                return false;
            }
            case Combinable.Comparison x -> {
                try (ColumnarValue l = x.node().left().evaluate(ctx);
                        ColumnarValue r = x.node().right().evaluate(ctx)) {
                    acc.combineComparison(x.op(), l, r, ctx.allocator());
                }
            }
            case Combinable.NullTest x -> {
                try (ColumnarValue v = x.input().evaluate(ctx)) {
                    acc.combineIsNull(v, x.negated());
                }
            }
            case Combinable.Match x -> {
                try (ColumnarValue v = x.node().input().evaluate(ctx)) {
                    acc.combineLike(
                            v, x.node().compiled().orElseThrow(), x.node().negated(), ctx.allocator());
                }
            }
            case Combinable.Membership x -> {
                try (ColumnarValue v = x.node().input().evaluate(ctx)) {
                    acc.combineInList(
                            v, x.node().prepared().orElseThrow(), x.node().negated(), ctx.allocator());
                }
            }
            case Combinable.Chain x -> acc.combine(x.accumulate(ctx, care));
        }
        return true;
    }

    /**
     * Whether {@code term}, on a part of the batch, is combined straight into the running result
     * rather than evaluated on a selection of the batch (which gathers the rows its columns have
     * there): a nested AND/OR chain (its terms then decide for themselves, on the rows still
     * undecided), or, over a string or binary column, an equality with a literal or another
     * column, an IN list of literals or a LIKE with a literal pattern (the kernel reads the bytes
     * of the undecided rows only). A fixed-width comparison gathers fewer bytes than it would
     * compare, so it keeps the selection.
     */
    static boolean combinesInPlace(PhysicalExpr term) {
        return switch (Combinable.of(term)) {
            case Combinable.Chain _ -> true;
            case Combinable.Membership m ->
                isColumnOrLiteral(m.node().input()) && isBytes(m.node().input().dataType());
            case Combinable.Match m -> isColumnOrLiteral(m.node().input());
            case Combinable.Comparison c ->
                (c.op() == Operator.EQ || c.op() == Operator.NOT_EQ)
                        && isColumnOrLiteral(c.node().left())
                        && isColumnOrLiteral(c.node().right())
                        && isBytes(c.node().left().dataType());
            case null, default -> false;
        };
    }

    private static boolean isColumnOrLiteral(PhysicalExpr e) {
        return e instanceof ColumnExpr || e instanceof LiteralExpr;
    }

    private static boolean isBytes(DataType t) {
        DataType v = t.valueType();
        return v instanceof DataType.Utf8 || v instanceof DataType.Binary;
    }

    /**
     * A chain term that combines into a running result without a vector of its own: a comparison
     * (with its operator negated under a NOT), an IS [NOT] NULL test (its sense flipped under a
     * NOT), an IN list of literals, a LIKE with a literal pattern, or a nested AND/OR chain
     * (written order or adaptive).
     */
    private sealed interface Combinable {
        record Comparison(BinaryExpr node, Operator op) implements Combinable {}

        record NullTest(PhysicalExpr input, boolean negated) implements Combinable {}

        /** {@code input [NOT] IN (literals)}. */
        record Membership(InListExpr node) implements Combinable {}

        /** {@code input [NOT] [I]LIKE pattern} with a literal pattern, compiled once. */
        record Match(LikeExpr node) implements Combinable {}

        record Chain(PhysicalExpr node) implements Combinable {
            /** {@code care}: the rows whose result matters; null for every row. */
            BooleanAccumulator accumulate(EvalContext ctx, Selection care) {
                return switch (node) {
                    case ConjunctionExpr c -> c.accumulate(ctx, care);
                    case BinaryExpr b ->
                        ChainEvaluation.accumulate(b.terms(), null, b.op() == Operator.AND, ctx, null, care);
                    default -> throw new IllegalStateException("not a chain: " + node.describe());
                };
            }
        }

        /** {@code term} as a combinable term, or null. */
        static Combinable of(PhysicalExpr term) {
            boolean negated = term instanceof NotExpr n
                    && (n.input() instanceof BinaryExpr b && b.op().isComparison() || n.input() instanceof IsNullExpr);
            PhysicalExpr t = negated ? ((NotExpr) term).input() : term;
            return switch (t) {
                case BinaryExpr c when c.op().isComparison() -> new Comparison(c, negated ? c.op().negate() : c.op());
                case IsNullExpr n -> new NullTest(n.input(), n.negated() != negated);
                case InListExpr in when !negated && in.literalsOnly() -> new Membership(in);
                case LikeExpr like when !negated && like.compiled().isPresent() -> new Match(like);
                case BinaryExpr c when !negated && (c.op() == Operator.AND || c.op() == Operator.OR) -> new Chain(c);
                case ConjunctionExpr c when !negated -> new Chain(c);
                default -> null;
            };
        }
    }

    private static boolean hasNulls(ColumnarValue v) {
        return switch (v) {
            case ColumnarValue.Scalar s -> s.isNull();
            case ColumnarValue.Array a -> a.vector().getNullCount() > 0;
        };
    }
}
