package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.StringSearchKernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;

import java.util.List;

/**
 * {@code contains}: Whether the string contains the needle (an empty needle is in every string). NULL when either argument is NULL. A constant needle is
 * prepared once per batch; see {@link StringSearchKernels} for how the batch is searched.
 */
final class Contains implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.string(2, Volatility.IMMUTABLE).withParameterNames("s", "needle");

    @Override
    public String name() {
        return "contains";
    }

    @Override
    public List<String> aliases() {
        return List.of();
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return ArrayFunctions.invoke(call, (arrays, c) -> StringSearchKernels.contains(arrays.get(0), arrays.get(1), c.config().allocator()),
                ArrayFunctions.Hint.PAD, ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    @Override
    public String description() {
        return "Whether the string contains the needle (an empty needle is in every string).";
    }
}
