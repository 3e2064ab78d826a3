package dev.quiver.stream;

import dev.quiver.CompiledExpression;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.types.DataType;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One lifted async call of one execution: the function, its arguments compiled over the
 * operator's input (already cast to what its signature accepts), the column it appends, and
 * what it did.
 */
final class AsyncCallSite {
    final AsyncScalarFunction function;
    final String text;
    final String column;
    final List<CompiledExpression> args;
    final List<Field> argFields;
    final Field returnField;
    final DataType returnType;
    final AsyncLimiter limiter;
    final AsyncLimiter.Group group;
    final ExecutionConfig config;
    final AsyncCallMetrics metrics = new AsyncCallMetrics();

    AsyncCallSite(
            AsyncScalarFunction function,
            String text,
            String column,
            List<CompiledExpression> args,
            DataType returnType,
            AsyncLimiter limiter,
            AsyncLimiter.Group group,
            ExecutionConfig config) {
        this.function = function;
        this.text = text;
        this.column = column;
        this.args = List.copyOf(args);
        this.argFields = args.stream().map(CompiledExpression::outputField).toList();
        this.returnType = returnType;
        this.returnField = returnType.toField(column, true);
        this.limiter = limiter;
        this.group = group;
        this.config = config;
    }

    /** Rows per call for a batch of {@code rows}. */
    int chunkRows(int rows) {
        var ideal = function.idealBatchSize();
        return ideal.isPresent() ? Math.max(1, Math.min(ideal.getAsInt(), rows)) : rows;
    }

    String describe() {
        var ideal = function.idealBatchSize();
        return text + " AS " + column + " ("
                + (ideal.isPresent() ? ideal.getAsInt() + " rows per call" : "one call per batch") + ", at most "
                + Math.min(limiter.permits(), group.limit) + " in flight)";
    }
}
