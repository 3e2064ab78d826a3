package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.expr.Operator;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.kernels.BooleanAccumulator;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.memory.Resources;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * {@code left op right} with operand types fixed at planning: arithmetic (overflow and division
 * by zero as {@code mode} says), comparison, or Kleene AND/OR. Arithmetic and comparisons
 * evaluate both sides once per batch and hand the whole arrays (or scalars) to one kernel.
 *
 * <p>AND and OR are lazy. A chain {@code a AND b AND c} is evaluated term by term: after each
 * term, the rows whose result is already decided (FALSE for AND, TRUE for OR) are counted from
 * the bitmaps; when none is left undecided the chain stops, and the next term runs only on the
 * undecided rows when at most {@link #PRE_SELECTION_THRESHOLD} of the batch is undecided, or
 * whenever the term could fail or is costly ({@link PhysicalExpr#isCheapAndInfallible()} is
 * false). So {@code y <> 0 AND x / y > 1} never divides by zero, and a selective first term
 * spares the later ones most of the rows.
 */
public record BinaryExpr(PhysicalExpr left, Operator op, PhysicalExpr right, DataType dataType, ArithmeticMode mode)
        implements PhysicalExpr {
    /** At most this share of the batch undecided, a cheap term runs on those rows only. */
    public static final double PRE_SELECTION_THRESHOLD = 0.2;

    public BinaryExpr {
        Objects.requireNonNull(left, "left is null");
        Objects.requireNonNull(op, "op is null");
        Objects.requireNonNull(right, "right is null");
        Objects.requireNonNull(dataType, "dataType is null");
        Objects.requireNonNull(mode, "mode is null");
    }

    /** Checked arithmetic. */
    public BinaryExpr(PhysicalExpr left, Operator op, PhysicalExpr right, DataType dataType) {
        this(left, op, right, dataType, ArithmeticMode.CHECKED);
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        if (op == Operator.AND || op == Operator.OR) {
            return evaluateChain(ctx);
        }
        try (ColumnarValue l = left.evaluate(ctx);
                ColumnarValue r = right.evaluate(ctx)) {
            if (op.isArithmetic()) {
                try {
                    return Kernels.arithmetic(op, l, r, dataType, mode, ctx.rows(), ctx.allocator());
                } catch (KernelArithmeticException e) {
                    // Name the expression as written rather than the kernel's operand types.
                    KernelArithmeticException named =
                            new KernelArithmeticException(e.what(), Names.sql(this), e.row(), "cpu");
                    named.initCause(e);
                    throw named;
                }
            }
            return Kernels.compare(op, l, r, ctx.rows(), ctx.allocator());
        }
    }

    /** The terms of this AND (or OR) chain, left to right. */
    public List<PhysicalExpr> terms() {
        List<PhysicalExpr> out = new ArrayList<>();
        flatten(this, op, out);
        return out;
    }

    private static void flatten(PhysicalExpr e, Operator op, List<PhysicalExpr> out) {
        if (e instanceof BinaryExpr b && b.op == op) {
            flatten(b.left, op, out);
            flatten(b.right, op, out);
        } else {
            out.add(e);
        }
    }

    private ColumnarValue evaluateChain(EvalContext ctx) {
        boolean and = op == Operator.AND;
        int rows = ctx.rows();
        List<PhysicalExpr> terms = terms();
        ColumnarValue acc = terms.getFirst().evaluate(ctx);
        try {
            for (int i = 1; i < terms.size(); i++) {
                PhysicalExpr term = terms.get(i);
                // The rows the next term can still change: not yet FALSE (AND) or not yet TRUE (OR).
                Selection undecided = and ? Selection.ofNotFalse(acc, rows) : Selection.ofNotTrue(acc, rows);
                if (undecided.isNone()) {
                    break;
                }
                // Every row known TRUE (AND) or known FALSE (OR): the result is the next term's. (A result of
                // our own is kept instead: combining into it in place costs less than a new vector.)
                boolean identity =
                        undecided.isAll() && !hasNulls(acc) && !(acc instanceof ColumnarValue.Array a && a.owned());
                if (identity) {
                    ColumnarValue next = term.evaluate(ctx);
                    acc.close();
                    acc = next;
                    continue;
                }
                ColumnarValue next;
                boolean whole = undecided.isAll()
                        || (term.isCheapAndInfallible() && undecided.count() > PRE_SELECTION_THRESHOLD * rows);
                if (whole) {
                    ColumnarValue previous = acc;
                    acc = null; // combineInto owns it while it works, and on an exception
                    ColumnarValue combined = combineInto(previous, term, and, ctx);
                    acc = combined != null ? combined : previous;
                    if (combined != null) {
                        continue;
                    }
                }
                if (whole) {
                    next = term.evaluate(ctx);
                } else {
                    // NULL on the decided rows, which the Kleene operator then ignores.
                    next = term.evaluateSelection(ctx, undecided);
                }
                try (next) {
                    ColumnarValue previous = acc;
                    acc = null; // consumed: written over in place when it is ours, else closed
                    acc = Kernels.logicConsumingLeft(previous, next, and, rows, ctx.allocator());
                }
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
     * A comparison (or its negation) or an IS [NOT] NULL term combined straight into the running
     * result {@code acc}, with no vector of its own; null when {@code term} is not such a term.
     * Takes ownership of {@code acc} only when it returns non-null (also on an exception).
     */
    private static ColumnarValue combineInto(ColumnarValue acc, PhysicalExpr term, boolean and, EvalContext ctx) {
        Combinable c = Combinable.of(term);
        if (c == null) {
            return null;
        }
        List<ColumnarValue> inputs = new ArrayList<>(2);
        BooleanAccumulator nested = null;
        try {
            switch (c) {
                case Combinable.Comparison x -> {
                    inputs.add(x.node().left.evaluate(ctx));
                    inputs.add(x.node().right.evaluate(ctx));
                }
                case Combinable.NullTest x -> inputs.add(x.input().evaluate(ctx));
                // A nested chain of the other operator: built on the heap and merged in, no vector of its own.
                case Combinable.Chain x -> nested = x.node().accumulate(ctx);
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
                case Combinable.Chain _ -> nested.mergeInto(acc, and, ctx.allocator());
            };
        } finally {
            Resources.closeAll(inputs);
        }
    }

    /**
     * This chain's result on the heap, for a chain nested in another: each term is combined into
     * it (comparisons and IS NULL tests straight from their operands, nested chains from their own
     * accumulators) with the same short-circuit and pre-selection as {@link #evaluate}.
     */
    private BooleanAccumulator accumulate(EvalContext ctx) {
        boolean and = op == Operator.AND;
        int rows = ctx.rows();
        BooleanAccumulator acc = new BooleanAccumulator(and, rows);
        for (PhysicalExpr term : terms()) {
            Selection undecided = acc.undecided();
            if (undecided.isNone() && rows > 0) {
                break;
            }
            boolean whole = undecided.isAll()
                    || (term.isCheapAndInfallible() && undecided.count() > PRE_SELECTION_THRESHOLD * rows);
            if (whole && combineWhole(acc, term, ctx)) {
                continue;
            }
            // NULL on the decided rows when pre-selected, which the Kleene operator then ignores.
            try (ColumnarValue v = whole ? term.evaluate(ctx) : term.evaluateSelection(ctx, undecided)) {
                acc.combine(v);
            }
        }
        return acc;
    }

    /**
     * Combines {@code term}, evaluated on the whole batch, into {@code acc} without a vector of its
     * own when it is a comparison (or its negation), an IS [NOT] NULL test or an AND/OR chain;
     * false (nothing evaluated) for any other node.
     */
    static boolean combineWhole(BooleanAccumulator acc, PhysicalExpr term, EvalContext ctx) {
        switch (Combinable.of(term)) {
            case null -> {
                return false;
            }
            case Combinable.Comparison x -> {
                try (ColumnarValue l = x.node().left.evaluate(ctx);
                        ColumnarValue r = x.node().right.evaluate(ctx)) {
                    acc.combineComparison(x.op(), l, r, ctx.allocator());
                }
            }
            case Combinable.NullTest x -> {
                try (ColumnarValue v = x.input().evaluate(ctx)) {
                    acc.combineIsNull(v, x.negated());
                }
            }
            case Combinable.Chain x -> acc.combine(x.node().accumulate(ctx));
        }
        return true;
    }

    /**
     * A chain term that combines into a running result without a vector of its own: a comparison
     * (with its operator negated under a NOT), an IS [NOT] NULL test (its sense flipped under a
     * NOT), or a nested AND/OR chain.
     */
    private sealed interface Combinable {
        record Comparison(BinaryExpr node, Operator op) implements Combinable {}

        record NullTest(PhysicalExpr input, boolean negated) implements Combinable {}

        record Chain(BinaryExpr node) implements Combinable {}

        /** {@code term} as a combinable term, or null. */
        static Combinable of(PhysicalExpr term) {
            boolean negated = term instanceof NotExpr n
                    && (n.input() instanceof BinaryExpr b && b.op.isComparison() || n.input() instanceof IsNullExpr);
            PhysicalExpr t = negated ? ((NotExpr) term).input() : term;
            return switch (t) {
                case BinaryExpr c when c.op.isComparison() -> new Comparison(c, negated ? c.op.negate() : c.op);
                case IsNullExpr n -> new NullTest(n.input(), n.negated() != negated);
                case BinaryExpr c when !negated && (c.op == Operator.AND || c.op == Operator.OR) -> new Chain(c);
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

    @Override
    public boolean isCheapAndInfallible() {
        if (!left.isCheapAndInfallible() || !right.isCheapAndInfallible()) {
            return false;
        }
        if (!op.isArithmetic()) {
            return true; // comparisons and Boolean logic cannot fail
        }
        if (dataType instanceof DataType.FloatingPoint) {
            return true; // IEEE 754: no errors
        }
        return dataType instanceof DataType.Int
                && mode == ArithmeticMode.WRAPPING
                && op != Operator.DIVIDE
                && op != Operator.MODULO;
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(left, right);
    }

    @Override
    public String describe() {
        if (op.isArithmetic() && !(dataType instanceof DataType.FloatingPoint) && mode != ArithmeticMode.CHECKED) {
            return op.sql() + " (" + mode.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
        }
        return op.sql();
    }
}
