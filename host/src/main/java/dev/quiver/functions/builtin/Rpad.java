package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code rpad(s, n[, fill])}: {@code s} padded to {@code n} characters with {@code fill} (a space
 * when absent) repeated after it; a longer {@code s} is cut to its first {@code n} characters,
 * {@code n <= 0} gives ''. NULL when an argument is NULL. Raises where a row needs padding and
 * {@code fill} is empty (as DuckDB), or where the result would pass 2 GiB in a Utf8 column.
 * docs/strings.md
 */
final class Rpad implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(
            List.of(StringShape.TEXT, StringShape.INTEGER),
            List.of(StringShape.TEXT, StringShape.INTEGER, StringShape.TEXT));

    @Override
    public String name() {
        return "rpad";
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
                (args, rows, allocator) -> StringShapeKernels.pad(
                        args.getFirst(), args.get(1), args.size() > 2 ? args.get(2) : null, false, rows, allocator));
    }

    @Override
    public String description() {
        return "Pads to n characters with a fill string (default: space) after the string; cuts a longer one.";
    }
}
