package dev.quiver.strings;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.ResourceException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Writes a Utf8 or LargeUtf8 vector row by row, straight into its Arrow buffers: bytes are
 * appended to the current row, {@link #endRow()} or {@link #nullRow()} closes it and writes its
 * offset. The data buffer grows by doubling, so appending {@code n} bytes in all costs
 * {@code O(n)} whatever the row sizes, and no row is ever a {@code String} or a {@code byte[]}.
 * Kernels that know the size of the result up front (a case mapping of ASCII text is the size
 * of its input) pass it as the hint and never grow.
 *
 * <pre>{@code
 * try (Utf8Output out = Utf8Output.allocate(false, "result", rows, in.data().byteSize(), allocator)) {
 *     for (int r = 0; r < rows; r++) { ... out.append(...); out.endRow(); }
 *     return out.finish();   // the caller owns the vector
 * }
 * }</pre>
 *
 * <p>Close it in every case: before {@link #finish()} closing frees the vector, after it does
 * nothing. Every 64th row closed is a cancellation boundary ({@link Cancellation#check()}), so
 * {@code endRow} and {@code nullRow} may throw a {@code CancelledException}. Use from one thread.
 */
public final class Utf8Output implements AutoCloseable {
    /** A row ended with {@code (row & CHECK_ROWS) == 0} is a cancellation boundary. */
    private static final int CHECK_ROWS = 63;

    private final Arena arena = Arena.ofConfined();
    private final FieldVector vector;
    private final boolean large;
    private final int rows;
    private final MemorySegment offsets;
    private final MemorySegment validity;
    private MemorySegment data;
    private long position;
    private long rowStart;
    private int row;
    private boolean finished;

    private Utf8Output(FieldVector vector, boolean large, int rows, long bytesHint) {
        this.vector = vector;
        this.large = large;
        this.rows = rows;
        try {
            long initial = Math.max(64, bytesHint);
            if (large) {
                ((BaseLargeVariableWidthVector) vector).allocateNew(initial, Math.max(rows, 1));
            } else {
                if (initial > Integer.MAX_VALUE) {
                    throw new ResourceException(
                            "a Utf8 result of " + initial + " bytes does not fit in 2 GiB; use LargeUtf8");
                }
                ((BaseVariableWidthVector) vector).allocateNew(initial, Math.max(rows, 1));
            }
            this.offsets = alias(vector.getOffsetBuffer(), (long) (rows + 1) * (large ? 8 : 4));
            this.validity = alias(vector.getValidityBuffer(), (rows + 7) / 8);
            this.validity.fill((byte) 0);
            aliasData();
            writeOffset(0, 0);
        } catch (RuntimeException e) {
            arena.close();
            vector.close();
            throw e;
        }
    }

    /**
     * A writer of {@code rows} rows into a new vector called {@code name} from {@code allocator};
     * {@code bytesHint} is the expected total of bytes (the data buffer starts there).
     */
    public static Utf8Output allocate(boolean large, String name, int rows, long bytesHint, BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows < 0");
        }
        FieldType type = FieldType.nullable(large ? ArrowType.LargeUtf8.INSTANCE : ArrowType.Utf8.INSTANCE);
        FieldVector v =
                large ? new LargeVarCharVector(name, type, allocator) : new VarCharVector(name, type, allocator);
        return new Utf8Output(v, large, rows, bytesHint);
    }

    private MemorySegment alias(ArrowBuf buf, long bytes) {
        if (buf.capacity() < bytes) {
            throw new IllegalStateException(
                    "a string buffer of " + buf.capacity() + " bytes where " + bytes + " are needed");
        }
        return bytes == 0
                ? MemorySegment.NULL.reinterpret(0, arena, null)
                : MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(bytes, arena, null);
    }

    private void aliasData() {
        ArrowBuf d = vector.getDataBuffer();
        data = MemorySegment.ofAddress(d.memoryAddress()).reinterpret(d.capacity(), arena, null);
    }

    private void writeOffset(int i, long value) {
        if (large) {
            offsets.set(Utf8.WORD, (long) i << 3, value);
        } else {
            offsets.set(Utf8.INT, (long) i << 2, (int) value);
        }
    }

    /**
     * Makes room for {@code more} bytes after the current position; {@link #data()} may be a
     * new segment afterwards.
     */
    public void ensure(long more) {
        long needed = position + more;
        if (needed <= data.byteSize()) {
            return;
        }
        if (!large && needed > Integer.MAX_VALUE) {
            throw new ResourceException("a Utf8 result holds at most 2 GiB of text; this one needs " + needed
                    + " bytes by row " + row + " (use LargeUtf8)");
        }
        long target = Math.max(needed, data.byteSize() * 2);
        if (large) {
            BaseLargeVariableWidthVector v = (BaseLargeVariableWidthVector) vector;
            while (v.getDataBuffer().capacity() < target) {
                v.reallocDataBuffer();
            }
        } else {
            ((BaseVariableWidthVector) vector).reallocDataBuffer(Math.min(target, Integer.MAX_VALUE));
        }
        aliasData();
    }

    /** The data buffer as it is now; write at {@link #position()} after {@link #ensure}, then {@link #advance}. */
    public MemorySegment data() {
        return data;
    }

    /** Where the next byte goes. */
    public long position() {
        return position;
    }

    /** Counts {@code n} bytes written directly into {@link #data()} (after {@link #ensure}). */
    public void advance(long n) {
        position += n;
    }

    /** The row being written. */
    public int row() {
        return row;
    }

    /** Bytes written to the current row so far. */
    public long rowLength() {
        return position - rowStart;
    }

    public void append(byte b) {
        if (position >= data.byteSize()) {
            ensure(1);
        }
        data.set(ValueLayout.JAVA_BYTE, position++, b);
    }

    /** Appends {@code length} bytes of {@code src} from {@code from}. */
    public void append(MemorySegment src, long from, long length) {
        ensure(length);
        MemorySegment.copy(src, from, data, position, length);
        position += length;
    }

    public void append(byte[] src, int from, int length) {
        ensure(length);
        MemorySegment.copy(src, from, data, ValueLayout.JAVA_BYTE, position, length);
        position += length;
    }

    public void append(byte[] src) {
        append(src, 0, src.length);
    }

    /** Appends the bytes of {@code v}. */
    public void append(Utf8View v) {
        append(v.data(), v.start(), v.length());
    }

    /** Appends the bytes {@code [from, to)} of {@code v}. */
    public void append(Utf8View v, int from, int to) {
        if (from < 0 || to > v.length() || from > to) {
            throw new IndexOutOfBoundsException("bytes [" + from + ", " + to + ") of a " + v.length() + "-byte string");
        }
        append(v.data(), v.start() + from, to - from);
    }

    /** Appends the UTF-8 encoding of {@code cp} (a valid code point, not a surrogate). */
    public void appendCodePoint(int cp) {
        if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            throw new IllegalArgumentException("not a Unicode scalar value: 0x" + Integer.toHexString(cp));
        }
        ensure(4);
        MemorySegment d = data;
        long p = position;
        if (cp < 0x80) {
            d.set(ValueLayout.JAVA_BYTE, p, (byte) cp);
            position = p + 1;
        } else if (cp < 0x800) {
            d.set(ValueLayout.JAVA_BYTE, p, (byte) (0xC0 | cp >> 6));
            d.set(ValueLayout.JAVA_BYTE, p + 1, (byte) (0x80 | cp & 0x3F));
            position = p + 2;
        } else if (cp < 0x10000) {
            d.set(ValueLayout.JAVA_BYTE, p, (byte) (0xE0 | cp >> 12));
            d.set(ValueLayout.JAVA_BYTE, p + 1, (byte) (0x80 | cp >> 6 & 0x3F));
            d.set(ValueLayout.JAVA_BYTE, p + 2, (byte) (0x80 | cp & 0x3F));
            position = p + 3;
        } else {
            d.set(ValueLayout.JAVA_BYTE, p, (byte) (0xF0 | cp >> 18));
            d.set(ValueLayout.JAVA_BYTE, p + 1, (byte) (0x80 | cp >> 12 & 0x3F));
            d.set(ValueLayout.JAVA_BYTE, p + 2, (byte) (0x80 | cp >> 6 & 0x3F));
            d.set(ValueLayout.JAVA_BYTE, p + 3, (byte) (0x80 | cp & 0x3F));
            position = p + 4;
        }
    }

    /** Appends a Java string as UTF-8 (slow paths: it encodes through the JDK). */
    public void append(CharSequence s) {
        append(s.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Closes the current row as a value: the bytes appended since the last row. */
    public void endRow() {
        checkRow();
        long i = row;
        validity.set(
                ValueLayout.JAVA_BYTE, i >>> 3, (byte) (validity.get(ValueLayout.JAVA_BYTE, i >>> 3) | 1 << (i & 7)));
        writeOffset(++row, position);
        rowStart = position;
        if ((row & CHECK_ROWS) == 0) {
            Cancellation.check(); // the kernels writing strings row by row reach a boundary every 64 rows
        }
    }

    /** Closes the current row as null, dropping anything appended to it. */
    public void nullRow() {
        checkRow();
        position = rowStart;
        writeOffset(++row, position);
        if ((row & CHECK_ROWS) == 0) {
            Cancellation.check();
        }
    }

    /** Closes {@code n} rows as null. */
    public void nullRows(int n) {
        for (int k = 0; k < n; k++) {
            nullRow();
        }
    }

    private void checkRow() {
        if (row >= rows) {
            throw new IllegalStateException("all " + rows + " rows are written");
        }
    }

    /** The vector, with every row written; the caller owns it. */
    public FieldVector finish() {
        if (row != rows) {
            throw new IllegalStateException(row + " of " + rows + " rows are written");
        }
        finished = true;
        arena.close();
        if (large) {
            ((BaseLargeVariableWidthVector) vector).setLastSet(rows - 1);
        } else {
            ((BaseVariableWidthVector) vector).setLastSet(rows - 1);
        }
        vector.setValueCount(rows);
        return vector;
    }

    @Override
    public void close() {
        if (!finished) {
            finished = true;
            arena.close();
            vector.close();
        }
    }
}
