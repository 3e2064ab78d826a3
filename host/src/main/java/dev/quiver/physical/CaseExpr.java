package dev.quiver.physical;

import dev.quiver.expr.Operator;
import dev.quiver.kernels.Kernels;
import dev.quiver.memory.Resources;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code CASE [operand] WHEN .. THEN .. [ELSE ..] END}, evaluated lazily: each WHEN sees only
 * the rows no earlier branch took, and each THEN only the rows its WHEN took, so
 * {@code CASE WHEN y <> 0 THEN x / y END} never divides by zero. The operand is evaluated
 * once. Rows no branch takes and no ELSE covers are NULL.
 */
public record CaseExpr(PhysicalExpr operand, List<PhysicalExpr> whens, List<PhysicalExpr> thens, PhysicalExpr otherwise,
                       DataType dataType) implements PhysicalExpr {
    public CaseExpr {
        whens = List.copyOf(whens);
        thens = List.copyOf(thens);
        if (whens.size() != thens.size() || whens.isEmpty()) {
            throw new IllegalArgumentException("CASE needs one THEN per WHEN, and at least one");
        }
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        int rows = ctx.rows();
        List<int[]> indexSets = new ArrayList<>();
        List<ColumnarValue> values = new ArrayList<>();
        List<AutoCloseable> toClose = new ArrayList<>();
        try {
            ColumnarValue op = operand == null ? null : operand.evaluate(ctx);
            if (op != null) {
                toClose.add(op);
            }
            int[] remaining = identity(rows);
            for (int b = 0; b < whens.size() && remaining.length > 0; b++) {
                Subset sub = Subset.of(ctx, remaining, toClose);
                int[] taken;
                try (ColumnarValue w = whens.get(b).evaluate(sub.ctx())) {
                    if (op != null) {
                        try (ColumnarValue opSub = sub.take(op); ColumnarValue eq = Kernels.compare(Operator.EQ, opSub, w, remaining.length, ctx.allocator())) {
                            taken = trueRows(eq, remaining.length);
                        }
                    } else {
                        taken = trueRows(w, remaining.length);
                    }
                }
                if (taken.length == 0) {
                    continue;
                }
                Subset thenSub = Subset.of(sub.ctx(), taken, toClose);
                values.add(thens.get(b).evaluate(thenSub.ctx()));
                int[] original = new int[taken.length];
                for (int i = 0; i < taken.length; i++) {
                    original[i] = remaining[taken[i]];
                }
                indexSets.add(original);
                remaining = minus(remaining, taken);
            }
            if (otherwise != null && remaining.length > 0) {
                Subset sub = Subset.of(ctx, remaining, toClose);
                values.add(otherwise.evaluate(sub.ctx()));
                indexSets.add(remaining);
            }
            return Kernels.scatter(dataType, rows, indexSets, values, ctx.allocator());
        } finally {
            Resources.closeAll(values);
            Resources.closeAll(toClose);
        }
    }

    private static int[] identity(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = i;
        }
        return r;
    }

    /** Positions (0..n-1) where {@code cond} is TRUE; NULL counts as not taken. */
    private static int[] trueRows(ColumnarValue cond, int n) {
        return switch (cond) {
            case ColumnarValue.Scalar s -> Boolean.TRUE.equals(s.value().value()) ? identity(n) : new int[0];
            case ColumnarValue.Array a -> {
                BitVector bits = (BitVector) a.vector();
                int[] out = new int[n];
                int k = 0;
                for (int i = 0; i < n; i++) {
                    if (!bits.isNull(i) && bits.get(i) != 0) {
                        out[k++] = i;
                    }
                }
                yield java.util.Arrays.copyOf(out, k);
            }
        };
    }

    /** {@code all} without the entries at positions {@code taken} (sorted). */
    private static int[] minus(int[] all, int[] takenPositions) {
        int[] out = new int[all.length - takenPositions.length];
        int k = 0;
        int t = 0;
        for (int i = 0; i < all.length; i++) {
            if (t < takenPositions.length && takenPositions[t] == i) {
                t++;
            } else {
                out[k++] = all[i];
            }
        }
        return out;
    }

    /** A context restricted to some rows of another; the batch itself when the rows are all of them. */
    private record Subset(EvalContext ctx, int[] positions, boolean whole) {
        static Subset of(EvalContext parent, int[] positions, List<AutoCloseable> toClose) {
            if (positions.length == parent.rows()) {
                return new Subset(parent, positions, true);
            }
            List<FieldVector> cols = new ArrayList<>(parent.columns().size());
            for (int c = 0; c < parent.columns().size(); c++) {
                ColumnarValue taken = Kernels.take(parent.column(c), positions, parent.allocator());
                toClose.add(taken);
                cols.add(((ColumnarValue.Array) taken).vector());
            }
            return new Subset(parent.withColumns(cols, positions.length), positions, false);
        }

        /** {@code v} (of the parent's rows) restricted to these rows; borrowed when nothing was taken. */
        ColumnarValue take(ColumnarValue v) {
            if (whole || v instanceof ColumnarValue.Scalar) {
                return v instanceof ColumnarValue.Array a ? ColumnarValue.Array.borrowed(a.vector()) : v;
            }
            return Kernels.take(v, positions, ctx.allocator());
        }
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
        return "CASE" + (operand == null ? "" : " (operand first)") + ", " + whens.size() + " WHEN/THEN pair(s)"
                + (otherwise == null ? ", no ELSE" : ", ELSE last");
    }
}
