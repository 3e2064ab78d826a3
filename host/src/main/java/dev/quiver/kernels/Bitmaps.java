package dev.quiver.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Arrow bitmaps (validity, and the values of Boolean vectors) read and written 64 rows at a
 * time: word {@code w} holds rows {@code 64w .. 64w+63}, row {@code 64w+j} in bit {@code j}
 * (Arrow's LSB-first bit order, read little-endian).
 *
 * <p>Buffers are read through bounds-checked {@link MemorySegment} views ({@link #view}) that
 * alias the vector's memory. A view is a local of one kernel call and never outlives the
 * vector it aliases; the kernels never store one.
 */
final class Bitmaps {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private Bitmaps() {}

    /** A bounds-checked view of {@code buf}'s bytes (its whole capacity); empty for a missing or empty buffer. */
    static MemorySegment view(ArrowBuf buf) {
        if (buf == null || buf.capacity() == 0) {
            return MemorySegment.NULL;
        }
        // The one place a buffer's address becomes a segment: bounded by the buffer's capacity.
        return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(buf.capacity());
    }

    /** Words a bitmap of {@code rows} rows has. */
    static int words(int rows) {
        return (rows + 63) >>> 6;
    }

    /** The bits of word {@code w} that stand for rows below {@code rows}. */
    static long liveMask(int w, int rows) {
        int live = rows - (w << 6);
        return live >= 64 ? -1L : (1L << live) - 1;
    }

    /** Word {@code w} of {@code bits}; bytes past the end of the segment read as zero. */
    static long word(MemorySegment bits, int w) {
        long off = (long) w << 3;
        long size = bits.byteSize();
        if (off + 8 <= size) {
            return bits.get(WORD, off);
        }
        long v = 0;
        for (long b = off; b < size && b < off + 8; b++) {
            v |= (bits.get(ValueLayout.JAVA_BYTE, b) & 0xFFL) << ((b - off) << 3);
        }
        return v;
    }

    /**
     * Writes word {@code w} of a bitmap of {@code rows} rows. {@code v} must have no bits at or
     * past {@code rows}; only the bytes a bitmap of {@code rows} rows has are required to exist.
     */
    static void setWord(MemorySegment bits, int w, long v, int rows) {
        long off = (long) w << 3;
        if (off + 8 <= bits.byteSize()) {
            bits.set(WORD, off, v);
            return;
        }
        long end = Math.min(off + 8, ((long) rows + 7) >>> 3);
        for (long b = off; b < end; b++) {
            bits.set(ValueLayout.JAVA_BYTE, b, (byte) (v >>> ((b - off) << 3)));
        }
    }

    /** Words {@code first .. first+count-1} of {@code bits} into {@code dst[0 .. count-1]}, as {@link #word} reads them. */
    static void words(MemorySegment bits, int first, int count, long[] dst) {
        long off = (long) first << 3;
        if (off + ((long) count << 3) <= bits.byteSize()) {
            MemorySegment.copy(bits, WORD, off, dst, 0, count);
            return;
        }
        for (int k = 0; k < count; k++) {
            dst[k] = word(bits, first + k);
        }
    }

    /** Words {@code first .. first+count-1} of a bitmap of {@code rows} rows from {@code src}, as {@link #setWord} writes them. */
    static void setWords(MemorySegment bits, int first, int count, long[] src, int rows) {
        long off = (long) first << 3;
        if (off + ((long) count << 3) <= bits.byteSize()) {
            MemorySegment.copy(src, 0, bits, WORD, off, count);
            return;
        }
        for (int k = 0; k < count; k++) {
            setWord(bits, first + k, src[k], rows);
        }
    }

    /** Whether row {@code row} is set. */
    static boolean get(MemorySegment bits, int row) {
        return (bits.get(ValueLayout.JAVA_BYTE, row >>> 3) & (1 << (row & 7))) != 0;
    }

    /** Clears row {@code row}. */
    static void clear(MemorySegment bits, int row) {
        long b = row >>> 3;
        bits.set(ValueLayout.JAVA_BYTE, b, (byte) (bits.get(ValueLayout.JAVA_BYTE, b) & ~(1 << (row & 7))));
    }
}
