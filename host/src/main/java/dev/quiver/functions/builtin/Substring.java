package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code substring(s, start[, length])} (also {@code substr}, and SQL's
 * {@code SUBSTRING(s FROM start FOR length)}): characters from the 1-based {@code start}, as
 * DuckDB: start 0 is before the first character, a negative start counts from the end, a
 * negative length takes the characters before {@code start}; positions outside the string
 * give nothing. NULL when an argument is NULL. See
 * {@link StringShapeKernels#substring} and docs/strings.md.
 */
final class Substring implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(
            List.of(StringShape.TEXT, StringShape.INTEGER),
            List.of(StringShape.TEXT, StringShape.INTEGER, StringShape.INTEGER));

    @Override
    public String name() {
        return "substring";
    }

    @Override
    public List<String> aliases() {
        return List.of("substr");
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
                (args, rows, allocator) -> StringShapeKernels.substring(
                        args.getFirst(), args.get(1), args.size() > 2 ? args.get(2) : null, rows, allocator));
    }

    @Override
    public String description() {
        return "The characters from a 1-based start, for an optional length.";
    }
}
