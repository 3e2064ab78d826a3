package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * {@code array_length(list)} (alias {@code list_length}): the number of elements of a list as
 * Int64, NULL elements counted; NULL for a NULL list. As DuckDB's {@code array_length} and
 * {@code len} of a list.
 */
final class ArrayLength implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    @Override
    public String name() {
        return "array_length";
    }

    @Override
    public List<String> aliases() {
        return List.of("list_length");
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        return listArgument(name(), argTypes);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.INT64;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return lengths(call);
    }

    @Override
    public String description() {
        return "The number of elements of a list (Int64).";
    }

    static List<DataType> listArgument(String name, List<DataType> argTypes) {
        if (argTypes.size() != 1 || ListArgument.elementOf(argTypes.getFirst()) == null) {
            throw new PlanningException(name + " takes one list, got " + argTypes);
        }
        return List.of(argTypes.getFirst().valueType());
    }

    /** The lengths of the lists of the call's one argument, NULL for NULL lists. */
    static ColumnarValue lengths(ScalarFunctionArgs call) {
        if (call.arg(0) instanceof ColumnarValue.Scalar s) {
            return ColumnarValue.scalar(
                    DataType.INT64,
                    s.isNull() ? null : (long) ((List<?>) s.value().value()).size());
        }
        BufferAllocator allocator = call.config().allocator();
        ListVector lists = (ListVector) ((ColumnarValue.Array) call.arg(0)).vector();
        int rows = call.numberRows();
        BigIntVector out = new BigIntVector(call.returnField().getName(), allocator);
        try {
            out.allocateNew(Math.max(rows, 1));
            for (int r = 0; r < rows; r++) {
                if (lists.isNull(r)) {
                    out.setNull(r);
                } else {
                    out.set(r, lists.getElementEndIndex(r) - lists.getElementStartIndex(r));
                }
            }
            out.setValueCount(rows);
            return new ColumnarValue.Array(out);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }
}
