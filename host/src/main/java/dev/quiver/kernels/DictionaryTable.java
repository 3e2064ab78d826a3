package dev.quiver.kernels;

import dev.quiver.memory.OutputVectors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A result computed once per dictionary entry, kept on the Java heap, and gathered by a batch's
 * dictionary indices: row {@code r} takes the entry its index names, and a row whose index is null
 * takes the last entry (the result for a NULL input, which is not always NULL: {@code m IS NULL},
 * {@code CASE WHEN m = 'x' THEN 1 ELSE 0 END}). So a table for a dictionary of {@code size}
 * values has {@code size + 1} entries.
 *
 * <p>Holds no Arrow memory: it may be kept across batches and dropped without being closed.
 * Every gather allocates its result from the allocator it is given. Flat results only: Boolean
 * (a byte per entry: value and validity, gathered straight into the two bitmaps, 64 rows per
 * word), fixed-width (a typed heap array per width, gathered into a heap array and copied into
 * Arrow memory at once) and variable-width (Utf8, LargeUtf8, Binary: the bytes staged on the heap
 * and copied in blocks). Indices are any Arrow integer type ({@link DictionaryIndices}); a valid
 * index outside the dictionary is an {@link IndexOutOfBoundsException} naming the row (batch
 * validation refuses such batches before anything computes, so users see its message instead).
 * Immutable; thread-safe.
 */
public final class DictionaryTable {
    /** The most heap bytes a table holds; a larger result is not tabled ({@link #of} returns null). */
    public static final long MAX_BYTES = 256L << 20;

    /** A Boolean entry: bit 0 its value, bit 1 its validity. */
    private static final byte NULL = 0, FALSE = 2, TRUE = 3;

    private static final int STAGING_BYTES = 1 << 16;

    private enum Layout {
        BOOLEAN,
        FIXED,
        VARIABLE,
        LARGE_VARIABLE
    }

    private final Field field;
    private final Layout layout;
    private final int entries;
    /** Validity, one bit per entry (all set where none is null). */
    private final long[] valid;
    /** BOOLEAN: {@link #NULL}, {@link #FALSE} or {@link #TRUE} per entry. */
    private final byte[] codes;
    /** FIXED: the values' byte width, and the values as a byte[], short[], int[] or long[] (byte[] for other widths). */
    private final int width;

    private final Object values;
    /** VARIABLE: entry k's bytes are {@code bytes[starts[k] .. starts[k + 1])}. */
    private final int[] starts;

    private final byte[] bytes;

    private DictionaryTable(
            Field field,
            Layout layout,
            int entries,
            long[] valid,
            byte[] codes,
            int width,
            Object values,
            int[] starts,
            byte[] bytes) {
        this.field = field;
        this.layout = layout;
        this.entries = entries;
        this.valid = valid;
        this.codes = codes;
        this.width = width;
        this.values = values;
        this.starts = starts;
        this.bytes = bytes;
    }

    /**
     * The table of {@code perEntry} (one value per dictionary value, then the one for a null
     * index), or null when it is not a flat vector or would take more than {@link #MAX_BYTES}.
     */
    public static DictionaryTable of(FieldVector perEntry) {
        return of(perEntry, 0);
    }

    /**
     * The table that decodes a dictionary of {@code values}: its values, then a NULL for a null
     * index; null as {@link #of} says.
     */
    public static DictionaryTable decoding(FieldVector values) {
        return of(values, 1);
    }

    /** The table of {@code perEntry}'s values and {@code nulls} (0 or 1) NULL entries after them. */
    private static DictionaryTable of(FieldVector perEntry, int nulls) {
        Objects.requireNonNull(perEntry, "perEntry is null");
        int given = perEntry.getValueCount();
        int n = given + nulls;
        if (n == 0) {
            return null;
        }
        Field field = new Field("result", perEntry.getField().getFieldType(), null);
        long[] valid = new long[PackedBits.words(n)];
        long[] read = given == 0 ? null : PackedBits.validity(perEntry, given);
        if (read == null) {
            Arrays.fill(valid, -1L);
        } else {
            System.arraycopy(read, 0, valid, 0, read.length);
        }
        for (int i = given; i < n; i++) {
            valid[i >>> 6] &= ~(1L << i);
        }
        switch (perEntry) {
            case BitVector b -> {
                byte[] codes = new byte[n];
                for (int i = 0; i < n; i++) {
                    codes[i] = ((valid[i >>> 6] >>> i) & 1) == 0 ? NULL : b.get(i) != 0 ? TRUE : FALSE;
                }
                return new DictionaryTable(field, Layout.BOOLEAN, n, valid, codes, 0, null, null, null);
            }
            case BaseFixedWidthVector f -> {
                int width = f.getTypeWidth();
                if ((long) n * width > MAX_BYTES) {
                    return null;
                }
                // The NULL entries after the values read as zeros.
                MemorySegment src = given == 0 ? MemorySegment.NULL : PackedBits.view(f.getDataBuffer());
                Object typed = switch (width) {
                    case 1 -> Arrays.copyOf(src.asSlice(0, given).toArray(ValueLayout.JAVA_BYTE), n);
                    case 2 -> Arrays.copyOf(src.asSlice(0, 2L * given).toArray(ValueLayout.JAVA_SHORT_UNALIGNED), n);
                    case 4 -> Arrays.copyOf(src.asSlice(0, 4L * given).toArray(ValueLayout.JAVA_INT_UNALIGNED), n);
                    case 8 -> Arrays.copyOf(src.asSlice(0, 8L * given).toArray(ValueLayout.JAVA_LONG_UNALIGNED), n);
                    default ->
                        Arrays.copyOf(src.asSlice(0, (long) width * given).toArray(ValueLayout.JAVA_BYTE), width * n);
                };
                return new DictionaryTable(field, Layout.FIXED, n, valid, null, width, typed, null, null);
            }
            case BaseVariableWidthVector v
            when given > 0 -> {
                return variable(field, Layout.VARIABLE, given, nulls, valid, v.getOffsetBuffer(), 4, v.getDataBuffer());
            }
            case BaseLargeVariableWidthVector v
            when given > 0 -> {
                return variable(
                        field, Layout.LARGE_VARIABLE, given, nulls, valid, v.getOffsetBuffer(), 8, v.getDataBuffer());
            }
            default -> {
                return null;
            }
        }
    }

    /** A table of {@code n} variable-width values and {@code nulls} empty (NULL) entries after them. */
    private static DictionaryTable variable(
            Field field,
            Layout layout,
            int n,
            int nulls,
            long[] valid,
            ArrowBuf offsetBuffer,
            int offsetWidth,
            ArrowBuf dataBuffer) {
        MemorySegment offsets = PackedBits.view(offsetBuffer);
        long first = offset(offsets, offsetWidth, 0);
        long last = offset(offsets, offsetWidth, n);
        if (first < 0 || last < first || last - first > MAX_BYTES) {
            return null;
        }
        int[] starts = new int[n + nulls + 1];
        for (int i = 0; i <= n; i++) {
            starts[i] = (int) (offset(offsets, offsetWidth, i) - first);
        }
        Arrays.fill(starts, n + 1, starts.length, starts[n]);
        byte[] bytes = PackedBits.view(dataBuffer).asSlice(first, last - first).toArray(ValueLayout.JAVA_BYTE);
        return new DictionaryTable(field, layout, n + nulls, valid, null, 0, null, starts, bytes);
    }

    private static long offset(MemorySegment offsets, int width, long i) {
        return width == 4
                ? offsets.get(ValueLayout.JAVA_INT_UNALIGNED, i * 4)
                : offsets.get(ValueLayout.JAVA_LONG_UNALIGNED, i * 8);
    }

    /** Whether {@code indices} is a vector {@link #gather} reads: an Arrow integer vector. */
    public static boolean readable(FieldVector indices) {
        return DictionaryIndices.readable(indices);
    }

    /** How many entries: the dictionary's values and one for a null index. */
    public int entries() {
        return entries;
    }

    /**
     * The table gathered by {@code indices} (a dictionary-encoded column's indices into a
     * dictionary of {@link #entries()} - 1 values), allocated from {@code allocator}; the caller
     * closes it. Null when it cannot be gathered here (a result larger than a heap array, or
     * variable-width bytes past what 4-byte offsets reach): the caller computes the rows instead.
     *
     * @throws IndexOutOfBoundsException for a valid index outside the dictionary
     */
    public FieldVector gather(FieldVector indices, BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        DictionaryIndices in = new DictionaryIndices(indices, entries - 1);
        return switch (layout) {
            case BOOLEAN -> booleans(in, allocator);
            case FIXED -> fixed(in, allocator);
            case VARIABLE, LARGE_VARIABLE -> variable(in, allocator);
        };
    }

    private FieldVector booleans(DictionaryIndices in, BufferAllocator allocator) {
        int rows = in.rows();
        int words = PackedBits.words(rows);
        long[] data = new long[words];
        long[] ok = new long[words];
        int[] e = new int[64];
        for (int w = 0; w < words; w++) {
            int base = w << 6;
            int n = Math.min(64, rows - base);
            in.entries(base, n, e);
            long v = 0;
            long k = 0;
            for (int b = 0; b < n; b++) {
                int c = codes[e[b]];
                v |= (long) (c & 1) << b;
                k |= (long) ((c >>> 1) & 1) << b;
            }
            data[w] = v;
            ok[w] = k;
        }
        FieldVector out = OutputVectors.uninitialized(field, rows, allocator);
        try {
            PackedBits.write(data, PackedBits.view(out.getDataBuffer()), rows);
            PackedBits.write(ok, PackedBits.view(out.getValidityBuffer()), rows);
            return out;
        } catch (RuntimeException | Error x) {
            out.close();
            throw x;
        }
    }

    /** Each row's entry, and (into {@code ok}) each row's validity: its entry's. */
    private int[] positions(DictionaryIndices in, long[] ok) {
        int rows = in.rows();
        int[] pos = new int[rows];
        int[] e = new int[64];
        for (int base = 0, w = 0; base < rows; base += 64, w++) {
            int n = Math.min(64, rows - base);
            in.entries(base, n, e);
            long k = 0;
            for (int b = 0; b < n; b++) {
                int x = e[b];
                pos[base + b] = x;
                k |= ((valid[x >>> 6] >>> x) & 1) << b;
            }
            ok[w] = k;
        }
        return pos;
    }

    private FieldVector fixed(DictionaryIndices in, BufferAllocator allocator) {
        int rows = in.rows();
        if ((long) rows * width > Integer.MAX_VALUE - 8) {
            return null; // more than a heap array holds: the rows compute it
        }
        long[] ok = new long[PackedBits.words(rows)];
        int[] pos = positions(in, ok);
        MemorySegment gathered = switch (values) {
            case long[] t -> {
                long[] o = new long[rows];
                for (int r = 0; r < rows; r++) {
                    o[r] = t[pos[r]];
                }
                yield MemorySegment.ofArray(o);
            }
            case int[] t -> {
                int[] o = new int[rows];
                for (int r = 0; r < rows; r++) {
                    o[r] = t[pos[r]];
                }
                yield MemorySegment.ofArray(o);
            }
            case short[] t -> {
                short[] o = new short[rows];
                for (int r = 0; r < rows; r++) {
                    o[r] = t[pos[r]];
                }
                yield MemorySegment.ofArray(o);
            }
            case byte[] t
            when width == 1 -> {
                byte[] o = new byte[rows];
                for (int r = 0; r < rows; r++) {
                    o[r] = t[pos[r]];
                }
                yield MemorySegment.ofArray(o);
            }
            case byte[] t -> {
                byte[] o = new byte[rows * width];
                for (int r = 0; r < rows; r++) {
                    System.arraycopy(t, pos[r] * width, o, r * width, width);
                }
                yield MemorySegment.ofArray(o);
            }
            default -> throw new IllegalStateException("values of " + values.getClass());
        };
        FieldVector out = OutputVectors.uninitialized(field, rows, allocator);
        try {
            MemorySegment.copy(gathered, 0, PackedBits.view(out.getDataBuffer()), 0, (long) rows * width);
            PackedBits.write(ok, PackedBits.view(out.getValidityBuffer()), rows);
            return out;
        } catch (RuntimeException | Error x) {
            out.close();
            throw x;
        }
    }

    private FieldVector variable(DictionaryIndices in, BufferAllocator allocator) {
        int rows = in.rows();
        long[] ok = new long[PackedBits.words(rows)];
        int[] pos = positions(in, ok);
        boolean large = layout == Layout.LARGE_VARIABLE;
        long total = 0;
        for (int r = 0; r < rows; r++) {
            total += starts[pos[r] + 1] - starts[pos[r]];
        }
        if (!large && total > Integer.MAX_VALUE) {
            return null;
        }
        FieldVector out = field.createVector(allocator);
        try {
            if (large) {
                ((BaseLargeVariableWidthVector) out).allocateNew(Math.max(total, 1), rows);
            } else {
                ((BaseVariableWidthVector) out).allocateNew(Math.max(total, 1), rows);
            }
            MemorySegment offsets = PackedBits.view(out.getOffsetBuffer());
            MemorySegment data = PackedBits.view(out.getDataBuffer());
            if (large) {
                long[] o = new long[rows + 1];
                for (int r = 0; r < rows; r++) {
                    o[r + 1] = o[r] + (starts[pos[r] + 1] - starts[pos[r]]);
                }
                MemorySegment.copy(MemorySegment.ofArray(o), 0, offsets, 0, 8L * (rows + 1));
            } else {
                int[] o = new int[rows + 1];
                for (int r = 0; r < rows; r++) {
                    o[r + 1] = o[r] + (starts[pos[r] + 1] - starts[pos[r]]);
                }
                MemorySegment.copy(MemorySegment.ofArray(o), 0, offsets, 0, 4L * (rows + 1));
            }
            copyBytes(pos, data);
            PackedBits.write(ok, PackedBits.view(out.getValidityBuffer()), rows);
            if (large) {
                ((BaseLargeVariableWidthVector) out).setLastSet(rows - 1);
            } else {
                ((BaseVariableWidthVector) out).setLastSet(rows - 1);
            }
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException | Error x) {
            out.close();
            throw x;
        }
    }

    /** The rows' bytes in order into {@code data}: staged on the heap, copied into Arrow memory a block at a time. */
    private void copyBytes(int[] pos, MemorySegment data) {
        int longest = 0;
        for (int k = 0; k < entries; k++) {
            longest = Math.max(longest, starts[k + 1] - starts[k]);
        }
        byte[] staging = new byte[Math.max(STAGING_BYTES, longest)];
        MemorySegment stage = MemorySegment.ofArray(staging);
        int at = 0;
        long flushed = 0;
        for (int p : pos) {
            int start = starts[p];
            int len = starts[p + 1] - start;
            if (at + len > staging.length) {
                MemorySegment.copy(stage, 0, data, flushed, at);
                flushed += at;
                at = 0;
            }
            System.arraycopy(bytes, start, staging, at, len);
            at += len;
        }
        MemorySegment.copy(stage, 0, data, flushed, at);
    }
}
