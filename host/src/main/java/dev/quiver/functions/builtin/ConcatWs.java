package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.ConcatKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.Arrays;
import java.util.List;

/**
 * {@code concat_ws(separator, a, b, ...)}: the arguments after the separator, each cast to a
 * string, joined by it. NULL when the separator is NULL; NULL arguments are skipped together
 * with their separator ({@code concat_ws(',', 'a', NULL, 'b')} is {@code 'a,b'}, and all-NULL
 * arguments give {@code ''}), as in DuckDB and PostgreSQL. Takes at least one argument after
 * the separator.
 */
final class ConcatWs implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    @Override
    public String name() {
        return "concat_ws";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (argTypes.size() < 2) {
            throw new PlanningException(
                    "concat_ws takes a separator and at least one argument, got " + argTypes.size() + " arguments");
        }
        DataType t = StringTypes.common(argTypes);
        return argTypes.stream().map(a -> a.valueType().equals(t) ? a : t).toList();
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return StringTypes.common(argTypes);
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        boolean large = StringTypes.isLarge(DataType.fromField(call.returnField()));
        ArrayFunctions.Hint[] hints = new ArrayFunctions.Hint[call.args().size()];
        Arrays.fill(hints, ArrayFunctions.Hint.ACCEPTS_SINGULAR);
        int rows = call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar) ? 1 : call.numberRows();
        return ArrayFunctions.invoke(
                call,
                (arrays, c) -> ConcatKernels.concatWs(
                        arrays.getFirst(),
                        arrays.subList(1, arrays.size()),
                        rows,
                        large,
                        c.config().allocator()),
                hints);
    }

    @Override
    public String description() {
        return "The arguments after the separator, as strings, joined by it; NULL arguments skipped, NULL when the separator is NULL.";
    }
}
