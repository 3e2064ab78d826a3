package dev.quiver.physical;

import dev.quiver.kernels.Kernels;
import dev.quiver.memory.Resources;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.ArrayList;
import java.util.List;

/** {@code input [NOT] IN (list)}; every element already has the input's type. */
public record InListExpr(PhysicalExpr input, List<PhysicalExpr> list, boolean negated) implements PhysicalExpr {
    public InListExpr {
        list = List.copyOf(list);
    }

    @Override
    public DataType dataType() {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        List<ColumnarValue> values = new ArrayList<>(list.size());
        try (ColumnarValue v = input.evaluate(ctx)) {
            for (PhysicalExpr e : list) {
                values.add(e.evaluate(ctx));
            }
            return Kernels.inList(v, values, negated, ctx.rows(), ctx.allocator());
        } finally {
            Resources.closeAll(values);
        }
    }

    @Override
    public List<PhysicalExpr> children() {
        List<PhysicalExpr> c = new ArrayList<>();
        c.add(input);
        c.addAll(list);
        return c;
    }

    @Override
    public String describe() {
        return negated ? "NOT IN (" + list.size() + " values)" : "IN (" + list.size() + " values)";
    }
}
