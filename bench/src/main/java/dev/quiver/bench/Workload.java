package dev.quiver.bench;

import dev.quiver.types.DataType;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What a benchmark evaluates: an expression over generated Float64 columns ({@link UniformBatches}).
 *
 * @param sql          the expression, as SQL text
 * @param columns      the Float64 columns of the schema, in order
 * @param rows         rows in all
 * @param batchRows    rows per batch (the last batch is shorter when they do not divide)
 * @param nullFraction the fraction of nulls in each column
 * @param seed         the seed of the data
 */
public record Workload(String sql, List<String> columns, long rows, int batchRows, double nullFraction, long seed) {
    public Workload {
        Objects.requireNonNull(sql, "sql is null");
        columns = List.copyOf(columns);
        if (rows < 1 || batchRows < 1) {
            throw new IllegalArgumentException("rows and batch rows must be positive: " + rows + ", " + batchRows);
        }
    }

    public Schema schema() {
        return UniformBatches.float64Schema(columns);
    }

    /** The number of batches. */
    public long batches() {
        return (rows + batchRows - 1) / batchRows;
    }

    /**
     * Bytes of values and validity that one evaluation of every batch must read and write at
     * least: each column the expression reads once, the result once (as {@code quiver bench}
     * counts them).
     */
    public long bytesMoved() {
        PerRowBaseline r = PerRowBaseline.compile(schema(), sql);
        int columnsRead = r.columns().size();
        long full = rows / batchRows;
        int last = (int) (rows % batchRows);
        return full * bytesPerBatch(batchRows, columnsRead, r.outputType())
                + (last == 0 ? 0 : bytesPerBatch(last, columnsRead, r.outputType()));
    }

    private static long bytesPerBatch(int n, int columnsRead, DataType result) {
        long validity = (n + 7) / 8;
        long resultValues =
                result.equals(DataType.BOOLEAN) ? validity : (long) n * (result.equals(DataType.INT32) ? 4 : 8);
        return columnsRead * (n * 8L + validity) + resultValues + validity;
    }
}
