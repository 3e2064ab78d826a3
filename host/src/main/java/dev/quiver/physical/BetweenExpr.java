package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code input [NOT] BETWEEN low AND high}: {@code low <= input AND input <= high}, with the
 * input evaluated once (so a volatile input is not duplicated). Literal bounds over a
 * fixed-width input take one pass with one comparison per row ({@link Kernels#between}).
 */
public record BetweenExpr(PhysicalExpr input, PhysicalExpr low, PhysicalExpr high, boolean negated)
        implements PhysicalExpr {
    @Override
    public DataType dataType() {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        try (ColumnarValue v = input.evaluate(ctx);
                ColumnarValue lo = low.evaluate(ctx);
                ColumnarValue hi = high.evaluate(ctx)) {
            return Kernels.between(v, lo, hi, negated, ctx.rows(), ctx.allocator());
        }
    }

    /** Two comparisons and an AND: cheap and infallible over cheap, infallible operands. */
    @Override
    public boolean isCheapAndInfallible() {
        return input.isCheapAndInfallible() && low.isCheapAndInfallible() && high.isCheapAndInfallible();
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(input, low, high);
    }

    @Override
    public String describe() {
        return negated ? "NOT BETWEEN" : "BETWEEN";
    }
}
