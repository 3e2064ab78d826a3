package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;

/**
 * {@code octet_length(s)}: the number of bytes of the UTF-8 text as Int64, from the offsets
 * alone; NULL for NULL. docs/strings.md
 */
final class OctetLength implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(List.of(StringShape.TEXT)).withParameterNames("s");

    @Override
    public String name() {
        return "octet_length";
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
        return StringShape.invoke(call, (args, rows, allocator) -> StringShapeKernels.octetLength(args.getFirst(), allocator));
    }

    @Override
    public String description() {
        return "The number of bytes (UTF-8) as Int64.";
    }
}
