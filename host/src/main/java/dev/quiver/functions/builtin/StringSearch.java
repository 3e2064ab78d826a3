package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * A search of a string for a second string, a Boolean test ({@code contains}, {@code starts_with},
 * {@code ends_with}) or a position ({@code strpos}): NULL when either argument is NULL; the second
 * argument, usually a literal, reaches the kernel as one row
 * ({@link ArrayFunctions.Hint#ACCEPTS_SINGULAR}) and is prepared once per batch.
 */
abstract class StringSearch extends DeclaredFunction {
    /** The kernel: strings and needles (one row, or one per string) in, a vector of the result type out. */
    @FunctionalInterface
    interface Kernel {
        FieldVector apply(FieldVector strings, FieldVector needles, BufferAllocator allocator);
    }

    private final DataType result;
    private final Kernel kernel;

    /** @param result Boolean for a test, Int64 for a position */
    StringSearch(
            String name, List<String> aliases, String needleName, DataType result, Kernel kernel, String description) {
        super(
                name,
                aliases,
                Signature.string(2, Volatility.IMMUTABLE).withParameterNames("s", needleName),
                description);
        this.result = result;
        this.kernel = kernel;
    }

    @Override
    public final DataType returnType(List<DataType> argTypes) {
        return result;
    }

    @Override
    public final ColumnarValue invoke(ScalarFunctionArgs call) {
        return ArrayFunctions.invoke(
                call,
                (arrays, c) ->
                        kernel.apply(arrays.get(0), arrays.get(1), c.config().allocator()),
                ArrayFunctions.Hint.PAD,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }
}
