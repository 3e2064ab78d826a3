package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.time.Instant;
import java.util.List;

/**
 * {@code now()}: the query's start time as Timestamp(us, UTC). Stable: one value for the
 * whole query, folded into a literal at planning.
 */
final class Now implements ScalarFunction {
    static final DataType TYPE = new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC");
    private static final Signature SIGNATURE = Signature.nullary(Volatility.STABLE);

    @Override
    public String name() {
        return "now";
    }

    @Override
    public List<String> aliases() {
        return List.of("current_timestamp");
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return TYPE;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        Instant t = call.config().queryStart();
        return ColumnarValue.scalar(
                TYPE, Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000));
    }

    @Override
    public String description() {
        return "The query's start time, Timestamp(us, UTC) (stable: one value per query).";
    }
}
