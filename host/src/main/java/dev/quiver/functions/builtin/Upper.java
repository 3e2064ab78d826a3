package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code upper(s)}: the string in upper case, code point by code point with Unicode's simple
 * case mapping ({@link Character#toUpperCase(int)}, locale-independent), and {@code ß} to
 * {@code ẞ} as DuckDB does; NULL for NULL. Of the type of {@code s}. An all-ASCII batch is
 * mapped eight bytes per step. docs/strings.md
 */
final class Upper implements ScalarFunction {
    private static final Signature SIGNATURE =
            StringShape.signature(List.of(StringShape.TEXT)).withParameterNames("s");

    @Override
    public String name() {
        return "upper";
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
                call, (args, rows, allocator) -> StringShapeKernels.upper(args.getFirst(), allocator));
    }

    @Override
    public String description() {
        return "The string in upper case (Unicode simple case mapping per code point, locale-independent).";
    }
}
