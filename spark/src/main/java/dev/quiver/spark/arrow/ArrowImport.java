package dev.quiver.spark.arrow;

import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.VectorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark columns as Arrow vectors: the column an {@link ArrowColumnVector} already wraps, or a
 * copy of any other {@link ColumnVector} (Spark's on-heap and off-heap vectors of a Parquet or
 * ORC scan, a cached table, ...).
 *
 * <pre>{@code
 * ValueVector v = ArrowImport.arrowVectorOf(column);       // no copy when Spark holds Arrow already
 * if (v == null) {
 *     Field f = SparkArrowTypes.field("x", column.dataType(), true);
 *     try (FieldVector copy = ArrowImport.copy(column, batch.numRows(), f, allocator)) {
 *         bytesCopied.add(ArrowImport.bytes(copy));
 *         ...
 *     }
 * }
 * }</pre>
 */
public final class ArrowImport {
    /** Values copied per bulk read: bounds the temporary Java array of a large column. */
    private static final int CHUNK = 1 << 16;

    private ArrowImport() {}

    /**
     * The Arrow vector behind {@code v} when it is Spark's {@link ArrowColumnVector} (from an
     * Arrow-producing source, a Python UDF, an earlier Quiver node), else null. The vector is
     * still {@code v}'s: it is neither copied nor transferred, lives as long as the batch that
     * holds {@code v}, and closing {@code v} closes it.
     */
    public static ValueVector arrowVectorOf(ColumnVector v) {
        Objects.requireNonNull(v, "v is null");
        return v instanceof ArrowColumnVector arrow ? arrow.getValueVector() : null;
    }

    /**
     * Copies the first {@code rows} values of {@code source} into a new vector of
     * {@code field} (its name, its nullability flag, and its type, which must be
     * {@link SparkArrowTypes#arrowType} of the column's Spark type), allocated from
     * {@code allocator}; the caller closes it. The result has value count {@code rows} and
     * validity exactly as {@code source.isNullAt}; what a null row holds is unspecified (for
     * fixed-width types it may be whatever Spark held behind the null).
     *
     * <p>Fixed-width types (integers, floats, dates, timestamps) are read with the column's
     * bulk getters ({@code getInts(rowId, count)}, ...) and copied into the Arrow buffer in
     * one go per chunk of 65,536 values; the validity bitmap is filled with ones in bulk when
     * the column has no nulls. Where a null slot may not be read (a column with nulls that is
     * not a plain {@link WritableColumnVector}: Arrow's getters throw on nulls, a dictionary
     * may not decode a null's id), only the runs of non-null rows are read. Booleans are read
     * in bulk and packed into the bitmap; strings and binaries row by row
     * ({@code getUTF8String}, {@code getBinary}) into buffers sized exactly once, with no
     * {@code java.lang.String} in between; decimals row by row, as unscaled longs up to
     * precision 18. A string, binary or decimal getter that returns null for a row
     * {@code isNullAt} calls valid makes that row null.
     *
     * @throws IllegalArgumentException when the column's type has no Arrow import, or
     *                                  {@code field}'s type is not the one it imports as, or
     *                                  {@code rows} is negative, or the strings of a Utf8 or
     *                                  Binary column exceed 2 GiB together
     */
    public static FieldVector copy(ColumnVector source, int rows, Field field, BufferAllocator allocator) {
        Objects.requireNonNull(source, "source is null");
        Objects.requireNonNull(field, "field is null");
        Objects.requireNonNull(allocator, "allocator is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, got " + rows);
        }
        ArrowType type = SparkArrowTypes.arrowType(source.dataType())
                .orElseThrow(() -> new IllegalArgumentException("column '" + field.getName() + "': "
                        + SparkArrowTypes.unsupportedReason(source.dataType()).orElseThrow()));
        if (!type.equals(field.getType())) {
            throw new IllegalArgumentException(
                    "column '" + field.getName() + "' is " + source.dataType().simpleString() + ", which imports as "
                            + type + ", not as the field's " + field.getType());
        }
        return switch (type) {
            case ArrowType.Bool _ -> booleans(source, rows, field, allocator);
            case ArrowType.Utf8 _ -> variableWidth(source, rows, field, allocator, false);
            case ArrowType.Binary _ -> variableWidth(source, rows, field, allocator, true);
            case ArrowType.Decimal _ -> decimals(source, rows, field, allocator);
            default -> fixedWidth(source, rows, field, allocator, Primitive.of(type));
        };
    }

    /**
     * The bytes of {@code v}'s buffers that hold its {@code getValueCount()} values, which is
     * what {@link #copy} writes and what the "bytes copied into Arrow" metric counts: Arrow's
     * {@code getBufferSize()}, that is the validity bitmap ({@code ceil(n / 8)} bytes) plus
     * the values ({@code n * width} for fixed-width types, {@code ceil(n / 8)} for booleans,
     * 16 per decimal) plus, for Utf8 and Binary, the offsets ({@code 4 * (n + 1)}) and the
     * string bytes; 0 for an empty vector and for a Null vector. Capacity the allocator rounded
     * up is not counted; children of nested vectors are.
     */
    public static long bytes(ValueVector v) {
        Objects.requireNonNull(v, "v is null");
        return v.getBufferSize();
    }

    /** A Java primitive array type, its little-endian Arrow layout, and the bulk getter that fills one. */
    private enum Primitive {
        BYTE(ValueLayout.JAVA_BYTE, ColumnVector::getBytes),
        SHORT(ValueLayout.JAVA_SHORT_UNALIGNED, ColumnVector::getShorts),
        INT(ValueLayout.JAVA_INT_UNALIGNED, ColumnVector::getInts),
        LONG(ValueLayout.JAVA_LONG_UNALIGNED, ColumnVector::getLongs),
        FLOAT(ValueLayout.JAVA_FLOAT_UNALIGNED, ColumnVector::getFloats),
        DOUBLE(ValueLayout.JAVA_DOUBLE_UNALIGNED, ColumnVector::getDoubles);

        final ValueLayout layout;
        final BulkRead read;

        Primitive(ValueLayout layout, BulkRead read) {
            this.layout = layout.withOrder(ByteOrder.LITTLE_ENDIAN); // Arrow's byte order
            this.read = read;
        }

        static Primitive of(ArrowType t) {
            return switch (t) {
                case ArrowType.Int i ->
                    switch (i.getBitWidth()) {
                        case 8 -> BYTE;
                        case 16 -> SHORT;
                        case 32 -> INT;
                        default -> LONG;
                    };
                case ArrowType.FloatingPoint f -> f.getPrecision() == FloatingPointPrecision.SINGLE ? FLOAT : DOUBLE;
                case ArrowType.Date _ -> INT;
                case ArrowType.Timestamp _ -> LONG;
                default -> throw new IllegalStateException("no fixed-width copy for " + t);
            };
        }
    }

    @FunctionalInterface
    private interface BulkRead {
        /** A new primitive array of {@code count} values from row {@code rowId}. */
        Object read(ColumnVector v, int rowId, int count);
    }

    /** A run of rows whose values may be read, {@code [start, end)}. */
    @FunctionalInterface
    private interface RunConsumer {
        void accept(int start, int end);
    }

    private static FieldVector fixedWidth(
            ColumnVector source, int rows, Field field, BufferAllocator allocator, Primitive p) {
        FieldVector out = OutputVectors.uninitialized(field, rows, allocator);
        try (VectorView view = VectorView.of(out)) {
            MemorySegment data = view.data();
            MemorySegment direct = SparkVectorMemory.values(source, p.layout.carrier(), rows);
            long width = p.layout.byteSize();
            forEachReadableRun(source, rows, view.validity(), (start, end) -> {
                if (direct != null) {
                    // The vector's own array or native memory: one copy, no array in between.
                    MemorySegment.copy(direct, start * width, data, start * width, (end - start) * width);
                    return;
                }
                for (int s = start; s < end; s += CHUNK) {
                    int n = Math.min(CHUNK, end - s);
                    MemorySegment.copy(p.read.read(source, s, n), 0, data, p.layout, s * width, n);
                }
            });
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
        return out;
    }

    private static FieldVector booleans(ColumnVector source, int rows, Field field, BufferAllocator allocator) {
        FieldVector out = OutputVectors.uninitialized(field, rows, allocator);
        try (VectorView view = VectorView.of(out)) {
            byte[] bits = new byte[Math.toIntExact(VectorView.validityBytes(rows))];
            forEachReadableRun(source, rows, view.validity(), (start, end) -> {
                for (int s = start; s < end; s += CHUNK) {
                    int n = Math.min(CHUNK, end - s);
                    boolean[] values = source.getBooleans(s, n);
                    for (int k = 0; k < n; k++) {
                        if (values[k]) {
                            bits[(s + k) >>> 3] |= (byte) (1 << ((s + k) & 7));
                        }
                    }
                }
            });
            MemorySegment.copy(bits, 0, view.data(), ValueLayout.JAVA_BYTE, 0, bits.length);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
        return out;
    }

    /**
     * Writes the validity of rows {@code [0, rows)} into {@code validity} (the bits past
     * {@code rows} in its last byte cleared) and calls {@code runs} with the row ranges whose
     * values may be read: all rows at once when the column has no nulls or its null slots can
     * be read harmlessly, else each maximal run of non-null rows.
     */
    private static void forEachReadableRun(ColumnVector source, int rows, MemorySegment validity, RunConsumer runs) {
        if (rows == 0) {
            return;
        }
        int bytes = Math.toIntExact(VectorView.validityBytes(rows));
        if (!source.hasNull()) {
            validity.asSlice(0, bytes).fill((byte) 0xFF);
            if ((rows & 7) != 0) {
                validity.set(ValueLayout.JAVA_BYTE, bytes - 1, (byte) ((1 << (rows & 7)) - 1));
            }
            runs.accept(0, rows);
            return;
        }
        byte[] bits = new byte[bytes];
        for (int i = 0; i < rows; i++) {
            if (!source.isNullAt(i)) {
                bits[i >>> 3] |= (byte) (1 << (i & 7));
            }
        }
        MemorySegment.copy(bits, 0, validity, ValueLayout.JAVA_BYTE, 0, bytes);
        if (source instanceof WritableColumnVector w && !w.hasDictionary()) {
            // On-heap and off-heap vectors keep a value (stale or zero) behind every null: read all in one go.
            runs.accept(0, rows);
            return;
        }
        int i = 0;
        while (i < rows) {
            while (i < rows && (bits[i >>> 3] & (1 << (i & 7))) == 0) {
                i++;
            }
            int start = i;
            while (i < rows && (bits[i >>> 3] & (1 << (i & 7))) != 0) {
                i++;
            }
            if (i > start) {
                runs.accept(start, i);
            }
        }
    }

    private static FieldVector decimals(ColumnVector source, int rows, Field field, BufferAllocator allocator) {
        DecimalVector out = (DecimalVector) field.createVector(allocator);
        try {
            out.allocateNew(rows); // validity zeroed: every row is null until set
            int precision = out.getPrecision(), scale = out.getScale();
            for (int i = 0; i < rows; i++) {
                Decimal d = source.isNullAt(i) ? null : source.getDecimal(i, precision, scale);
                if (d != null) {
                    SparkValues.setSafe(out, i, d);
                }
            }
            out.setValueCount(rows);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
        return out;
    }

    private static FieldVector variableWidth(
            ColumnVector source, int rows, Field field, BufferAllocator allocator, boolean binary) {
        // One read per row, kept to size the data buffer exactly before writing: no regrowth, no second read.
        UTF8String[] values = new UTF8String[rows];
        long total = 0;
        for (int i = 0; i < rows; i++) {
            if (!source.isNullAt(i)) {
                UTF8String s = binary ? bytesOf(source.getBinary(i)) : source.getUTF8String(i);
                values[i] = s;
                total += s == null ? 0 : s.numBytes();
            }
        }
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("column '" + field.getName() + "': " + rows + " rows hold " + total
                    + " bytes, more than the 2 GiB a " + field.getType() + " vector can; copy fewer rows at a time");
        }
        BaseVariableWidthVector out = (BaseVariableWidthVector) field.createVector(allocator);
        try {
            out.allocateNew(Math.max(total, 1), rows); // validity zeroed: every row is null until set
            for (int i = 0; i < rows; i++) {
                if (values[i] != null) {
                    SparkValues.setSafe(out, i, values[i]);
                }
            }
            out.setValueCount(rows);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
        return out;
    }

    private static UTF8String bytesOf(byte[] b) {
        return b == null ? null : UTF8String.fromBytes(b);
    }
}
