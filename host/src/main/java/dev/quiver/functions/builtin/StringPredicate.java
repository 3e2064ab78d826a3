package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

import java.util.List;

/**
 * A Boolean test of a string against a second string ({@code contains}, {@code starts_with},
 * {@code ends_with}): NULL when either argument is NULL; the second argument, usually a literal,
 * reaches the kernel as one row ({@link ArrayFunctions.Hint#ACCEPTS_SINGULAR}) and is prepared
 * once per batch.
 */
abstract class StringPredicate implements ScalarFunction {
    /** The kernel: strings and needles (one row, or one per string) in, a Boolean vector out. */
    @FunctionalInterface
    interface Kernel {
        FieldVector apply(FieldVector strings, FieldVector needles, BufferAllocator allocator);
    }

    private final String name;
    private final List<String> aliases;
    private final Signature signature;
    private final Kernel kernel;
    private final String description;

    StringPredicate(String name, List<String> aliases, String needleName, Kernel kernel, String description) {
        this.name = name;
        this.aliases = List.copyOf(aliases);
        this.signature = Signature.string(2, Volatility.IMMUTABLE).withParameterNames("s", needleName);
        this.kernel = kernel;
        this.description = description;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final List<String> aliases() {
        return aliases;
    }

    @Override
    public final Signature signature() {
        return signature;
    }

    @Override
    public final DataType returnType(List<DataType> argTypes) {
        return DataType.BOOLEAN;
    }

    @Override
    public final ColumnarValue invoke(ScalarFunctionArgs call) {
        return ArrayFunctions.invoke(call, (arrays, c) -> kernel.apply(arrays.get(0), arrays.get(1), c.config().allocator()),
                ArrayFunctions.Hint.PAD, ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    @Override
    public final String description() {
        return description;
    }
}
