package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.expr.Operator;
import dev.quiver.kernels.BooleanAccumulator;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.LookupTable;
import dev.quiver.kernels.Selection;
import dev.quiver.memory.Resources;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code CASE [operand] WHEN .. THEN .. [ELSE ..] END}, evaluated as a sequence of shrinking
 * row sets: each WHEN sees only the rows no earlier branch took, each THEN only the rows its
 * WHEN took, and evaluation stops as soon as every row is taken. So
 * {@code CASE WHEN y <> 0 THEN x / y END} never divides by zero. A cheap, infallible WHEN or
 * THEN (see {@link PhysicalExpr#isCheapAndInfallible()}) runs on the whole batch while more
 * than {@link BinaryExpr#PRE_SELECTION_THRESHOLD} of it is left, which costs less than
 * filtering the batch; everything else runs on a filtered batch. The branch results are
 * assembled in one pass ({@link Kernels#merge}). The operand is evaluated once. Rows no branch
 * takes and no ELSE covers are NULL.
 *
 * <p>{@code CASE operand WHEN literal THEN literal ... [ELSE literal]} over integer, Boolean,
 * date, timestamp or string operands is a {@link LookupTable}, built once when the node is.
 */
public final class CaseExpr implements PhysicalExpr {
    private final PhysicalExpr operand;
    private final List<PhysicalExpr> whens;
    private final List<PhysicalExpr> thens;
    private final PhysicalExpr otherwise;
    private final DataType dataType;
    private final LookupTable lookup;

    public CaseExpr(
            PhysicalExpr operand,
            List<PhysicalExpr> whens,
            List<PhysicalExpr> thens,
            PhysicalExpr otherwise,
            DataType dataType) {
        this.operand = operand;
        this.whens = List.copyOf(whens);
        this.thens = List.copyOf(thens);
        this.otherwise = otherwise;
        this.dataType = Objects.requireNonNull(dataType, "dataType is null");
        if (this.whens.size() != this.thens.size() || this.whens.isEmpty()) {
            throw new IllegalArgumentException("CASE needs one THEN per WHEN, and at least one");
        }
        this.lookup = lookupTable().orElse(null);
    }

    private Optional<LookupTable> lookupTable() {
        if (operand == null || !(otherwise == null || otherwise instanceof LiteralExpr)) {
            return Optional.empty();
        }
        List<ScalarValue> keys = new ArrayList<>();
        List<ScalarValue> values = new ArrayList<>();
        for (int i = 0; i < whens.size(); i++) {
            if (!(whens.get(i) instanceof LiteralExpr k)
                    || !(thens.get(i) instanceof LiteralExpr v)
                    || !k.dataType().valueType().equals(operand.dataType().valueType())) {
                return Optional.empty();
            }
            keys.add(k.value());
            values.add(v.value());
        }
        return LookupTable.of(
                operand.dataType(),
                keys,
                values,
                otherwise == null ? null : ((LiteralExpr) otherwise).value(),
                dataType);
    }

    public PhysicalExpr operand() {
        return operand;
    }

    public List<PhysicalExpr> whens() {
        return whens;
    }

    public List<PhysicalExpr> thens() {
        return thens;
    }

    public PhysicalExpr otherwise() {
        return otherwise;
    }

    @Override
    public DataType dataType() {
        return dataType;
    }

    /** The prepared lookup table, when every WHEN and THEN is a literal. */
    public Optional<LookupTable> lookup() {
        return Optional.ofNullable(lookup);
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        if (lookup != null) {
            try (ColumnarValue op = operand.evaluate(ctx)) {
                return lookup.apply(op, ctx.rows(), ctx.allocator());
            }
        }
        int rows = ctx.rows();
        List<Kernels.Piece> pieces = new ArrayList<>();
        ColumnarValue op = null;
        try {
            op = operand == null ? null : operand.evaluate(ctx);
            Selection remaining = Selection.all(rows);
            for (int b = 0; b < whens.size() && !remaining.isNone(); b++) {
                Selection taken = taken(whens.get(b), op, ctx, remaining);
                if (taken.isNone()) {
                    continue;
                }
                Selections.Evaluated then =
                        Selections.evaluateFor(thens.get(b), ctx, taken, BinaryExpr.PRE_SELECTION_THRESHOLD);
                pieces.add(new Kernels.Piece(taken, then.value(), then.compact()));
                remaining = remaining.andNot(taken);
            }
            if (otherwise != null && !remaining.isNone()) {
                Selections.Evaluated e =
                        Selections.evaluateFor(otherwise, ctx, remaining, BinaryExpr.PRE_SELECTION_THRESHOLD);
                pieces.add(new Kernels.Piece(remaining, e.value(), e.compact()));
            }
            return Kernels.merge(dataType, rows, pieces, ctx.allocator());
        } finally {
            Resources.closeAll(pieces.stream().map(Kernels.Piece::value).toList());
            if (op != null) {
                op.close();
            }
        }
    }

    /** The rows among {@code remaining} where this WHEN holds (equals the operand, with one). */
    private static Selection taken(PhysicalExpr when, ColumnarValue op, EvalContext ctx, Selection remaining) {
        int rows = ctx.rows();
        if (op == null
                && (remaining.isAll()
                        || (when.isCheapAndInfallible()
                                && remaining.count() > BinaryExpr.PRE_SELECTION_THRESHOLD * rows))) {
            // A comparison, IS NULL test or AND/OR chain straight into row bits: no Boolean vector.
            BooleanAccumulator holds = new BooleanAccumulator(true, rows);
            if (BinaryExpr.combineWhole(holds, when, ctx)) {
                return holds.trueRows().and(remaining);
            }
        }
        Selections.Evaluated w = Selections.evaluateFor(when, ctx, remaining, BinaryExpr.PRE_SELECTION_THRESHOLD);
        try (ColumnarValue cond = w.value()) {
            int n = w.compact() ? remaining.count() : ctx.rows();
            Selection holds;
            if (op == null) {
                holds = Selection.ofTrue(cond, n);
            } else {
                try (ColumnarValue opRows = w.compact() ? Kernels.filter(op, remaining, ctx.allocator()) : borrow(op);
                        ColumnarValue eq = Kernels.compare(Operator.EQ, opRows, cond, n, ctx.allocator())) {
                    holds = Selection.ofTrue(eq, n);
                }
            }
            return w.compact() ? remaining.within(holds) : holds.and(remaining);
        }
    }

    private static ColumnarValue borrow(ColumnarValue v) {
        return v instanceof ColumnarValue.Array a ? ColumnarValue.Array.borrowed(a.vector()) : v;
    }

    @Override
    public List<PhysicalExpr> children() {
        List<PhysicalExpr> c = new ArrayList<>();
        if (operand != null) {
            c.add(operand);
        }
        for (int i = 0; i < whens.size(); i++) {
            c.add(whens.get(i));
            c.add(thens.get(i));
        }
        if (otherwise != null) {
            c.add(otherwise);
        }
        return c;
    }

    @Override
    public String describe() {
        if (lookup != null) {
            return "CASE (operand first), " + lookup.strategy() + (otherwise == null ? ", no ELSE" : ", ELSE last");
        }
        return "CASE" + (operand == null ? "" : " (operand first)") + ", " + whens.size() + " WHEN/THEN pair(s)"
                + (otherwise == null ? ", no ELSE" : ", ELSE last");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CaseExpr c
                && Objects.equals(operand, c.operand)
                && whens.equals(c.whens)
                && thens.equals(c.thens)
                && Objects.equals(otherwise, c.otherwise)
                && dataType.equals(c.dataType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(operand, whens, thens, otherwise, dataType);
    }

    @Override
    public String toString() {
        return "CaseExpr[" + describe() + "]";
    }
}
