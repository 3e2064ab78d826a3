package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;

/**
 * {@code ltrim(s[, characters])}: {@code s} without the characters of {@code characters} (a set of
 * code points; spaces when absent) at the start; NULL when an argument is NULL. Only U+0020 is a
 * space here, as in DuckDB. docs/strings.md
 */
final class Ltrim implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(List.of(StringShape.TEXT), List.of(StringShape.TEXT, StringShape.TEXT));

    @Override
    public String name() {
        return "ltrim";
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
        return StringShape.invoke(call, (args, rows, allocator) -> StringShapeKernels.trim(args.getFirst(), args.size() > 1 ? args.get(1) : null,
                StringShapeKernels.TrimSide.LEADING, rows, allocator));
    }

    @Override
    public String description() {
        return "Removes the given characters (default: spaces) from the start.";
    }
}
