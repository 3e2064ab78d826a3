package dev.quiver.spark.arrow;

import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Arrow vectors as a Spark {@link ColumnarBatch}, with no copy: each vector is wrapped in
 * Spark's {@link ArrowColumnVector}, which reads the Arrow buffers in place.
 */
public final class ArrowExport {
    private ArrowExport() {}

    /**
     * A batch of {@code rows} rows whose columns are {@code vectors}, in order.
     *
     * <p>Ownership passes to the batch: in Spark 4.2, {@link ColumnarBatch#close()} (and
     * {@code closeIfFreeable()}, which Spark's operators call) closes every column, and
     * {@link ArrowColumnVector#close()} closes its Arrow vector (and the column vectors of its
     * children), releasing the buffers to their allocator. Close the batch, not the vectors,
     * when done (closing a vector again is harmless: Arrow's close is idempotent). When this
     * method throws, nothing was taken over: the caller still closes the vectors.
     *
     * <p>Spark reads with {@code ArrowColumnVector}'s accessors, which exist for Bool, signed
     * Int(8/16/32/64), Float32/64, Decimal128, Utf8 and LargeUtf8, Binary and LargeBinary,
     * Date(DAY), Timestamp(MICROSECOND) with or without zone, Null, intervals, durations, and
     * List, Map and Struct vectors of these.
     *
     * @throws IllegalArgumentException when a vector holds fewer than {@code rows} values, or
     *                                  Spark has no column type for its Arrow type
     */
    public static ColumnarBatch batch(List<? extends ValueVector> vectors, int rows) {
        Objects.requireNonNull(vectors, "vectors is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, got " + rows);
        }
        ColumnVector[] columns = new ColumnVector[vectors.size()];
        for (int c = 0; c < columns.length; c++) {
            ValueVector v = Objects.requireNonNull(vectors.get(c), "vector " + c + " is null");
            if (v.getValueCount() < rows) {
                throw new IllegalArgumentException("vector '" + v.getName() + "' holds " + v.getValueCount()
                        + " values, fewer than the batch's " + rows + " rows");
            }
            try {
                columns[c] = new ArrowColumnVector(v);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "vector '" + v.getName() + "' of Arrow type "
                                + v.getField().getType() + " has no Spark column type: " + e.getMessage(),
                        e);
            }
        }
        return new ColumnarBatch(columns, rows);
    }
}
