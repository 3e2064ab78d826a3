package dev.quiver.physical;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.Objects;

/**
 * A subtree the expression uses more than once (common-subexpression elimination, as
 * DataFusion's planner does): computed once per batch and read wherever it stands. Every
 * reference to it is this node with the same {@code id}; the first to run computes
 * {@code input} and keeps the value in the batch's {@link EvalContext}, the others read it.
 *
 * <p>Laziness is kept: a reference inside a CASE branch or the right side of AND/OR runs on the
 * rows that reach it, as the unshared subtree would. Where the batch has the value already (an
 * earlier reference ran on every row) those rows are gathered from it; where not, it is
 * computed on those rows alone, so a shared subtree never runs on a row it would not have run
 * on, and never raises where it would not have. The planner shares deterministic subtrees only.
 *
 * @param id    the subtree's number in its plan (EXPLAIN's {@code shared #id})
 * @param input the subtree
 */
public record SharedExpr(int id, PhysicalExpr input) implements PhysicalExpr {
    public SharedExpr {
        Objects.requireNonNull(input, "input is null");
    }

    @Override
    public DataType dataType() {
        return input.dataType();
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        return ctx.shared(id, () -> input.evaluate(ctx));
    }

    @Override
    public boolean isCheapAndInfallible() {
        return input.isCheapAndInfallible();
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(input);
    }

    @Override
    public String describe() {
        return "shared #" + id + " (computed once per batch, read wherever it stands)";
    }
}
