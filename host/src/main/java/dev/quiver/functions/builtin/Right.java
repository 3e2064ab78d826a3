package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code right(s, n)}: the last {@code n} characters; a negative {@code n} drops the first
 * {@code -n}. NULL when an argument is NULL. docs/strings.md
 */
final class Right implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(List.of(StringShape.TEXT, StringShape.INTEGER))
            .withParameterNames("s", "n");

    @Override
    public String name() {
        return "right";
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
                call,
                (args, rows, allocator) -> StringShapeKernels.right(args.getFirst(), args.get(1), rows, allocator));
    }

    @Override
    public String description() {
        return "The last n characters (negative n: all but the first -n).";
    }
}
