package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.kernels.StringShapeKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * What {@code trim}, {@code ltrim} and {@code rtrim} share: {@code s} without the characters of {@code characters}
 * (a set of code points; spaces when absent) at the ends {@link StringShapeKernels.TrimSide} names; NULL when an
 * argument is NULL. Only U+0020 is a space here, as in DuckDB. Each function is a subclass naming its side.
 * docs/strings.md
 */
abstract class StringTrim extends DeclaredFunction {
    private static final Signature SIGNATURE =
            StringShape.signature(List.of(StringShape.TEXT), List.of(StringShape.TEXT, StringShape.TEXT));

    private final StringShapeKernels.TrimSide side;

    StringTrim(String name, StringShapeKernels.TrimSide side, String description) {
        super(name, List.of(), SIGNATURE, description);
        this.side = side;
    }

    @Override
    public final DataType returnType(List<DataType> argTypes) {
        return StringShape.sameString(argTypes);
    }

    @Override
    public final ColumnarValue invoke(ScalarFunctionArgs call) {
        return StringShape.invoke(
                call,
                (args, rows, allocator) -> StringShapeKernels.trim(
                        args.getFirst(), args.size() > 1 ? args.get(1) : null, side, rows, allocator));
    }
}
