package dev.quiver.functions;

import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One per-batch call of a {@link ScalarFunction}.
 *
 * @param args       the evaluated arguments, already of the planned (coerced) types; arrays
 *                   have {@code numberRows} rows. They are borrowed: the function must not
 *                   close them.
 * @param argFields  the planned field of each argument
 * @param numberRows rows in the batch
 * @param returnField the planned result field
 * @param config     allocator, query start, options
 */
public record ScalarFunctionArgs(
        List<ColumnarValue> args, List<Field> argFields, int numberRows, Field returnField, ExecutionConfig config) {
    public ScalarFunctionArgs {
        args = List.copyOf(args);
        argFields = List.copyOf(argFields);
        Objects.requireNonNull(returnField, "returnField is null");
        Objects.requireNonNull(config, "config is null");
    }

    public ColumnarValue arg(int i) {
        return args.get(i);
    }
}
