package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code left(s, n)}: the first {@code n} characters; a negative {@code n} drops the last
 * {@code -n}. NULL when an argument is NULL. docs/strings.md
 */
final class Left implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(List.of(StringShape.TEXT, StringShape.INTEGER))
            .withParameterNames("s", "n");

    @Override
    public String name() {
        return "left";
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
                (args, rows, allocator) -> StringShapeKernels.left(args.getFirst(), args.get(1), rows, allocator));
    }

    @Override
    public String description() {
        return "The first n characters (negative n: all but the last -n).";
    }
}
