package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * An argument of the list functions read row by row: an array, or a scalar held as a one-row
 * vector read at row 0 for every row (never broadcast).
 */
record ListArgument(FieldVector vector, boolean constant, boolean owned) implements AutoCloseable {

    static ListArgument of(ColumnarValue v, BufferAllocator allocator) {
        return switch (v) {
            case ColumnarValue.Array a -> new ListArgument(a.vector(), false, false);
            case ColumnarValue.Scalar s ->
                new ListArgument(Values.broadcast(s.value(), "value", 1, allocator), true, true);
        };
    }

    /** The row of the vector that batch row {@code row} reads. */
    int row(int row) {
        return constant ? 0 : row;
    }

    boolean isNull(int row) {
        return vector.isNull(row(row));
    }

    /** Rows of the result: one when every argument is a scalar. */
    static int rows(List<ColumnarValue> args, int numberRows) {
        return args.stream().allMatch(a -> a instanceof ColumnarValue.Scalar) ? 1 : numberRows;
    }

    /**
     * The element type of argument 1 of {@code function(list, second)}, checking that there are two arguments and the
     * first is a list.
     *
     * @param second what the second argument is, for the message: {@code "a value"}, {@code "an index"}
     */
    static DataType elementOfFirst(String function, String second, List<DataType> argTypes) {
        if (argTypes.size() != 2) {
            throw new PlanningException(
                    function + " takes a list and " + second + ", got " + argTypes.size() + " arguments");
        }
        DataType element = elementOf(argTypes.get(0));
        if (element == null) {
            throw new PlanningException("argument 1 of " + function + " must be a list, got a " + argTypes.get(0));
        }
        return element;
    }

    /** The element type of a list type, or null when {@code t} is not a list. */
    static DataType elementOf(DataType t) {
        return t.valueType() instanceof DataType.ListType l ? l.element() : null;
    }

    @Override
    public void close() {
        if (owned) {
            vector.close();
        }
    }
}
