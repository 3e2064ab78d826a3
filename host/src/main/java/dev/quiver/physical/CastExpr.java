package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * A cast the planner inserted or the user wrote. {@code safe} (TRY_CAST) turns values that
 * do not convert into NULL; otherwise they fail the batch with a message naming the value.
 */
public record CastExpr(PhysicalExpr input, DataType dataType, boolean safe) implements PhysicalExpr {
    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        try (ColumnarValue v = input.evaluate(ctx)) {
            return Kernels.cast(v, dataType, safe, ctx.rows(), ctx.allocator());
        }
    }

    /** Widening numeric casts cannot fail: an integer to a float or a wider integer, Float32 to Float64. */
    @Override
    public boolean isCheapAndInfallible() {
        if (!input.isCheapAndInfallible()) {
            return false;
        }
        DataType from = input.dataType();
        return switch (dataType) {
            case DataType.FloatingPoint to ->
                from instanceof DataType.Int
                        || (from instanceof DataType.FloatingPoint f && f.bitWidth() <= to.bitWidth());
            case DataType.Int to
            when from instanceof DataType.Int f ->
                f.bitWidth() < to.bitWidth() && (to.signed() || !f.signed()) || f.equals(to);
            default -> false;
        };
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(input);
    }

    @Override
    public String describe() {
        return (safe ? "TRY_CAST AS " : "CAST AS ") + SqlTypes.sqlName(dataType);
    }
}
