package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.Coercion;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignatureClass;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code abs} of a decimal: a decimal of the same type. The numbers (Int32, Int64, Float32,
 * Float64) are the RowFn {@link MathFunctions#ABS}; the registered {@code abs} chooses by type.
 */
final class DecimalAbs implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.coercible(
                    List.of(Coercion.exact(TypeSignatureClass.Family.DECIMAL)), Volatility.IMMUTABLE)
            .withParameterNames("x");

    @Override
    public String name() {
        return "abs";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return argTypes.getFirst().valueType();
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        DataType t = DataType.fromField(call.argFields().getFirst());
        return ArrayFunctions.invoke(call, (arrays, c) -> {
            FieldVector x = arrays.getFirst();
            int rows = x.getValueCount();
            FieldVector out = Values.allocate(t, "abs", rows, c.config().allocator());
            try {
                for (int i = 0; i < rows; i++) {
                    ScalarValue v = Values.get(x, i, t);
                    Values.set(out, i, v.isNull() ? v : new ScalarValue(t, ((BigDecimal) v.value()).abs()));
                }
                out.setValueCount(rows);
                return out;
            } catch (RuntimeException e) {
                out.close();
                throw e;
            }
        });
    }

    @Override
    public String description() {
        return "Absolute value of a decimal, of the same type.";
    }
}
