package dev.quiver.physical;

import dev.quiver.expr.Operator;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;
import java.util.Objects;

/**
 * {@code left op right} with operand types fixed at planning: arithmetic, comparison, or
 * Kleene AND/OR. Both sides are evaluated once per batch.
 */
public record BinaryExpr(PhysicalExpr left, Operator op, PhysicalExpr right, DataType dataType) implements PhysicalExpr {
    public BinaryExpr {
        Objects.requireNonNull(left, "left is null");
        Objects.requireNonNull(op, "op is null");
        Objects.requireNonNull(right, "right is null");
        Objects.requireNonNull(dataType, "dataType is null");
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        try (ColumnarValue l = left.evaluate(ctx); ColumnarValue r = right.evaluate(ctx)) {
            if (op.isArithmetic()) {
                return Kernels.arithmetic(op, l, r, dataType, ctx.rows(), ctx.allocator());
            }
            if (op == Operator.AND) {
                return Kernels.and(l, r, ctx.rows(), ctx.allocator());
            }
            if (op == Operator.OR) {
                return Kernels.or(l, r, ctx.rows(), ctx.allocator());
            }
            return Kernels.compare(op, l, r, ctx.rows(), ctx.allocator());
        }
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(left, right);
    }

    @Override
    public String describe() {
        return op.sql();
    }
}
