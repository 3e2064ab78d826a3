package dev.quiver.physical;

import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;

/** Arithmetic negation; integers wrap ({@code -MIN == MIN}), as in the fused kernels. */
public record NegativeExpr(PhysicalExpr input) implements PhysicalExpr {
    @Override
    public DataType dataType() {
        return input.dataType();
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        try (ColumnarValue v = input.evaluate(ctx)) {
            return Kernels.negate(v, ctx.rows(), ctx.allocator());
        }
    }

    @Override
    public boolean isCheapAndInfallible() {
        return input.isCheapAndInfallible() && !(dataType() instanceof DataType.Decimal);
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(input);
    }

    @Override
    public String describe() {
        return "NEGATE";
    }
}
