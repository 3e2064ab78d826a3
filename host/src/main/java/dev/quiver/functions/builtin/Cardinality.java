package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * {@code cardinality(list)}: the number of elements of a list as Int64 (NULL for a NULL list),
 * as DataFusion and the SQL standard define it for one-dimensional lists, so equal to
 * {@link ArrayLength array_length}. DuckDB's {@code cardinality} takes only maps, so the tests
 * check this one against DuckDB's {@code len}.
 */
final class Cardinality implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    @Override
    public String name() {
        return "cardinality";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        return ArrayLength.listArgument(name(), argTypes);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.INT64;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return ArrayLength.lengths(call);
    }

    @Override
    public String description() {
        return "The number of elements of a list (Int64).";
    }
}
