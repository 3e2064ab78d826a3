package dev.quiver.physical;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/** Column {@code index} of the batch (borrowed, not copied), as resolved at planning. */
public record ColumnExpr(int index, String name, DataType dataType) implements PhysicalExpr {
    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        return ctx.column(index);
    }

    @Override
    public boolean isCheapAndInfallible() {
        return true;
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of();
    }

    @Override
    public String describe() {
        return "#" + index + " " + Names.quote(name);
    }
}
