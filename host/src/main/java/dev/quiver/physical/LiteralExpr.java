package dev.quiver.physical;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.List;

/** A literal, the same scalar for every row. */
public record LiteralExpr(ScalarValue value) implements PhysicalExpr {
    @Override
    public DataType dataType() {
        return value.type();
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        return new ColumnarValue.Scalar(value);
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
        return "literal " + value.toSql();
    }
}
