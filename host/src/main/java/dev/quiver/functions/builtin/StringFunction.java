package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;

import java.nio.charset.StandardCharsets;

import java.util.function.Function;

/** A function of one string, row by row, written through {@link ArrayFunctions}. */
abstract class StringFunction implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.string(1, Volatility.IMMUTABLE).withParameterNames("s");

    /** The result for one non-null string, of {@link #returnType}. */
    abstract Object apply(String s);

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        DataType in = DataType.fromField(call.argFields().getFirst());
        DataType out = DataType.fromField(call.returnField());
        return ArrayFunctions.invoke(call, (arrays, c) -> map(arrays.getFirst(), in, out, this::apply, c));
    }

    private static FieldVector map(FieldVector v, DataType in, DataType out, Function<String, Object> f, ScalarFunctionArgs call) {
        int rows = v.getValueCount();
        FieldVector r = Values.allocate(out, "result", rows, call.config().allocator());
        try {
            for (int i = 0; i < rows; i++) {
                if (v.isNull(i)) {
                    Values.setNull(r, i);
                    continue;
                }
                Object result = f.apply(new String(bytes(v, i), StandardCharsets.UTF_8));
                switch (r) {
                    case VarCharVector s -> s.setSafe(i, ((String) result).getBytes(StandardCharsets.UTF_8));
                    case LargeVarCharVector s -> s.setSafe(i, ((String) result).getBytes(StandardCharsets.UTF_8));
                    case BigIntVector l -> l.set(i, (Long) result);
                    default -> Values.set(r, i, new ScalarValue(out, result));
                }
            }
            r.setValueCount(rows);
            return r;
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    private static byte[] bytes(FieldVector v, int i) {
        return v instanceof LargeVarCharVector l ? l.get(i) : ((VarCharVector) v).get(i);
    }
}
