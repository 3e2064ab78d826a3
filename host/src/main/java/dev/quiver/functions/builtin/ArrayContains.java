package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.types.TypeCoercion;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * {@code array_contains(list, value)} (aliases {@code list_contains}, {@code array_has}):
 * whether {@code value} is an element of {@code list}, as DuckDB's {@code list_contains}: NULL
 * when the list or the value is NULL; otherwise true when a non-NULL element equals the value,
 * else false, NULL elements notwithstanding. Elements and value compare in their comparison
 * type (so {@code [1, 2]} does not contain 2.5); floats compare as SQL comparisons do here:
 * -0.0 = 0.0 and NaN = NaN.
 */
final class ArrayContains implements ScalarFunction {
    private static final Signature SIGNATURE =
            Signature.userDefined(Volatility.IMMUTABLE).withParameterNames("list", "value");

    @Override
    public String name() {
        return "array_contains";
    }

    @Override
    public List<String> aliases() {
        return List.of("list_contains", "array_has", "list_has");
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        DataType element = ListArgument.elementOfFirst(name(), "a value", argTypes);
        DataType value = argTypes.get(1).valueType();
        DataType t = TypeCoercion.comparisonType(element, value)
                .orElseThrow(() -> new PlanningException(
                        "array_contains cannot compare the elements of a " + argTypes.get(0) + " with a " + value));
        return List.of(argTypes.get(0).valueType(), t);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.BOOLEAN;
    }

    @Override
    public String description() {
        return "Whether a list has a value as an element (NULL for a NULL list or value).";
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        BufferAllocator allocator = call.config().allocator();
        int rows = ListArgument.rows(call.args(), call.numberRows());
        DataType valueType = call.argFields().get(1) == null
                ? null
                : DataType.fromField(call.argFields().get(1));
        BitVector out = new BitVector(call.returnField().getName(), allocator);
        try (ListArgument list = ListArgument.of(call.arg(0), allocator);
                ListArgument value = ListArgument.of(call.arg(1), allocator)) {
            out.allocateNew(Math.max(rows, 1));
            ListVector lists = (ListVector) list.vector();
            FieldVector child = lists.getDataVector();
            DataType element = ListArgument.elementOf(DataType.fromField(lists.getField()));
            ColumnarValue.Array cast = element.equals(valueType)
                    ? null
                    : (ColumnarValue.Array) Kernels.cast(
                            ColumnarValue.Array.borrowed(child), valueType, false, child.getValueCount(), allocator);
            try {
                FieldVector elements = cast == null ? child : cast.vector();
                FieldVector values = value.vector();
                Equality eq = equality(elements);
                for (int r = 0; r < rows; r++) {
                    int lr = list.row(r);
                    int vr = value.row(r);
                    if (lists.isNull(lr) || values.isNull(vr)) {
                        continue;
                    }
                    boolean found = false;
                    for (int k = lists.getElementStartIndex(lr), end = lists.getElementEndIndex(lr);
                            k < end && !found;
                            k++) {
                        found = !elements.isNull(k) && eq.test(elements, k, values, vr);
                    }
                    BitVectorHelper.setBit(out.getValidityBuffer(), r);
                    if (found) {
                        BitVectorHelper.setBit(out.getDataBuffer(), r);
                    }
                }
            } finally {
                if (cast != null) {
                    cast.close();
                }
            }
            out.setValueCount(rows);
            return new ColumnarValue.Array(out);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /** Whether element {@code i} of {@code a} equals value {@code j} of {@code b} (both non-null, of one type). */
    @FunctionalInterface
    interface Equality {
        boolean test(FieldVector a, int i, FieldVector b, int j);
    }

    /** The equality of values of {@code v}'s type, chosen once per batch. */
    static Equality equality(FieldVector v) {
        return switch (v) {
            case Float4Vector _ ->
                (a, i, b, j) -> {
                    float x = ((Float4Vector) a).get(i);
                    float y = ((Float4Vector) b).get(j);
                    return x == y || (Float.isNaN(x) && Float.isNaN(y));
                };
            case Float8Vector _ ->
                (a, i, b, j) -> {
                    double x = ((Float8Vector) a).get(i);
                    double y = ((Float8Vector) b).get(j);
                    return x == y || (Double.isNaN(x) && Double.isNaN(y));
                };
            case BitVector _ -> (a, i, b, j) -> ((BitVector) a).get(i) == ((BitVector) b).get(j);
            case BaseFixedWidthVector fixed -> {
                int w = fixed.getTypeWidth();
                yield (a, i, b, j) -> ByteFunctionHelpers.equal(
                                a.getDataBuffer(),
                                (long) i * w,
                                (long) (i + 1) * w,
                                b.getDataBuffer(),
                                (long) j * w,
                                (long) (j + 1) * w)
                        == 1;
            }
            case BaseVariableWidthVector _ ->
                (a, i, b, j) -> {
                    BaseVariableWidthVector x = (BaseVariableWidthVector) a;
                    BaseVariableWidthVector y = (BaseVariableWidthVector) b;
                    return ByteFunctionHelpers.equal(
                                    x.getDataBuffer(),
                                    x.getStartOffset(i),
                                    x.getStartOffset(i + 1),
                                    y.getDataBuffer(),
                                    y.getStartOffset(j),
                                    y.getStartOffset(j + 1))
                            == 1;
                };
            case BaseLargeVariableWidthVector _ ->
                (a, i, b, j) -> {
                    BaseLargeVariableWidthVector x = (BaseLargeVariableWidthVector) a;
                    BaseLargeVariableWidthVector y = (BaseLargeVariableWidthVector) b;
                    return ByteFunctionHelpers.equal(
                                    x.getDataBuffer(),
                                    x.getOffsetBuffer().getLong((long) i * 8),
                                    x.getOffsetBuffer().getLong((long) (i + 1) * 8),
                                    y.getDataBuffer(),
                                    y.getOffsetBuffer().getLong((long) j * 8),
                                    y.getOffsetBuffer().getLong((long) (j + 1) * 8))
                            == 1;
                };
            // Lists, structs: by value, slowly.
            default -> (a, i, b, j) -> Values.get(a, i).equals(Values.get(b, j));
        };
    }
}
