package dev.quiver.kernels;

import dev.quiver.memory.OutputVectors;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Gathering rows (filter by a {@link Selection}, take by indices) and spreading them back
 * (scatter, merge), for any vector type.
 *
 * <p>The work is split by physical layout, decided once per call: validity bitmaps and Boolean
 * values move as packed words ({@link PackedBits}), fixed-width values as bytes
 * ({@link FixedWidthRows}), Utf8/Binary and their large forms as offsets and bytes sized in a
 * first pass ({@link VariableWidthRows}); lists, structs and every other layout go through
 * Arrow's {@link TransferPair#copyValueSafe}, one row at a time.
 */
final class SelectionKernels {
    private SelectionKernels() {}

    /** How a vector's values are laid out, which decides the copy code. */
    private enum Layout {
        /** Arrow's Null type: no buffers, every row null. */
        NULL,
        /** Boolean: a value bitmap. */
        BITS,
        /** A fixed number of bytes per value. */
        FIXED,
        /** 32- or 64-bit offsets into a data buffer. */
        VARIABLE,
        /** Lists, structs, views, unions: row by row through {@link TransferPair}. */
        OTHER;

        static Layout of(FieldVector v) {
            return switch (v) {
                case NullVector _ -> NULL;
                case BitVector _ -> BITS;
                case BaseFixedWidthVector _ -> FIXED;
                case BaseVariableWidthVector _ -> VARIABLE;
                case BaseLargeVariableWidthVector _ -> VARIABLE;
                default -> OTHER;
            };
        }

        /** The layout of the vectors {@link Values#allocate} makes for {@code type} (a dictionary's value type). */
        static Layout of(DataType type) {
            return switch (type.valueType()) {
                case DataType.Null _ -> NULL;
                case DataType.Bool _ -> BITS;
                case DataType.Int _ -> FIXED;
                case DataType.FloatingPoint _ -> FIXED;
                case DataType.Decimal _ -> FIXED;
                case DataType.Date32 _ -> FIXED;
                case DataType.Timestamp _ -> FIXED;
                case DataType.Interval _ -> FIXED;
                case DataType.Utf8 _ -> VARIABLE;
                case DataType.Binary _ -> VARIABLE;
                case DataType.ListType _ -> OTHER;
                case DataType.Struct _ -> OTHER;
                case DataType.Dictionary _ -> throw new AssertionError("valueType() is never a dictionary");
            };
        }
    }

    private static Field renamed(Field f, String name) {
        return name.equals(f.getName()) ? f : new Field(name, f.getFieldType(), f.getChildren());
    }

    private static VariableWidthRows.Buffers bytes(FieldVector v) {
        return new VariableWidthRows.Buffers(
                PackedBits.view(v.getOffsetBuffer()),
                PackedBits.view(v.getDataBuffer()),
                v instanceof BaseLargeVariableWidthVector);
    }

    private static int width(FieldVector v) {
        return ((BaseFixedWidthVector) v).getTypeWidth();
    }

    /** Writes {@code words} (or all ones when null) as the first {@code rows} validity bits of {@code out}. */
    private static void writeValidity(FieldVector out, long[] words, int rows) {
        MemorySegment validity = PackedBits.view(out.getValidityBuffer());
        if (words == null) {
            PackedBits.setAll(validity, rows);
        } else {
            PackedBits.write(words, validity, rows);
        }
    }

    // ---- filter

    /**
     * The rows of {@code v} that {@code selection} selects, in order, as a new vector named
     * {@code name} with {@code v}'s type and children; the caller owns it.
     */
    static FieldVector filter(FieldVector v, Selection selection, String name, BufferAllocator allocator) {
        if (v.getValueCount() < selection.rows()) {
            throw new IllegalArgumentException("filter: the vector has " + v.getValueCount()
                    + " rows, fewer than the selection's " + selection.rows());
        }
        Field field = renamed(v.getField(), name);
        int count = selection.count();
        Layout layout = Layout.of(v);
        FieldVector out = layout == Layout.FIXED
                ? OutputVectors.uninitialized(field, count, allocator)
                : field.createVector(allocator);
        try {
            switch (layout) {
                case NULL -> {}
                case BITS -> {
                    ((BitVector) out).allocateNew(count);
                    long[] data = PackedBits.filter(PackedBits.read(v.getDataBuffer(), selection.rows()), selection);
                    PackedBits.write(data, PackedBits.view(out.getDataBuffer()), count);
                    filterValidity(v, out, selection);
                }
                case FIXED -> {
                    FixedWidthRows.filter(
                            PackedBits.view(v.getDataBuffer()),
                            PackedBits.view(out.getDataBuffer()),
                            width(v),
                            selection);
                    filterValidity(v, out, selection);
                }
                case VARIABLE -> {
                    VariableWidthRows.Buffers src = bytes(v);
                    ((VariableWidthFieldVector) out).allocateNew(VariableWidthRows.filterBytes(src, selection), count);
                    VariableWidthRows.filter(src, bytes(out), selection);
                    filterValidity(v, out, selection);
                    ((VariableWidthFieldVector) out).setLastSet(count - 1);
                }
                case OTHER -> {
                    out.setInitialCapacity(Math.max(count, 1));
                    out.allocateNew();
                    TransferPair copier = v.makeTransferPair(out);
                    int k = 0;
                    for (int r = selection.nextSetBit(0); r >= 0; r = selection.nextSetBit(r + 1)) {
                        copier.copyValueSafe(r, k++);
                    }
                }
            }
            out.setValueCount(count);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    private static void filterValidity(FieldVector v, FieldVector out, Selection selection) {
        long[] valid = PackedBits.validity(v, selection.rows());
        writeValidity(out, valid == null ? null : PackedBits.filter(valid, selection), selection.count());
    }

    /** A copy of the first {@code rows} rows of {@code v}, named "result". */
    static FieldVector copy(FieldVector v, int rows, BufferAllocator allocator) {
        return filter(v, Selection.all(rows), "result", allocator);
    }

    // ---- take

    /** Rows {@code indices} of {@code v}, in that order, copied into a new vector named "result". */
    static FieldVector take(FieldVector v, int[] indices, BufferAllocator allocator) {
        int n = v.getValueCount();
        for (int k = 0; k < indices.length; k++) {
            if (indices[k] < 0 || indices[k] >= n) {
                throw new IndexOutOfBoundsException(
                        "take: index " + indices[k] + " (position " + k + ") is outside 0.." + (n - 1));
            }
        }
        Field field = renamed(v.getField(), "result");
        int count = indices.length;
        Layout layout = Layout.of(v);
        FieldVector out = layout == Layout.FIXED
                ? OutputVectors.uninitialized(field, count, allocator)
                : field.createVector(allocator);
        try {
            switch (layout) {
                case NULL -> {}
                case BITS -> {
                    ((BitVector) out).allocateNew(count);
                    long[] data = PackedBits.take(PackedBits.read(v.getDataBuffer(), n), indices);
                    PackedBits.write(data, PackedBits.view(out.getDataBuffer()), count);
                    takeValidity(v, out, indices);
                }
                case FIXED -> {
                    FixedWidthRows.take(
                            PackedBits.view(v.getDataBuffer()),
                            PackedBits.view(out.getDataBuffer()),
                            width(v),
                            indices);
                    takeValidity(v, out, indices);
                }
                case VARIABLE -> {
                    VariableWidthRows.Buffers src = bytes(v);
                    ((VariableWidthFieldVector) out).allocateNew(VariableWidthRows.takeBytes(src, indices), count);
                    VariableWidthRows.take(src, bytes(out), indices);
                    takeValidity(v, out, indices);
                    ((VariableWidthFieldVector) out).setLastSet(count - 1);
                }
                case OTHER -> {
                    out.setInitialCapacity(Math.max(count, 1));
                    out.allocateNew();
                    TransferPair copier = v.makeTransferPair(out);
                    for (int k = 0; k < count; k++) {
                        copier.copyValueSafe(indices[k], k);
                    }
                }
            }
            out.setValueCount(count);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    private static void takeValidity(FieldVector v, FieldVector out, int[] indices) {
        long[] valid = PackedBits.validity(v, v.getValueCount());
        writeValidity(out, valid == null ? null : PackedBits.take(valid, indices), indices.length);
    }

    // ---- merge

    /**
     * A piece of a merge, checked, with its scalar (if any) in a one-row vector. The k-th row r
     * it selects takes row r of {@code vector}, row k when {@code compact}, row 0 when
     * {@code constant}; {@code vector == null} means all its rows are NULL.
     */
    private record Source(Selection rows, FieldVector vector, boolean compact, boolean constant) {
        /** Where the validity of its rows comes from ({@code vector} must not be null). */
        PackedBits.Source validity() {
            if (constant) {
                return PackedBits.Source.ones(rows);
            }
            int n = compact ? rows.count() : rows.rows();
            return new PackedBits.Source(rows, PackedBits.validity(vector, n), compact);
        }
    }

    /** See {@link Kernels#merge}. */
    static FieldVector merge(DataType type, int rows, List<Kernels.Piece> pieces, BufferAllocator allocator) {
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, not " + rows);
        }
        DataType valueType = type.valueType();
        long[] covered = new long[PackedBits.words(rows)];
        for (int p = 0; p < pieces.size(); p++) {
            check(valueType, rows, pieces.get(p), p, covered);
        }
        List<FieldVector> owned = new ArrayList<>();
        FieldVector out = null;
        try {
            List<Source> sources = new ArrayList<>(pieces.size());
            for (Kernels.Piece piece : pieces) {
                sources.add(source(piece, owned, allocator));
            }
            Field field = valueType.toField("result", true);
            Layout layout = Layout.of(valueType);
            out = layout == Layout.FIXED
                    ? OutputVectors.uninitialized(field, rows, allocator)
                    : field.createVector(allocator);
            switch (layout) {
                case NULL -> {}
                case BITS -> mergeBits(out, sources, rows);
                case FIXED -> mergeFixed(out, sources, rows);
                case VARIABLE -> mergeVariable(out, sources, rows);
                case OTHER -> mergeRows(out, sources, rows);
            }
            out.setValueCount(rows);
            FieldVector result = out;
            out = null;
            return result;
        } finally {
            if (out != null) {
                out.close();
            }
            for (FieldVector v : owned) {
                v.close();
            }
        }
    }

    private static void check(DataType type, int rows, Kernels.Piece piece, int p, long[] covered) {
        Selection sel = piece.rows();
        if (sel.rows() != rows) {
            throw new IllegalArgumentException(
                    "merge: piece " + p + " selects among " + sel.rows() + " rows, not " + rows);
        }
        DataType vt = piece.value().dataType().valueType();
        if (!vt.equals(type) && !(vt instanceof DataType.Null)) {
            throw new IllegalArgumentException("merge: piece " + p + " has type " + vt + ", not " + type);
        }
        if (piece.value() instanceof ColumnarValue.Array a) {
            int need = piece.compact() ? sel.count() : rows;
            if (a.vector().getValueCount() < need) {
                throw new IllegalArgumentException(
                        "merge: piece " + p + " has " + a.vector().getValueCount() + " rows, fewer than the " + need
                                + " it " + (piece.compact() ? "selects" : "covers"));
            }
        }
        for (int i = 0; i < covered.length; i++) {
            long both = covered[i] & sel.word(i);
            if (both != 0) {
                throw new IllegalArgumentException("merge: row " + ((i << 6) + Long.numberOfTrailingZeros(both))
                        + " is in piece " + p + " and an earlier one");
            }
            covered[i] |= sel.word(i);
        }
    }

    private static Source source(Kernels.Piece piece, List<FieldVector> owned, BufferAllocator allocator) {
        Selection sel = piece.rows();
        return switch (piece.value()) {
            case ColumnarValue.Scalar s
            when s.isNull() || s.dataType().valueType() instanceof DataType.Null -> new Source(sel, null, false, true);
            case ColumnarValue.Scalar s -> {
                FieldVector one = constant(s, allocator);
                owned.add(one);
                yield new Source(sel, one, false, true);
            }
            case ColumnarValue.Array a when a.dataType() instanceof DataType.Null -> new Source(sel, null, false, true);
            case ColumnarValue.Array a -> new Source(sel, a.vector(), piece.compact(), false);
        };
    }

    /**
     * A one-row vector of a non-null scalar. A variable-width one gets at least 16 data bytes, so
     * that {@link VariableWidthRows#copyAscending} can move its value as two longs.
     */
    private static FieldVector constant(ColumnarValue.Scalar s, BufferAllocator allocator) {
        FieldVector one = Values.broadcast(s.value(), "scalar", 1, allocator);
        if (!(one instanceof VariableWidthFieldVector var)
                || one.getDataBuffer().capacity() >= 16) {
            return one;
        }
        try (one) {
            byte[] value = var.get(0);
            FieldVector roomy = one.getField().createVector(allocator);
            try {
                ((VariableWidthFieldVector) roomy).allocateNew(Math.max(16, value.length), 1);
                ((VariableWidthFieldVector) roomy).setSafe(0, value);
                roomy.setValueCount(1);
                return roomy;
            } catch (RuntimeException | Error e) {
                roomy.close();
                throw e;
            }
        }
    }

    private static long[] mergeValidity(List<Source> sources, int rows) {
        long[] valid = new long[PackedBits.words(rows)];
        for (Source s : sources) {
            if (s.vector() != null) {
                PackedBits.merge(valid, s.validity());
            }
        }
        return valid;
    }

    private static void mergeBits(FieldVector out, List<Source> sources, int rows) {
        ((BitVector) out).allocateNew(rows);
        long[] data = new long[PackedBits.words(rows)];
        for (Source s : sources) {
            if (s.vector() == null) {
                continue;
            }
            if (s.constant()) {
                if (((BitVector) s.vector()).get(0) != 0) {
                    PackedBits.merge(data, PackedBits.Source.ones(s.rows()));
                }
            } else {
                int n = s.compact() ? s.rows().count() : rows;
                PackedBits.merge(
                        data,
                        new PackedBits.Source(
                                s.rows(), PackedBits.read(s.vector().getDataBuffer(), n), s.compact()));
            }
        }
        PackedBits.write(data, PackedBits.view(out.getDataBuffer()), rows);
        PackedBits.write(mergeValidity(sources, rows), PackedBits.view(out.getValidityBuffer()), rows);
    }

    private static void mergeFixed(FieldVector out, List<Source> sources, int rows) {
        int width = width(out);
        MemorySegment dst = PackedBits.view(out.getDataBuffer());
        long written = 0;
        for (Source s : sources) {
            if (s.vector() != null) {
                written += s.rows().count();
            }
        }
        if (written < rows) {
            // Rows no value is written to are NULL; zeros behind them rather than stale memory.
            dst.asSlice(0, (long) rows * width).fill((byte) 0);
        }
        for (Source s : sources) {
            if (s.vector() == null) {
                continue;
            }
            MemorySegment src = PackedBits.view(s.vector().getDataBuffer());
            if (s.constant()) {
                FixedWidthRows.fill(src, dst, width, s.rows());
            } else {
                FixedWidthRows.scatter(src, dst, width, s.rows(), s.compact());
            }
        }
        PackedBits.write(mergeValidity(sources, rows), PackedBits.view(out.getValidityBuffer()), rows);
    }

    private static void mergeVariable(FieldVector out, List<Source> sources, int rows) {
        List<VariableWidthRows.Piece> pieces = new ArrayList<>();
        long total = 0;
        for (Source s : sources) {
            if (s.vector() != null) {
                VariableWidthRows.Buffers src = bytes(s.vector());
                VariableWidthRows.Piece piece = new VariableWidthRows.Piece(s.rows(), src, s.compact(), s.constant());
                total += piece.bytes();
                pieces.add(piece);
            }
        }
        ((VariableWidthFieldVector) out).allocateNew(total, rows);
        VariableWidthRows.merge(pieces.toArray(VariableWidthRows.Piece[]::new), bytes(out), rows);
        PackedBits.write(mergeValidity(sources, rows), PackedBits.view(out.getValidityBuffer()), rows);
        ((VariableWidthFieldVector) out).setLastSet(rows - 1);
    }

    /** Any layout, a row at a time in ascending order (lists and structs append their children). */
    private static void mergeRows(FieldVector out, List<Source> sources, int rows) {
        out.setInitialCapacity(Math.max(rows, 1));
        out.allocateNew();
        int[] owner = new int[rows];
        int[] from = new int[rows];
        Arrays.fill(owner, -1);
        TransferPair[] copiers = new TransferPair[sources.size()];
        for (int p = 0; p < sources.size(); p++) {
            Source s = sources.get(p);
            if (s.vector() == null) {
                continue;
            }
            copiers[p] = s.vector().makeTransferPair(out);
            int k = 0;
            Selection sel = s.rows();
            for (int r = sel.nextSetBit(0); r >= 0; r = sel.nextSetBit(r + 1)) {
                owner[r] = p;
                from[r] = s.constant() ? 0 : s.compact() ? k : r;
                k++;
            }
        }
        for (int r = 0; r < rows; r++) {
            if (owner[r] < 0) {
                Values.setNull(out, r);
            } else {
                copiers[owner[r]].copyValueSafe(from[r], r);
            }
        }
    }

    // ---- scatter by index sets

    /**
     * Row {@code indexSets.get(k)[j]} := row j of {@code values.get(k)}; see
     * {@link Kernels#scatter(DataType, int, List, List, BufferAllocator)}. Each set becomes a
     * compact merge piece (its value gathered into ascending row order when the set is not).
     */
    static FieldVector scatter(
            DataType type, int rows, List<int[]> indexSets, List<ColumnarValue> values, BufferAllocator allocator) {
        if (indexSets.size() != values.size()) {
            throw new IllegalArgumentException(
                    "scatter: " + indexSets.size() + " index sets but " + values.size() + " values");
        }
        List<ColumnarValue> owned = new ArrayList<>();
        try {
            List<Kernels.Piece> pieces = new ArrayList<>(indexSets.size());
            for (int k = 0; k < indexSets.size(); k++) {
                int[] set = indexSets.get(k);
                ColumnarValue value = values.get(k);
                Selection sel = Selection.ofRows(rows, set);
                if (sel.count() != set.length) {
                    throw new IllegalArgumentException("scatter: index set " + k + " holds a row twice");
                }
                if (value instanceof ColumnarValue.Array a) {
                    if (a.vector().getValueCount() < set.length) {
                        throw new IllegalArgumentException("scatter: value " + k + " has "
                                + a.vector().getValueCount() + " rows for " + set.length + " indices");
                    }
                    int[] order = ascendingOrder(set);
                    if (order != null) {
                        ColumnarValue sorted = new ColumnarValue.Array(take(a.vector(), order, allocator), true);
                        owned.add(sorted);
                        value = sorted;
                    }
                }
                pieces.add(new Kernels.Piece(sel, value, true));
            }
            return merge(type, rows, pieces, allocator);
        } finally {
            owned.forEach(ColumnarValue::close);
        }
    }

    /** The positions of {@code set} in ascending order of their rows, or null when the set is ascending already. */
    private static int[] ascendingOrder(int[] set) {
        boolean ascending = true;
        for (int j = 1; j < set.length && ascending; j++) {
            ascending = set[j - 1] < set[j];
        }
        if (ascending) {
            return null;
        }
        long[] keyed = new long[set.length];
        for (int j = 0; j < set.length; j++) {
            keyed[j] = ((long) set[j] << 32) | j;
        }
        Arrays.sort(keyed);
        int[] order = new int[set.length];
        for (int j = 0; j < set.length; j++) {
            order[j] = (int) keyed[j];
        }
        return order;
    }
}
