package dev.quiver.spark.arrow;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark rows as Arrow batches, for a plan whose child produces rows rather than columns: each
 * {@link #next} call reads up to {@code maxRows} rows from an iterator into a new
 * {@link VectorSchemaRoot}. Rows are read by ordinal with {@link InternalRow}'s typed getters
 * and are not kept, so an iterator that reuses one row object (an {@code UnsafeProjection}'s) is
 * fine. Not thread-safe: one instance per task.
 *
 * <pre>{@code
 * try (RowsToArrow toArrow = new RowsToArrow(child.schema(), allocator, 65_536)) {
 *     VectorSchemaRoot batch;
 *     while ((batch = toArrow.next(rows)) != null) {
 *         try (batch) {
 *             ...
 *         }
 *     }
 * }
 * }</pre>
 */
public final class RowsToArrow implements AutoCloseable {
    /** Rows a new batch's vectors are first sized for; they grow past it as rows come. */
    private static final int INITIAL_CAPACITY = 4096;

    private final Schema schema;
    private final int[] ordinals;
    private final BufferAllocator allocator;
    private final int maxRows;
    private long bytesWritten;
    private boolean closed;

    /**
     * Batches of every column of {@code schema}, named as its fields.
     *
     * @throws IllegalArgumentException when a column's type has no Arrow import
     *                                  ({@link SparkArrowTypes#unsupportedReason}) or {@code maxRows < 1}
     */
    public RowsToArrow(StructType schema, BufferAllocator allocator, int maxRows) {
        this(schema, allColumns(schema), allocator, maxRows);
    }

    /**
     * Batches of the columns of {@code rowSchema} at {@code columns} (ordinals, in the order the
     * batch holds them), for rows of {@code rowSchema}: the other columns are not read.
     *
     * @throws IllegalArgumentException when an ordinal is out of range, a chosen column's type
     *                                  has no Arrow import, or {@code maxRows < 1}
     */
    public RowsToArrow(StructType rowSchema, int[] columns, BufferAllocator allocator, int maxRows) {
        Objects.requireNonNull(rowSchema, "rowSchema is null");
        Objects.requireNonNull(columns, "columns is null");
        this.allocator = Objects.requireNonNull(allocator, "allocator is null");
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be >= 1, got " + maxRows);
        }
        this.maxRows = maxRows;
        this.ordinals = columns.clone();
        StructField[] fields = rowSchema.fields();
        List<Field> arrow = new ArrayList<>(ordinals.length);
        for (int ordinal : ordinals) {
            if (ordinal < 0 || ordinal >= fields.length) {
                throw new IllegalArgumentException("column ordinal " + ordinal + " is not in [0, " + fields.length
                        + ") of " + rowSchema.simpleString());
            }
            StructField f = fields[ordinal];
            arrow.add(SparkArrowTypes.field(f.name(), f.dataType(), f.nullable()));
        }
        this.schema = new Schema(arrow);
    }

    /** The schema of the batches: the chosen columns' names, their Arrow types and nullability. */
    public Schema schema() {
        return schema;
    }

    /**
     * A new batch of the next rows of {@code rows}: at least one and up to {@code maxRows},
     * fewer only when the iterator ends; null when it had no row left, so a returned batch is
     * never empty. The caller owns and closes the batch; its vectors are allocated from this
     * instance's allocator. A failure while reading closes the partial batch before it leaves.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public VectorSchemaRoot next(Iterator<? extends InternalRow> rows) {
        Objects.requireNonNull(rows, "rows is null");
        if (closed) {
            throw new IllegalStateException("this RowsToArrow is closed");
        }
        if (!rows.hasNext()) {
            return null;
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            List<FieldVector> vectors = root.getFieldVectors();
            ColumnWriter[] writers = new ColumnWriter[vectors.size()];
            for (int c = 0; c < writers.length; c++) {
                FieldVector v = vectors.get(c);
                v.setInitialCapacity(Math.min(maxRows, INITIAL_CAPACITY));
                v.allocateNew();
                writers[c] = writer(v);
            }
            int n = 0;
            while (n < maxRows && rows.hasNext()) {
                InternalRow row = rows.next();
                for (int c = 0; c < writers.length; c++) {
                    int ordinal = ordinals[c];
                    if (row.isNullAt(ordinal)) {
                        vectors.get(c).setNull(n);
                    } else {
                        writers[c].write(row, ordinal, n);
                    }
                }
                n++;
            }
            root.setRowCount(n);
            for (FieldVector v : vectors) {
                bytesWritten += ArrowImport.bytes(v);
            }
            return root;
        } catch (RuntimeException | Error e) {
            root.close();
            throw e;
        }
    }

    /** As {@link #next(Iterator)}, for a Scala iterator (what {@code RDD.mapPartitions} and plan nodes get). */
    @SuppressWarnings("checkstyle:inlinefqn") // Scala's Iterator, beside java.util's
    public VectorSchemaRoot next(scala.collection.Iterator<? extends InternalRow> rows) {
        Objects.requireNonNull(rows, "rows is null");
        return next(CollectionConverters.asJava(rows));
    }

    /** The bytes of all batches returned so far, as {@link ArrowImport#bytes} counts them. */
    public long bytesWritten() {
        return bytesWritten;
    }

    /** Ends this reader; batches already returned stay open (their caller closes them). */
    @Override
    public void close() {
        closed = true;
    }

    /** Writes the non-null value at {@code ordinal} of {@code row} into row {@code index} of its vector. */
    @FunctionalInterface
    private interface ColumnWriter {
        void write(InternalRow row, int ordinal, int index);
    }

    private static ColumnWriter writer(FieldVector vector) {
        return switch (vector) {
            case BitVector v -> (row, o, i) -> v.setSafe(i, row.getBoolean(o) ? 1 : 0);
            case TinyIntVector v -> (row, o, i) -> v.setSafe(i, row.getByte(o));
            case SmallIntVector v -> (row, o, i) -> v.setSafe(i, row.getShort(o));
            case IntVector v -> (row, o, i) -> v.setSafe(i, row.getInt(o));
            case DateDayVector v -> (row, o, i) -> v.setSafe(i, row.getInt(o));
            case BigIntVector v -> (row, o, i) -> v.setSafe(i, row.getLong(o));
            case TimeStampVector v -> (row, o, i) -> v.setSafe(i, row.getLong(o));
            case Float4Vector v -> (row, o, i) -> v.setSafe(i, row.getFloat(o));
            case Float8Vector v -> (row, o, i) -> v.setSafe(i, row.getDouble(o));
            case DecimalVector v ->
                (row, o, i) -> SparkValues.setSafe(v, i, row.getDecimal(o, v.getPrecision(), v.getScale()));
            case VarBinaryVector v -> (row, o, i) -> SparkValues.setSafe(v, i, UTF8String.fromBytes(row.getBinary(o)));
            case BaseVariableWidthVector v -> (row, o, i) -> SparkValues.setSafe(v, i, row.getUTF8String(o));
            default -> throw new IllegalStateException("no row writer for " + vector.getField());
        };
    }

    private static int[] allColumns(StructType schema) {
        Objects.requireNonNull(schema, "schema is null");
        int[] all = new int[schema.fields().length];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return all;
    }
}
