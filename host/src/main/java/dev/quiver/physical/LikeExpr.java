package dev.quiver.physical;

import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;

/** {@code [NOT] LIKE | ILIKE} over strings. */
public record LikeExpr(PhysicalExpr input, PhysicalExpr pattern, Character escape, boolean negated, boolean caseInsensitive)
        implements PhysicalExpr {
    @Override
    public DataType dataType() {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        try (ColumnarValue v = input.evaluate(ctx); ColumnarValue p = pattern.evaluate(ctx)) {
            return Kernels.like(v, p, escape, negated, caseInsensitive, ctx.rows(), ctx.allocator());
        }
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(input, pattern);
    }

    @Override
    public String describe() {
        return (negated ? "NOT " : "") + (caseInsensitive ? "ILIKE" : "LIKE") + (escape == null ? "" : " ESCAPE '" + escape + "'");
    }
}
