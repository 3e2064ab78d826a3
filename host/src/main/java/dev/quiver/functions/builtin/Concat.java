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
 * {@code concat(a, b, ...)}: one or more arguments of any type, each cast to a string (Utf8, or
 * LargeUtf8 when any argument is LargeUtf8), joined; NULL arguments are skipped, so the result
 * is never NULL ({@code concat(NULL)} is {@code ''}), as in DuckDB and PostgreSQL. Its strict
 * twin {@link StrictConcat} is what {@code a || b} means. Each row is copies of the parts'
 * bytes, nothing else.
 */
class Concat implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    @Override
    public String name() {
        return "concat";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    /** How NULL arguments are treated. */
    ConcatKernels.Nulls nulls() {
        return ConcatKernels.Nulls.SKIP;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (argTypes.isEmpty()) {
            throw new PlanningException(name() + " needs at least one argument");
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
                (arrays, c) -> ConcatKernels.concat(
                        arrays, rows, nulls(), large, c.config().allocator()),
                hints);
    }

    @Override
    public String description() {
        return "The arguments as strings, joined; NULL arguments are skipped (never NULL).";
    }
}
