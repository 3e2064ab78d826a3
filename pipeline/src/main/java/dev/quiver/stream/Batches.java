package dev.quiver.stream;

import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.arrow.vector.util.VectorBatchAppender;

/**
 * Slicing, concatenating and regrouping Arrow record batches ({@link VectorSchemaRoot}) and
 * vectors, for streaming pipelines. Row counts and positions are {@code int}s, as in Arrow Java.
 *
 * <h2>Ownership</h2>
 * Every method says, for each argument, whether it is <em>borrowed</em> (read, left open, still
 * the caller's to close) or <em>consumed</em> (taken over: the method closes it, or moves it into
 * its result), and every result is owned by the caller, who must close it. On any failure
 * (a bad argument, {@link org.apache.arrow.memory.OutOfMemoryException}, ...) everything the
 * method allocated is closed before the exception propagates, so a failed call leaks nothing.
 *
 * <h2>Shared memory</h2>
 * {@link #slice slices} (and a {@link #concat(List, Field, BufferAllocator) concatenation} of a
 * single part) are zero copy where Arrow can: their vectors hold new references to the input's
 * buffers (Arrow's {@link TransferPair#splitAndTransfer}), so writing into one is seen by the
 * other. What Arrow re-packs into new (small) buffers instead: bit-packed buffers (validity
 * bitmaps, {@code Bit} data) of a slice that starts at a row that is not a multiple of 8, and
 * the offsets of a variable-width or list slice that does not start at offset 0 (Arrow rebases
 * them); the values themselves are not copied. Closing either side
 * releases only its own references: the memory is freed when the last holder closes, and a slice
 * keeps its input's whole buffers alive until then. A concatenation of several parts copies
 * their values, except the out-of-line string data of view vectors ({@code Utf8View},
 * {@code BinaryView}), whose buffers Arrow's appender shares with the parts. All allocators
 * involved must share one root allocator; a buffer shared between vectors of two allocators is
 * accounted to one of them (Arrow moves the accounting without checking the receiving
 * allocator's limit).
 *
 * <h2>Supported vectors</h2>
 * Fixed width (ints, floats, decimals, dates, times, timestamps, {@code Bit}), variable width
 * ({@code Utf8}, {@code Binary}, their large and view forms), lists, fixed-size lists, structs,
 * dictionary-encoded columns (their index vectors; the {@link Field} keeps the encoding) and
 * {@link NullVector}s.
 */
public final class Batches {
    private Batches() {}

    /**
     * Rows {@code [from, from + rows)} of every column of {@code batch}, as a new batch.
     *
     * <p>The result has the same {@link Schema} as {@code batch} (field names, types,
     * nullability, children, dictionary encodings, metadata) and {@code rows} rows; its vectors
     * are new vectors of {@code allocator} that share the input's buffers where Arrow can (see
     * the class comment). {@code rows == 0} is allowed.
     *
     * @param batch     borrowed: left open, unchanged and still usable
     * @param from      the first row, {@code 0 <= from <= batch.getRowCount()}
     * @param rows      how many rows, {@code 0 <= rows <= batch.getRowCount() - from}
     * @param allocator the allocator of the result's vectors (sharing a root with the input's)
     * @return a new batch owned by the caller, who closes it (independently of {@code batch})
     * @throws IllegalArgumentException when the range is outside the batch; the message names
     *                                  the range and the batch's row count
     */
    public static VectorSchemaRoot slice(VectorSchemaRoot batch, int from, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(allocator, "allocator is null");
        checkRange(from, rows, batch.getRowCount());
        List<FieldVector> sliced = new ArrayList<>(batch.getFieldVectors().size());
        try {
            for (FieldVector v : batch.getFieldVectors()) {
                sliced.add(slice(v, from, rows, allocator));
            }
            return new VectorSchemaRoot(batch.getSchema(), sliced, rows);
        } catch (RuntimeException | Error e) {
            closeOnFailure(e, sliced);
            throw e;
        }
    }

    /**
     * Values {@code [from, from + rows)} of one vector, as a new vector with the same
     * {@link Field} (name, type, nullability, children, dictionary encoding), sharing the input's
     * buffers where Arrow can (see the class comment). {@code rows == 0} is allowed.
     *
     * @param v         borrowed: left open, unchanged and still usable
     * @param from      the first value, {@code 0 <= from <= v.getValueCount()}
     * @param rows      how many values, {@code 0 <= rows <= v.getValueCount() - from}
     * @param allocator the allocator of the result (sharing a root with {@code v}'s)
     * @return a new vector owned by the caller, who closes it (independently of {@code v})
     * @throws IllegalArgumentException when the range is outside the vector; the message names
     *                                  the range and the vector's value count
     */
    public static FieldVector slice(FieldVector v, int from, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(v, "vector is null");
        Objects.requireNonNull(allocator, "allocator is null");
        checkRange(from, rows, v.getValueCount());
        TransferPair pair = v.getTransferPair(allocator);
        FieldVector to = (FieldVector) pair.getTo();
        try {
            pair.splitAndTransfer(from, rows);
            return to;
        } catch (RuntimeException | Error e) {
            closeOnFailure(e, List.of(to));
            throw e;
        }
    }

    /**
     * The values of {@code v} that {@code rows} selects, in order, as a new vector with the same
     * {@link Field}: a {@link #slice(FieldVector, int, int, BufferAllocator) slice} (sharing the
     * buffers where Arrow can) when the selected rows are consecutive and {@code allocator} shares a
     * root with {@code v}'s, else a copy (one gather).
     *
     * @param v         borrowed: left open, unchanged and still usable
     * @param rows      which values, a selection of at most {@code v.getValueCount()} rows
     * @param allocator the allocator of the result
     * @return a new vector of {@code rows.count()} values owned by the caller, who closes it
     *         (independently of {@code v})
     * @throws IllegalArgumentException when {@code rows} selects among more rows than {@code v} has
     */
    public static FieldVector filter(FieldVector v, Selection rows, BufferAllocator allocator) {
        Objects.requireNonNull(v, "vector is null");
        Objects.requireNonNull(rows, "rows is null");
        Objects.requireNonNull(allocator, "allocator is null");
        if (rows.rows() > v.getValueCount()) {
            throw new IllegalArgumentException("a selection among " + rows.rows()
                    + " rows cannot select from a vector of " + v.getValueCount() + " values");
        }
        int start = rows.runStart();
        if (start >= 0 && !(v instanceof NullVector) && v.getAllocator().getRoot() == allocator.getRoot()) {
            return slice(v, start, rows.count(), allocator);
        }
        return Kernels.filter(v, rows, allocator);
    }

    /**
     * All values of {@code parts}, in order, as one new vector named and typed as {@code field}.
     *
     * <p>Every part must have {@code field}'s {@link Field#getType() type} (and, recursively, its
     * children's types; names and nullability may differ) and its dictionary encoding (or none
     * when {@code field} has none). The values are copied once (Arrow's
     * {@link VectorBatchAppender}) into a vector allocated for the total up front; a single
     * part is not copied but sliced whole (the result then shares its buffers, see the class
     * comment). No parts give an empty vector.
     *
     * @param parts     borrowed: left open and still usable (Arrow's appender may set the value
     *                  count of a list's or struct's child vectors to the count its parent implies,
     *                  nothing else changes)
     * @param field     the name, type, nullability, children and dictionary encoding of the result
     * @param allocator the allocator of the result
     * @return a new vector owned by the caller, who closes it (independently of the parts)
     * @throws IllegalArgumentException when a part's type differs from {@code field}'s (the
     *                                  message names the part's index and both types) or the parts
     *                                  hold more than {@link Integer#MAX_VALUE} values
     */
    public static FieldVector concat(List<? extends FieldVector> parts, Field field, BufferAllocator allocator) {
        Objects.requireNonNull(parts, "parts is null");
        Objects.requireNonNull(field, "field is null");
        Objects.requireNonNull(allocator, "allocator is null");
        long total = 0;
        for (int i = 0; i < parts.size(); i++) {
            FieldVector part = Objects.requireNonNull(parts.get(i), "part " + i + " is null");
            checkSameType(i, part.getField(), field);
            total += part.getValueCount();
        }
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the parts hold " + total + " values, more than an Arrow vector can");
        }
        int rows = (int) total;
        if (parts.size() == 1 && parts.get(0).getField().getChildren().equals(field.getChildren())) {
            FieldVector part = parts.get(0);
            TransferPair pair = part.getTransferPair(field, allocator);
            FieldVector to = (FieldVector) pair.getTo();
            try {
                pair.splitAndTransfer(0, rows);
                return to;
            } catch (RuntimeException | Error e) {
                closeOnFailure(e, List.of(to));
                throw e;
            }
        }
        FieldVector target = field.createVector(allocator);
        try {
            allocateFor(target, parts, rows);
            // Arrow 19's appender needs an allocated target: into a variable-width or list
            // vector that was never allocated it reads offset 0 of an empty buffer and throws.
            VectorBatchAppender.batchAppend(target, parts.toArray(new ValueVector[0]));
            if (target instanceof NullVector && target.getValueCount() != rows) {
                // Arrow 19's appender ignores null vectors (it leaves the target's count at 0).
                target.setValueCount(rows);
            }
            if (target.getValueCount() != rows) {
                throw new IllegalStateException("appending " + parts.size() + " parts of " + rows
                        + " values in all gave " + target.getValueCount() + " values (" + field + ")");
            }
            return target;
        } catch (RuntimeException | Error e) {
            closeOnFailure(e, List.of(target));
            throw e;
        }
    }

    /**
     * All rows of {@code parts}, in order, as one new batch: each column is
     * {@link #concat(List, Field, BufferAllocator) concatenated} on its own, with the first
     * part's schema. Every part must have an equal {@link Schema} and vectors of its row count.
     *
     * @param parts     borrowed: left open and still usable; at least one
     * @param allocator the allocator of the result's vectors
     * @return a new batch owned by the caller, who closes it (independently of the parts)
     * @throws IllegalArgumentException when {@code parts} is empty, a part's schema differs from
     *                                  the first's (the message names the index), a vector's value
     *                                  count differs from its batch's row count, or the parts hold
     *                                  more than {@link Integer#MAX_VALUE} rows
     */
    public static VectorSchemaRoot concat(List<VectorSchemaRoot> parts, BufferAllocator allocator) {
        Objects.requireNonNull(parts, "parts is null");
        Objects.requireNonNull(allocator, "allocator is null");
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("no batches to concatenate (the schema would be unknown)");
        }
        Schema schema = Objects.requireNonNull(parts.get(0), "part 0 is null").getSchema();
        long total = 0;
        for (int i = 0; i < parts.size(); i++) {
            VectorSchemaRoot part = Objects.requireNonNull(parts.get(i), "part " + i + " is null");
            if (!part.getSchema().getFields().equals(schema.getFields())) { // metadata aside
                throw new IllegalArgumentException(
                        "batch " + i + " has schema " + part.getSchema() + ", batch 0 has " + schema);
            }
            for (FieldVector v : part.getFieldVectors()) {
                if (v.getValueCount() != part.getRowCount()) {
                    throw new IllegalArgumentException("batch " + i + " has " + part.getRowCount()
                            + " rows but its column " + v.getName() + " has " + v.getValueCount() + " values");
                }
            }
            total += part.getRowCount();
        }
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the batches hold " + total + " rows, more than an Arrow batch can");
        }
        List<Field> fields = schema.getFields();
        List<FieldVector> columns = new ArrayList<>(fields.size());
        try {
            for (int c = 0; c < fields.size(); c++) {
                List<FieldVector> column = new ArrayList<>(parts.size());
                for (VectorSchemaRoot part : parts) {
                    column.add(part.getVector(c));
                }
                columns.add(concat(column, fields.get(c), allocator));
            }
            return new VectorSchemaRoot(schema, columns, (int) total);
        } catch (RuntimeException | Error e) {
            closeOnFailure(e, columns);
            throw e;
        }
    }

    /**
     * A new batch whose columns are {@code batch}'s followed by {@code extra}, with
     * {@code batch}'s row count and schema metadata.
     *
     * <p>Ownership, on success: {@code batch}'s vectors are transferred (no copy) into new
     * vectors of the result and {@code batch} is closed (it is left empty: closing it again is a
     * harmless no-op, but it must not be used); the {@code extra} vectors themselves become
     * columns of the result. The caller closes only the result.
     *
     * <p>On failure: {@code extra} is still taken over (every extra vector is closed, except
     * one that is also a column of {@code batch}), while {@code batch} is left as it was, still
     * the caller's to close.
     *
     * @param batch consumed on success (see above)
     * @param extra consumed always (see above); each must hold {@code batch.getRowCount()} values
     * @return a new batch owned by the caller
     * @throws IllegalArgumentException when an extra vector's value count differs from the batch's
     *                                  row count, or a vector is listed twice or is already a
     *                                  column of {@code batch}
     * @throws NullPointerException     when {@code batch}, {@code extra} or an extra vector is
     *                                  null (the other extra vectors are closed all the same)
     */
    public static VectorSchemaRoot withColumns(VectorSchemaRoot batch, List<? extends FieldVector> extra) {
        Set<FieldVector> own = Collections.newSetFromMap(new IdentityHashMap<>());
        if (batch != null) {
            own.addAll(batch.getFieldVectors());
        }
        List<FieldVector> taken = new ArrayList<>();
        List<FieldVector> moved = new ArrayList<>();
        try {
            Objects.requireNonNull(extra, "extra is null");
            Set<FieldVector> seen = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = 0; i < extra.size(); i++) {
                FieldVector v = extra.get(i);
                if (v != null && !own.contains(v) && seen.add(v)) {
                    taken.add(v);
                }
            }
            Objects.requireNonNull(batch, "batch is null");
            int rows = batch.getRowCount();
            for (int i = 0; i < extra.size(); i++) {
                FieldVector v = Objects.requireNonNull(extra.get(i), "extra vector " + i + " is null");
                if (own.contains(v)) {
                    throw new IllegalArgumentException(
                            "extra vector " + i + " (" + v.getName() + ") is already a column of the batch");
                }
                if (identityIndex(extra, v) != i) {
                    throw new IllegalArgumentException("extra vector " + i + " (" + v.getName() + ") is listed twice");
                }
                if (v.getValueCount() != rows) {
                    throw new IllegalArgumentException("extra vector " + i + " (" + v.getName() + ") has "
                            + v.getValueCount() + " values, the batch has " + rows + " rows");
                }
            }
            List<Field> fields = new ArrayList<>(batch.getSchema().getFields());
            for (FieldVector v : batch.getFieldVectors()) {
                moved.add(transfer(v));
            }
            for (FieldVector v : extra) {
                fields.add(v.getField());
            }
            List<FieldVector> vectors = new ArrayList<>(moved);
            vectors.addAll(extra);
            VectorSchemaRoot result =
                    new VectorSchemaRoot(new Schema(fields, batch.getSchema().getCustomMetadata()), vectors, rows);
            batch.close();
            return result;
        } catch (RuntimeException | Error e) {
            List<FieldVector> all = new ArrayList<>(moved);
            all.addAll(taken);
            closeOnFailure(e, all);
            throw e;
        }
    }

    /**
     * A new batch of just the given columns of {@code batch}, in the given order, with
     * {@code batch}'s row count and schema metadata.
     *
     * <p>Ownership, on success: the selected vectors are transferred (no copy) into new vectors
     * of the result, and {@code batch} is closed, which frees the other columns (it is left
     * empty: closing it again is a harmless no-op, but it must not be used). The caller closes
     * only the result. On failure {@code batch} is left as it was, still the caller's to close.
     *
     * @param batch   consumed on success (see above)
     * @param columns column indexes into {@code batch}, each at most once; may be empty
     * @return a new batch owned by the caller
     * @throws IllegalArgumentException when an index is out of range or listed twice
     */
    public static VectorSchemaRoot select(VectorSchemaRoot batch, int[] columns) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(columns, "columns is null");
        int n = batch.getFieldVectors().size();
        boolean[] chosen = new boolean[n];
        for (int i = 0; i < columns.length; i++) {
            int c = columns[i];
            if (c < 0 || c >= n) {
                throw new IllegalArgumentException(
                        "column " + c + " (at " + i + ") is out of range: the batch has " + n + " columns");
            }
            if (chosen[c]) {
                throw new IllegalArgumentException("column " + c + " is selected twice");
            }
            chosen[c] = true;
        }
        List<Field> fields = new ArrayList<>(columns.length);
        List<FieldVector> moved = new ArrayList<>(columns.length);
        try {
            for (int c : columns) {
                fields.add(batch.getSchema().getFields().get(c));
                moved.add(transfer(batch.getVector(c)));
            }
            VectorSchemaRoot result = new VectorSchemaRoot(
                    new Schema(fields, batch.getSchema().getCustomMetadata()), moved, batch.getRowCount());
            batch.close();
            return result;
        } catch (RuntimeException | Error e) {
            closeOnFailure(e, moved);
            throw e;
        }
    }

    /**
     * The size of a batch's data: the sum of {@link FieldVector#getBufferSize()} over its
     * vectors (the bytes its rows need, not the capacity allocated; buffers shared with a slice
     * count in both).
     *
     * @param batch borrowed, unchanged
     * @return bytes, {@code >= 0}
     */
    public static long bytes(VectorSchemaRoot batch) {
        Objects.requireNonNull(batch, "batch is null");
        long sum = 0;
        for (FieldVector v : batch.getFieldVectors()) {
            sum += Values.bufferBytes(v);
        }
        return sum;
    }

    // ---------------------------------------------------------------------------------------

    private static void checkRange(int from, int rows, int size) {
        if (from < 0 || rows < 0 || (long) from + rows > size) {
            throw new IllegalArgumentException("rows [" + from + ", " + ((long) from + rows)
                    + ") are out of range for a batch of " + size + " rows");
        }
    }

    /** The same type, recursively (names and nullability aside), and the same dictionary encoding. */
    private static void checkSameType(int index, Field part, Field field) {
        if (!sameType(part, field) || !Objects.equals(part.getDictionary(), field.getDictionary())) {
            throw new IllegalArgumentException("part " + index + " has type " + describe(part) + ", expected "
                    + describe(field) + " (" + field.getName() + ")");
        }
    }

    private static boolean sameType(Field a, Field b) {
        if (!a.getType().equals(b.getType())
                || a.getChildren().size() != b.getChildren().size()) {
            return false;
        }
        for (int i = 0; i < a.getChildren().size(); i++) {
            if (!sameType(a.getChildren().get(i), b.getChildren().get(i))) {
                return false;
            }
        }
        return true;
    }

    private static String describe(Field f) {
        StringBuilder s = new StringBuilder(f.getType().toString());
        if (!f.getChildren().isEmpty()) {
            s.append('<');
            for (int i = 0; i < f.getChildren().size(); i++) {
                s.append(i == 0 ? "" : ", ").append(describe(f.getChildren().get(i)));
            }
            s.append('>');
        }
        if (f.getDictionary() != null) {
            s.append(" dictionary ").append(f.getDictionary());
        }
        return s.toString();
    }

    /** Allocates {@code target} for {@code rows} values (and, for variable width, exactly the parts' data bytes). */
    private static void allocateFor(FieldVector target, List<? extends FieldVector> parts, int rows) {
        if (target instanceof BaseVariableWidthVector vw) {
            long bytes = 0;
            for (FieldVector p : parts) {
                int n = p.getValueCount();
                if (n > 0) {
                    bytes += p.getOffsetBuffer().getInt((long) n * BaseVariableWidthVector.OFFSET_WIDTH);
                }
            }
            vw.allocateNew(bytes, rows);
        } else if (target instanceof BaseLargeVariableWidthVector vw) {
            long bytes = 0;
            for (FieldVector p : parts) {
                int n = p.getValueCount();
                if (n > 0) {
                    bytes += p.getOffsetBuffer().getLong((long) n * BaseLargeVariableWidthVector.OFFSET_WIDTH);
                }
            }
            vw.allocateNew(bytes, rows);
        } else {
            target.setInitialCapacity(rows);
            target.allocateNew();
        }
    }

    /** A new vector of {@code v}'s allocator that takes over {@code v}'s buffers, leaving {@code v} empty. */
    private static FieldVector transfer(FieldVector v) {
        TransferPair pair = v.getTransferPair(v.getAllocator());
        pair.transfer();
        return (FieldVector) pair.getTo();
    }

    private static int identityIndex(List<? extends FieldVector> list, FieldVector v) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == v) {
                return i;
            }
        }
        return -1;
    }

    /** Closes every resource, attaching their failures to {@code e} (which the caller then throws). */
    static void closeOnFailure(Throwable e, List<? extends AutoCloseable> resources) {
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception | Error suppressed) {
                e.addSuppressed(suppressed);
            }
        }
    }
}
