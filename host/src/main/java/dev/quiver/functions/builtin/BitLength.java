package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;

/**
 * {@code bit_length(s)}: eight times {@code octet_length(s)}, as Int64; NULL for NULL.
 * docs/strings.md
 */
final class BitLength implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(List.of(StringShape.TEXT)).withParameterNames("s");

    @Override
    public String name() {
        return "bit_length";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.INT64;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return StringShape.invoke(call, (args, rows, allocator) -> StringShapeKernels.bitLength(args.getFirst(), allocator));
    }

    @Override
    public String description() {
        return "The number of bits (8 per UTF-8 byte) as Int64.";
    }
}
