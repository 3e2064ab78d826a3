package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;

/**
 * What {@code length}, {@code octet_length} and {@code bit_length} share: one text argument, kept as it is, and an
 * Int64 per row from one of {@code StringShapeKernels}' length kernels (characters, or bytes times the bits per
 * byte counted: 1 or 8); NULL for NULL. Each function is a subclass naming its kernel. docs/strings.md
 */
abstract class StringLength extends DeclaredFunction {
    private static final Signature SIGNATURE =
            StringShape.signature(List.of(StringShape.TEXT)).withParameterNames("s");

    /** The length of each row of {@code strings}, as a new vector. */
    @FunctionalInterface
    interface Kernel {
        BigIntVector lengths(FieldVector strings, BufferAllocator allocator);
    }

    private final Kernel kernel;

    StringLength(String name, List<String> aliases, String description, Kernel kernel) {
        super(name, aliases, SIGNATURE, description);
        this.kernel = kernel;
    }

    @Override
    public final DataType returnType(List<DataType> argTypes) {
        return DataType.INT64;
    }

    @Override
    public final ColumnarValue invoke(ScalarFunctionArgs call) {
        return StringShape.invoke(call, (args, rows, allocator) -> kernel.lengths(args.getFirst(), allocator));
    }
}
