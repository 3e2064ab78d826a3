package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;

/**
 * {@code length(s)} (also {@code char_length}, {@code character_length}): the number of characters
 * (Unicode code points, not bytes or grapheme clusters) as Int64; NULL for NULL. An all-ASCII
 * batch is measured from its offsets alone. docs/strings.md
 */
final class Length implements ScalarFunction {
    private static final Signature SIGNATURE = StringShape.signature(List.of(StringShape.TEXT)).withParameterNames("s");

    @Override
    public String name() {
        return "length";
    }

    @Override
    public List<String> aliases() {
        return List.of("char_length", "character_length");
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
        return StringShape.invoke(call, (args, rows, allocator) -> StringShapeKernels.charLength(args.getFirst(), allocator));
    }

    @Override
    public String description() {
        return "The number of characters (Unicode code points) as Int64 (alias char_length, character_length).";
    }
}
