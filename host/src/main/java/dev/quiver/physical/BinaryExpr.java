package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.expr.Operator;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.kernels.BooleanAccumulator;
import dev.quiver.kernels.Kernels;
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
 * <p>AND and OR are lazy ({@link ChainEvaluation}). A chain {@code a AND b AND c} is evaluated
 * term by term in written order (a {@link ConjunctionExpr} orders them by measured cost): after each
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
        return ChainEvaluation.evaluate(terms(), null, op == Operator.AND, ctx, null);
    }

    /**
     * Combines {@code term}, evaluated on the whole batch, into {@code acc} without a vector of its
     * own when it is a comparison (or its negation), an IS [NOT] NULL test or an AND/OR chain;
     * false (nothing evaluated) for any other node.
     */
    static boolean combineWhole(BooleanAccumulator acc, PhysicalExpr term, EvalContext ctx) {
        return ChainEvaluation.combineWhole(acc, term, ctx, null);
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
