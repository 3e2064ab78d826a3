package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code reverse(s)}: the characters (code points) of {@code s} in reverse order; NULL for NULL.
 * An all-ASCII batch reverses bytes. docs/strings.md
 */
final class Reverse implements ScalarFunction {
    private static final Signature SIGNATURE =
            StringShape.signature(List.of(StringShape.TEXT)).withParameterNames("s");

    @Override
    public String name() {
        return "reverse";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return StringShape.sameString(argTypes);
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return StringShape.invoke(
                call, (args, rows, allocator) -> StringShapeKernels.reverse(args.getFirst(), allocator));
    }

    @Override
    public String description() {
        return "The characters (code points) in reverse order.";
    }
}
