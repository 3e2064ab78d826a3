package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;

import java.util.List;
import java.util.function.DoubleBinaryOperator;

/**
 * A Float64 function of one or two Float64 arguments (others are cast by the planner),
 * written as one loop over the batch through {@link ArrayFunctions}.
 */
abstract class DoubleFunction implements ScalarFunction {
    private final int arity;
    private final Signature signature;

    DoubleFunction(int arity, String... parameterNames) {
        this.arity = arity;
        this.signature = Signature.uniform(arity, List.of(DataType.FLOAT64), Volatility.IMMUTABLE).withParameterNames(parameterNames);
    }

    /** The value for one row; the second argument is 0 for unary functions. */
    abstract double apply(double a, double b);

    @Override
    public Signature signature() {
        return signature;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.FLOAT64;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return ArrayFunctions.invoke(call, (arrays, c) -> loop(arrays, c, this::apply));
    }

    private FieldVector loop(List<FieldVector> arrays, ScalarFunctionArgs call, DoubleBinaryOperator f) {
        Float8Vector a = (Float8Vector) arrays.get(0);
        Float8Vector b = arity > 1 ? (Float8Vector) arrays.get(1) : null;
        int rows = a.getValueCount();
        Float8Vector out = new Float8Vector(name(), call.config().allocator());
        try {
            out.allocateNew(rows);
            for (int i = 0; i < rows; i++) {
                if (a.isNull(i) || (b != null && b.isNull(i))) {
                    out.setNull(i);
                } else {
                    out.set(i, f.applyAsDouble(a.get(i), b == null ? 0 : b.get(i)));
                }
            }
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }
}
