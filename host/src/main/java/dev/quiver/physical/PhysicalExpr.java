package dev.quiver.physical;

import dev.quiver.kernels.Selection;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * A node of the physical tree: planned once, evaluated once per batch into a whole
 * {@link ColumnarValue}. Types are fixed at planning (every cast is an explicit
 * {@link CastExpr}); nothing here coerces. Implementations are immutable and thread-safe.
 */
public interface PhysicalExpr {

    DataType dataType();

    /** Evaluates this node over one batch; the result is owned by the caller. */
    ColumnarValue evaluate(EvalContext ctx);

    /**
     * Evaluates this node on the rows of the batch that {@code selection} selects only: the other
     * rows are never computed (so a division guarded by the selection cannot fail on them). The
     * result has the batch's {@code ctx.rows()} rows, with the computed values at the selected
     * rows and NULL elsewhere; it may be a scalar only when every row is selected, or none is (then
     * it is a NULL scalar: nothing was evaluated). The full selection is {@link #evaluate}.
     * Owned by the caller.
     */
    default ColumnarValue evaluateSelection(EvalContext ctx, Selection selection) {
        return Selections.evaluate(this, ctx, selection);
    }

    /**
     * Whether evaluating this node on rows nobody needs is cheap and can never throw (a column, a
     * literal, comparisons and Boolean logic over such nodes, float arithmetic). Lazy evaluation
     * (AND/OR, CASE) runs such nodes on the whole batch rather than filtering the batch first.
     */
    default boolean isCheapAndInfallible() {
        return false;
    }

    List<PhysicalExpr> children();

    /** This node alone, as one line of EXPLAIN (children are printed below it). */
    String describe();

    /** The tree as indented text, one node per line (written with a stack of its own: the tree may be deep). */
    default String explainTree() {
        StringBuilder sb = new StringBuilder();
        Deque<PhysicalExpr> nodes = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        nodes.push(this);
        depths.push(0);
        while (!nodes.isEmpty()) {
            PhysicalExpr e = nodes.pop();
            int depth = depths.pop();
            sb.append("  ".repeat(depth))
                    .append(e.describe())
                    .append(" -> ")
                    .append(e.dataType())
                    .append('\n');
            List<PhysicalExpr> children = e.children();
            for (int i = children.size() - 1; i >= 0; i--) {
                nodes.push(children.get(i));
                depths.push(depth + 1);
            }
        }
        return sb.toString();
    }
}
