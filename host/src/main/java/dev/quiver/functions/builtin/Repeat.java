package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code repeat(s, n)}: {@code s} written {@code n} times; {@code n <= 0} gives ''. NULL when an
 * argument is NULL. Raises where the result would pass 2 GiB in a Utf8 column (a LargeUtf8
 * {@code s} gives a LargeUtf8 result). docs/strings.md
 */
final class Repeat implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(List.of(StringShape.TEXT, StringShape.INTEGER))
            .withParameterNames("s", "n");

    @Override
    public String name() {
        return "repeat";
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
                (args, rows, allocator) -> StringShapeKernels.repeat(args.getFirst(), args.get(1), rows, allocator));
    }

    @Override
    public String description() {
        return "The string repeated n times.";
    }
}
