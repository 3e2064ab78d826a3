package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/** {@code IS NULL} / {@code IS NOT NULL}: never null itself. */
public record IsNullExpr(PhysicalExpr input, boolean negated) implements PhysicalExpr {
    @Override
    public DataType dataType() {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        try (ColumnarValue v = input.evaluate(ctx)) {
            return Kernels.isNull(v, negated, ctx.rows(), ctx.allocator());
        }
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
        return negated ? "IS NOT NULL" : "IS NULL";
    }
}
