package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.Coercion;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.TypeSignatureClass;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import org.apache.arrow.vector.FieldVector;

import java.math.BigDecimal;
import java.util.List;

/**
 * {@code abs}: absolute value. Int32, Int64, Float32 and Float64 run in the fused kernels
 * (integers wrap: abs of the minimum is the minimum); a decimal stays a decimal of the same type.
 */
final class Abs extends KernelFunction {
    private static final Signature SIGNATURE = Signature.oneOf(List.of(
            new TypeSignature.Exact(List.of(DataType.INT32)),
            new TypeSignature.Exact(List.of(DataType.INT64)),
            new TypeSignature.Exact(List.of(DataType.FLOAT32)),
            new TypeSignature.Exact(List.of(DataType.FLOAT64)),
            new TypeSignature.Coercible(List.of(Coercion.exact(TypeSignatureClass.Family.DECIMAL)))), Volatility.IMMUTABLE)
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
    IrNode body(List<IrNode> a) {
        return Ir.abs(a.get(0));
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        DataType t = argTypes.getFirst().valueType();
        return t instanceof DataType.Decimal ? t : super.returnType(argTypes);
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        DataType t = DataType.fromField(call.argFields().getFirst());
        if (!(t instanceof DataType.Decimal)) {
            return super.invoke(call);
        }
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
        return "Absolute value; integers wrap (abs of the minimum is the minimum); decimals stay decimals.";
    }
}
