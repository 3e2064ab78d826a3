package dev.quiver.physical;

import dev.quiver.errors.QuiverException;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.strings.InvalidUtf8Exception;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.Objects;

/** Evaluating a node on some rows of a batch: filter the columns it reads, evaluate, scatter back. */
final class Selections {
    private Selections() {}

    static ColumnarValue evaluate(PhysicalExpr e, EvalContext ctx, Selection selection) {
        Objects.requireNonNull(selection, "selection is null");
        if (selection.rows() != ctx.rows()) {
            throw new IllegalArgumentException(
                    "a selection of " + selection.rows() + " rows on a batch of " + ctx.rows());
        }
        if (selection.isAll()) {
            return e.evaluate(ctx);
        }
        if (selection.isNone()) {
            return new ColumnarValue.Scalar(ScalarValue.nullOf(e.dataType()));
        }
        try (EvalContext selected = ctx.select(selection);
                ColumnarValue compact = evaluateSelected(e, selected, selection)) {
            return Kernels.scatter(compact, selection, e.dataType(), ctx.allocator());
        }
    }

    /**
     * {@code e} on {@code selected}, the rows {@code selection} selects; a failure there names the
     * row of the batch the selection was taken from, not its place among the selected rows.
     */
    private static ColumnarValue evaluateSelected(PhysicalExpr e, EvalContext selected, Selection selection) {
        try {
            return e.evaluate(selected);
        } catch (InvalidUtf8Exception bad) {
            throw bad; // raised where the batch's column is first read: a row of the batch already
        } catch (QuiverException failure) {
            long row = failure.row();
            if (row >= 0 && row < selection.count()) {
                failure.mapRow(selection.indices()[(int) row]);
            }
            throw failure;
        }
    }

    /**
     * {@code e} on the selected rows, compact: {@code selection.count()} rows (or a scalar), the
     * k-th for the k-th selected row. Cheap, infallible nodes run on the whole batch instead when
     * that costs less than filtering, so the result is then aligned with the batch: the returned
     * flag says which.
     */
    static Evaluated evaluateFor(PhysicalExpr e, EvalContext ctx, Selection selection, double fullBatchThreshold) {
        if (selection.isAll()
                || (e.isCheapAndInfallible() && selection.count() > fullBatchThreshold * selection.rows())) {
            return new Evaluated(e.evaluate(ctx), false);
        }
        if (selection.isNone()) {
            return new Evaluated(new ColumnarValue.Scalar(ScalarValue.nullOf(e.dataType())), true);
        }
        try (EvalContext selected = ctx.select(selection)) {
            ColumnarValue v = evaluateSelected(e, selected, selection);
            if (v instanceof ColumnarValue.Array a && !a.owned()) {
                // A column of the selection: it is freed with the selection, so keep a copy.
                try (v) {
                    return new Evaluated(Kernels.filter(v, Selection.all(selection.count()), ctx.allocator()), true);
                }
            }
            return new Evaluated(v, true);
        }
    }

    /** A value and whether it is compact (one row per selected row) or aligned with the batch. */
    record Evaluated(ColumnarValue value, boolean compact) {}
}
