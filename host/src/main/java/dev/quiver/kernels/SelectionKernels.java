package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Gathering rows (take) and spreading rows back (scatter), for any vector type. */
final class SelectionKernels {
    private SelectionKernels() {
    }

    /** An empty vector named "result" with {@code like}'s type and children. */
    private static FieldVector emptyLike(FieldVector like, BufferAllocator allocator) {
        Field f = like.getField();
        return new Field("result", f.getFieldType(), f.getChildren()).createVector(allocator);
    }

    /** Rows {@code indices} of {@code v}, in that order, copied into a new vector. */
    static FieldVector take(FieldVector v, int[] indices, BufferAllocator allocator) {
        int n = v.getValueCount();
        for (int k = 0; k < indices.length; k++) {
            if (indices[k] < 0 || indices[k] >= n) {
                throw new IndexOutOfBoundsException("take: index " + indices[k] + " (position " + k + ") is outside 0.." + (n - 1));
            }
        }
        FieldVector out = emptyLike(v, allocator);
        try {
            out.setInitialCapacity(Math.max(indices.length, 1));
            out.allocateNew();
            TransferPair copier = v.makeTransferPair(out);
            for (int k = 0; k < indices.length; k++) {
                copier.copyValueSafe(indices[k], k);
            }
            out.setValueCount(indices.length);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /** A copy of the first {@code rows} rows of {@code v}. */
    static FieldVector copy(FieldVector v, int rows, BufferAllocator allocator) {
        int[] all = new int[rows];
        Arrays.setAll(all, i -> i);
        return take(v, all, allocator);
    }

    static FieldVector scatter(DataType type, int rows, List<int[]> indexSets, List<ColumnarValue> values, BufferAllocator allocator) {
        if (indexSets.size() != values.size()) {
            throw new IllegalArgumentException("scatter: " + indexSets.size() + " index sets but " + values.size() + " values");
        }
        // Rows are written in ascending order: variable-width and list vectors append their data.
        int[] source = new int[rows];
        int[] position = new int[rows];
        Arrays.fill(source, -1);
        for (int k = 0; k < indexSets.size(); k++) {
            int[] set = indexSets.get(k);
            ColumnarValue value = values.get(k);
            if (value instanceof ColumnarValue.Array a && a.vector().getValueCount() < set.length) {
                throw new IllegalArgumentException("scatter: value " + k + " has " + a.vector().getValueCount()
                        + " rows for " + set.length + " indices");
            }
            DataType vt = value.dataType().valueType();
            if (!vt.equals(type.valueType()) && !(vt instanceof DataType.Null)) {
                throw new IllegalArgumentException("scatter: value " + k + " has type " + vt + ", not " + type);
            }
            for (int j = 0; j < set.length; j++) {
                int row = set[j];
                if (row < 0 || row >= rows) {
                    throw new IndexOutOfBoundsException("scatter: index " + row + " is outside 0.." + (rows - 1));
                }
                if (source[row] >= 0) {
                    throw new IllegalArgumentException("scatter: row " + row + " is in index sets " + source[row] + " and " + k);
                }
                source[row] = k;
                position[row] = j;
            }
        }
        List<FieldVector> sources = new ArrayList<>();
        List<AutoCloseable> owned = new ArrayList<>();
        FieldVector out = Values.allocate(type, "result", rows, allocator);
        try {
            List<TransferPair> copiers = new ArrayList<>();
            for (ColumnarValue value : values) {
                FieldVector src;
                if (value instanceof ColumnarValue.Array a && !(a.dataType() instanceof DataType.Null)) {
                    src = a.vector();
                } else if (value instanceof ColumnarValue.Scalar s && !s.isNull()) {
                    src = Values.broadcast(s.value(), "scalar", 1, allocator);
                    owned.add(src);
                } else {
                    src = null; // all null
                }
                sources.add(src);
                copiers.add(src == null ? null : src.makeTransferPair(out));
            }
            for (int row = 0; row < rows; row++) {
                int k = source[row];
                TransferPair copier = k < 0 ? null : copiers.get(k);
                if (copier == null) {
                    Values.setNull(out, row);
                } else {
                    copier.copyValueSafe(values.get(k) instanceof ColumnarValue.Scalar ? 0 : position[row], row);
                }
            }
            out.setValueCount(rows);
            AutoCloseables.close(owned);
            return out;
        } catch (Exception e) {
            out.close();
            closeQuietly(owned, e);
            if (e instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e);
        }
    }

    private static void closeQuietly(List<AutoCloseable> resources, Exception failure) {
        try {
            AutoCloseables.close(resources);
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }
}
