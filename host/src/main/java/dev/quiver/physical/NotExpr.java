package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/** Boolean NOT (NULL stays NULL). */
public record NotExpr(PhysicalExpr input) implements PhysicalExpr {
    @Override
    public DataType dataType() {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        // The input's own result is flipped in place when it is a fresh Boolean array.
        return Kernels.notConsuming(input.evaluate(ctx), ctx.rows(), ctx.allocator());
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
        return "NOT";
    }
}
