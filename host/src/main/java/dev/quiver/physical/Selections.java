package dev.quiver.physical;

import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;

import java.util.Objects;

/** Evaluating a node on some rows of a batch: filter the columns it reads, evaluate, scatter back. */
final class Selections {
    private Selections() {
    }

    static ColumnarValue evaluate(PhysicalExpr e, EvalContext ctx, Selection selection) {
        Objects.requireNonNull(selection, "selection is null");
        if (selection.rows() != ctx.rows()) {
            throw new IllegalArgumentException("a selection of " + selection.rows() + " rows on a batch of " + ctx.rows());
        }
        if (selection.isAll()) {
            return e.evaluate(ctx);
        }
        if (selection.isNone()) {
            return new ColumnarValue.Scalar(ScalarValue.nullOf(e.dataType()));
        }
        throw new UnsupportedOperationException("not yet");
    }
}
