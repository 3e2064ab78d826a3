package dev.quiver.strings;

import dev.quiver.errors.InputException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * A read-only, bounds-checked view of a Utf8 ({@link VarCharVector}) or LargeUtf8
 * ({@link LargeVarCharVector}) column: row {@code i} is the bytes {@code [start(i), end(i))} of
 * {@link #data()}, aliasing the vector's memory (no copy). A one-row vector can stand for a
 * constant read by every row ({@link #constant}). Whether the whole batch is ASCII is decided
 * once ({@link #isAllAscii()}), so kernels pick their fast path per batch, not per row.
 *
 * <p>The views live in a confined arena: use from one thread and close before the vector.
 */
public final class Utf8Input implements AutoCloseable {
    private final Arena arena;
    private final FieldVector vector;
    private final MemorySegment data;
    private final MemorySegment offsets;
    private final MemorySegment validity;
    private final boolean large;
    private final boolean constant;
    private final int rows;
    private int ascii = -1;

    private Utf8Input(FieldVector vector, boolean constant) {
        this.vector = Objects.requireNonNull(vector, "vector is null");
        if (!(vector instanceof VarCharVector || vector instanceof LargeVarCharVector)) {
            throw new IllegalArgumentException("vector '" + vector.getName() + "' of type "
                    + vector.getField().getType() + " is not a Utf8 or LargeUtf8 vector");
        }
        this.large = vector instanceof LargeVarCharVector;
        this.constant = constant;
        this.rows = vector.getValueCount();
        if (constant && rows != 1) {
            throw new IllegalArgumentException("a constant string input has one row, not " + rows);
        }
        this.arena = Arena.ofConfined();
        try {
            long offsetBytes = rows == 0 ? 0 : (long) (rows + 1) * (large ? 8 : 4);
            this.offsets = alias(vector.getOffsetBuffer(), offsetBytes, "offset");
            long dataEnd = rows == 0 ? 0 : offsetAt(rows);
            if (rows > 0 && (offsetAt(0) < 0 || offsetAt(0) > dataEnd)) {
                throw new InputException(
                        "string vector '" + vector.getName() + "' has offsets " + offsetAt(0) + " .. " + dataEnd);
            }
            this.data = alias(vector.getDataBuffer(), dataEnd, "data");
            ArrowBuf v = vector.getValidityBuffer();
            this.validity = vector.getNullCount() == 0 || v == null ? null : alias(v, (rows + 7) / 8, "validity");
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** A view of every row of {@code vector}. */
    public static Utf8Input of(FieldVector vector) {
        return new Utf8Input(vector, false);
    }

    /** A view of the one row of {@code vector} that every row reads. */
    public static Utf8Input constant(FieldVector vector) {
        return new Utf8Input(vector, true);
    }

    private MemorySegment alias(ArrowBuf buf, long bytes, String what) {
        if (bytes == 0) {
            return MemorySegment.NULL.reinterpret(0, arena, null);
        }
        if (buf == null || buf.capacity() < bytes) {
            throw new InputException("the " + what + " buffer of string vector '" + vector.getName() + "' holds "
                    + (buf == null ? 0 : buf.capacity()) + " bytes, fewer than the " + bytes + " its " + rows
                    + " rows need");
        }
        return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(bytes, arena, null);
    }

    private long offsetAt(int i) {
        return large ? offsets.get(Utf8.WORD, (long) i << 3) : offsets.get(Utf8.INT, (long) i << 2);
    }

    /** Rows in the vector (1 for a constant). */
    public int rows() {
        return rows;
    }

    /** Whether every row reads row 0. */
    public boolean constant() {
        return constant;
    }

    /** Whether the vector is a LargeUtf8 one. */
    public boolean large() {
        return large;
    }

    /** The bytes of every row. */
    public MemorySegment data() {
        return data;
    }

    /** Where row {@code row} starts in {@link #data()}. */
    public long start(int row) {
        return offsetAt(constant ? 0 : row);
    }

    /** Where row {@code row} ends in {@link #data()}. */
    public long end(int row) {
        return offsetAt(constant ? 1 : row + 1);
    }

    /** The number of bytes of row {@code row}. */
    public long byteLength(int row) {
        return end(row) - start(row);
    }

    /** Whether any row is null. */
    public boolean hasNulls() {
        return validity != null;
    }

    /** Whether row {@code row} is not null. */
    public boolean isValid(int row) {
        if (validity == null) {
            return true;
        }
        int r = constant ? 0 : row;
        return (validity.get(ValueLayout.JAVA_BYTE, r >>> 3) >> (r & 7) & 1) != 0;
    }

    /** Validity of rows {@code 64w .. 64w+63} as bits (bit set = valid; bits past the last row are 0). */
    public long validWord(int w, int batchRows) {
        long live = (long) batchRows - ((long) w << 6) >= 64 ? -1L : (1L << (batchRows - (w << 6))) - 1;
        if (validity == null) {
            return live;
        }
        if (constant) {
            return isValid(0) ? live : 0;
        }
        long base = (long) w << 3;
        long bytes = validity.byteSize() - base;
        long bits = bytes >= 8 ? validity.get(Utf8.WORD, base) : partial(validity, base, (int) bytes);
        return bits & live;
    }

    private static long partial(MemorySegment s, long at, int n) {
        long w = 0;
        for (int k = 0; k < n; k++) {
            w |= (s.get(ValueLayout.JAVA_BYTE, at + k) & 0xFFL) << (k << 3);
        }
        return w;
    }

    /** Whether every byte of the data buffer up to the last row's end (nulls' bytes too) is ASCII; computed once. */
    public boolean isAllAscii() {
        if (ascii < 0) {
            // From byte 0, not offset[0]: kernels map whole words from the start of the buffer.
            ascii = rows == 0 || Utf8.isAscii(data, 0, offsetAt(rows)) ? 1 : 0;
        }
        return ascii == 1;
    }

    /** The bytes of row {@code row}, copied (slow paths and tests only). */
    public byte[] bytes(int row) {
        return data.asSlice(start(row), byteLength(row)).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Row {@code row} as a String (slow paths and tests only). */
    public String string(int row) {
        return new String(bytes(row), StandardCharsets.UTF_8);
    }

    /**
     * Throws {@link InvalidUtf8Exception} naming {@code name} and the first non-null row that is
     * not valid UTF-8. An all-ASCII batch costs one pass of several vectors per step
     * ({@link Utf8#firstNonAscii}); otherwise only the rows that hold a byte above ASCII are
     * validated one by one, the ASCII rows between them skipped in that same pass.
     */
    public void checkValid(String name) {
        if (rows == 0 || ascii == 1) {
            return;
        }
        long end = offsetAt(rows);
        // From byte 0, as isAllAscii: its answer comes with this pass.
        long high = Utf8.firstNonAscii(data, 0, end);
        ascii = high < 0 ? 1 : 0;
        int r = 0;
        while (high >= 0) {
            // Every row that ends at or before the byte is ASCII, hence valid (offsets never
            // decrease, and no row ends after the last one's end, so r stays below rows).
            while (offsetAt(r + 1) <= high) {
                r++;
            }
            long s = offsetAt(r);
            long e = offsetAt(r + 1);
            if (isValid(r)) {
                long bad = Utf8.firstInvalid(data, s, e);
                if (bad >= 0) {
                    throw new InvalidUtf8Exception(name, r, bad - s, data.get(ValueLayout.JAVA_BYTE, bad));
                }
            }
            r++;
            high = Utf8.firstNonAscii(data, e, end);
        }
    }

    /**
     * Checks a Utf8 or LargeUtf8 vector as {@link #checkValid} does; any other vector passes.
     */
    public static void check(FieldVector vector, String name) {
        if (vector instanceof VarCharVector || vector instanceof LargeVarCharVector) {
            try (Utf8Input in = of(vector)) {
                in.checkValid(name);
            }
        }
    }

    /**
     * Returns {@code result} after checking it as {@link #check}; on invalid UTF-8 it closes
     * {@code result} first. For strings that reach an expression from inside other values
     * (dictionaries, struct fields, list elements), which the batch's column check does not see.
     */
    public static FieldVector checked(FieldVector result, String name) {
        try {
            check(result, name);
            return result;
        } catch (RuntimeException e) {
            result.close();
            throw e;
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
