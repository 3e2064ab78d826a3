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
 * {@code strpos}: The 1-based position in characters of the needle's first occurrence, 0 when absent, 1 for an empty needle (aliases instr, position). NULL when either argument is NULL. A constant needle is
 * prepared once per batch; see {@link StringSearchKernels} for how the batch is searched.
 */
final class Strpos implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.string(2, Volatility.IMMUTABLE).withParameterNames("s", "needle");

    @Override
    public String name() {
        return "strpos";
    }

    @Override
    public List<String> aliases() {
        return List.of("instr", "position");
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
        return ArrayFunctions.invoke(call, (arrays, c) -> StringSearchKernels.position(arrays.get(0), arrays.get(1), c.config().allocator()),
                ArrayFunctions.Hint.PAD, ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    @Override
    public String description() {
        return "The 1-based position in characters of the needle's first occurrence, 0 when absent, 1 for an empty needle (aliases instr, position).";
    }
}
