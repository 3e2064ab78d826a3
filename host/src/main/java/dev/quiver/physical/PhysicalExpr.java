package dev.quiver.physical;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

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

    List<PhysicalExpr> children();

    /** This node alone, as one line of EXPLAIN (children are printed below it). */
    String describe();

    /** The tree as indented text, one node per line. */
    default String explainTree() {
        StringBuilder sb = new StringBuilder();
        explain(this, 0, sb);
        return sb.toString();
    }

    private static void explain(PhysicalExpr e, int depth, StringBuilder sb) {
        sb.append("  ".repeat(depth)).append(e.describe()).append(" -> ").append(e.dataType()).append('\n');
        for (PhysicalExpr c : e.children()) {
            explain(c, depth + 1, sb);
        }
    }
}
