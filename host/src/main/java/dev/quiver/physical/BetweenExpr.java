package dev.quiver.physical;

import dev.quiver.expr.Operator;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;

/**
 * {@code input [NOT] BETWEEN low AND high}: {@code low <= input AND input <= high}, with the
 * input evaluated once (so a volatile input is not duplicated).
 */
public record BetweenExpr(PhysicalExpr input, PhysicalExpr low, PhysicalExpr high, boolean negated) implements PhysicalExpr {
    @Override
    public DataType dataType() {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        int rows = ctx.rows();
        var alloc = ctx.allocator();
        try (ColumnarValue v = input.evaluate(ctx); ColumnarValue lo = low.evaluate(ctx); ColumnarValue hi = high.evaluate(ctx);
             ColumnarValue ge = Kernels.compare(Operator.GT_EQ, v, lo, rows, alloc);
             ColumnarValue le = Kernels.compare(Operator.LT_EQ, v, hi, rows, alloc)) {
            if (!negated) {
                return Kernels.and(ge, le, rows, alloc);
            }
            try (ColumnarValue both = Kernels.and(ge, le, rows, alloc)) {
                return Kernels.not(both, rows, alloc);
            }
        }
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
