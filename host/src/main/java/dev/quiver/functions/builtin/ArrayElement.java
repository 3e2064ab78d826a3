package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.Kernels;
import dev.quiver.strings.Utf8Input;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * {@code array_element(list, i)} (aliases {@code list_extract}, {@code list_element},
 * {@code array_extract}; SQL {@code list[i]}): element {@code i} of a list, counted from 1, as
 * DuckDB does. A negative {@code i} counts from the end ({@code -1} is the last element).
 * NULL when the list or {@code i} is NULL, when {@code i} is 0 or beyond either end, and when
 * the element itself is NULL. {@code i} is cast to Int64.
 *
 * <p>One pass computes the element's position in the list's child per row; one gather
 * ({@code Kernels.take}) copies those elements.
 */
final class ArrayElement implements ScalarFunction {
    private static final Signature SIGNATURE =
            Signature.userDefined(Volatility.IMMUTABLE).withParameterNames("list", "index");

    @Override
    public String name() {
        return "array_element";
    }

    @Override
    public List<String> aliases() {
        return List.of("list_extract", "list_element", "array_extract");
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        ListArgument.elementOfFirst(name(), "an index", argTypes);
        DataType i = argTypes.get(1).valueType();
        if (!i.isInteger() && !(i instanceof DataType.Null)) {
            throw new PlanningException("argument 2 of array_element (the index) must be an integer, got a " + i);
        }
        return List.of(argTypes.get(0).valueType(), DataType.INT64);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return ListArgument.elementOf(argTypes.get(0));
    }

    @Override
    public String description() {
        return "Element i of a list, from 1 (negative: from the end); NULL out of range.";
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        BufferAllocator allocator = call.config().allocator();
        DataType type = DataType.fromField(call.returnField());
        int rows = ListArgument.rows(call.args(), call.numberRows());
        try (ListArgument list = ListArgument.of(call.arg(0), allocator);
                ListArgument index = ListArgument.of(call.arg(1), allocator)) {
            ListVector lists = (ListVector) list.vector();
            BigIntVector indices = (BigIntVector) index.vector();
            FieldVector child = lists.getDataVector();
            int[] take = new int[rows];
            boolean[] isNull = new boolean[rows];
            boolean anyValue = false;
            for (int r = 0; r < rows; r++) {
                int lr = list.row(r);
                int ir = index.row(r);
                int position = -1;
                if (!lists.isNull(lr) && !indices.isNull(ir)) {
                    position = position(lists.getElementStartIndex(lr), lists.getElementEndIndex(lr), indices.get(ir));
                }
                isNull[r] = position < 0;
                take[r] = Math.max(position, 0);
                anyValue |= position >= 0;
            }
            FieldVector out;
            if (!anyValue) {
                out = Values.allocate(type, call.returnField().getName(), rows, allocator);
                out.setValueCount(rows);
                return new ColumnarValue.Array(out);
            }
            out = ((ColumnarValue.Array) Kernels.take(ColumnarValue.Array.borrowed(child), take, allocator)).vector();
            for (int r = 0; r < rows; r++) {
                if (isNull[r]) {
                    BitVectorHelper.unsetBit(out.getValidityBuffer(), r);
                }
            }
            // After the nulls: a string list element is checked as a batch column is (rows out of range read nothing).
            return new ColumnarValue.Array(Utf8Input.checked(out, "a list element"));
        }
    }

    /** The child position of element {@code i} (1-based, negative from the end) of the list at [start, end), or -1. */
    static int position(int start, int end, long i) {
        int length = end - start;
        if (i > 0 && i <= length) {
            return start + (int) (i - 1);
        }
        if (i < 0 && i >= -(long) length) {
            return end + (int) i;
        }
        return -1;
    }
}
