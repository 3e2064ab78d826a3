package dev.quiver.cpu;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The bits of one vector step in an Arrow bitmap (row {@code r} is bit {@code r & 7} of byte
 * {@code r >> 3}): Boolean arguments and results and the validity bitmap. Called by generated
 * code, one method per lane count so each is a handful of bytecodes the JIT inlines.
 *
 * <p>{@code row} is always a multiple of the lane count (steps start at row 0), so for 8 lanes or
 * more the step's bits are whole bytes and a step reads or writes exactly
 * {@code lanes / 8} bytes; for 2 and 4 lanes they sit inside one byte, which stores update with
 * a read-modify-write (loops are single-threaded). A value holds the step's lane {@code k} in
 * bit {@code k}; bits above the lane count are zero in every value loaded here, and stores
 * ignore them.
 */
public final class LaneBits {
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private LaneBits() {}

    /** All lanes of a step of {@code lanes} rows set. */
    public static long laneMask(int lanes) {
        return lanes >= 64 ? -1L : (1L << lanes) - 1;
    }

    // ---- 2 and 4 lanes: part of one byte

    public static long load2(MemorySegment s, long row) {
        return (s.get(BYTE, row >>> 3) >>> (row & 7)) & 0x3;
    }

    public static long load4(MemorySegment s, long row) {
        return (s.get(BYTE, row >>> 3) >>> (row & 7)) & 0xF;
    }

    public static void store2(MemorySegment s, long row, long bits) {
        storeWithin(s, row, bits, 0x3);
    }

    public static void store4(MemorySegment s, long row, long bits) {
        storeWithin(s, row, bits, 0xF);
    }

    public static void clear2(MemorySegment s, long row, long bits) {
        clearWithin(s, row, bits, 0x3);
    }

    public static void clear4(MemorySegment s, long row, long bits) {
        clearWithin(s, row, bits, 0xF);
    }

    private static void storeWithin(MemorySegment s, long row, long bits, int mask) {
        long at = row >>> 3;
        int shift = (int) (row & 7);
        int old = s.get(BYTE, at);
        s.set(BYTE, at, (byte) ((old & ~(mask << shift)) | (((int) bits & mask) << shift)));
    }

    private static void clearWithin(MemorySegment s, long row, long bits, int mask) {
        long at = row >>> 3;
        s.set(BYTE, at, (byte) (s.get(BYTE, at) & ~(((int) bits & mask) << (row & 7))));
    }

    // ---- 8, 16, 32, 64 lanes: whole bytes

    public static long load8(MemorySegment s, long row) {
        return s.get(BYTE, row >>> 3) & 0xFFL;
    }

    public static long load16(MemorySegment s, long row) {
        return s.get(SHORT, row >>> 3) & 0xFFFFL;
    }

    public static long load32(MemorySegment s, long row) {
        return s.get(INT, row >>> 3) & 0xFFFF_FFFFL;
    }

    public static long load64(MemorySegment s, long row) {
        return s.get(LONG, row >>> 3);
    }

    public static void store8(MemorySegment s, long row, long bits) {
        s.set(BYTE, row >>> 3, (byte) bits);
    }

    public static void store16(MemorySegment s, long row, long bits) {
        s.set(SHORT, row >>> 3, (short) bits);
    }

    public static void store32(MemorySegment s, long row, long bits) {
        s.set(INT, row >>> 3, (int) bits);
    }

    public static void store64(MemorySegment s, long row, long bits) {
        s.set(LONG, row >>> 3, bits);
    }

    public static void clear8(MemorySegment s, long row, long bits) {
        long at = row >>> 3;
        s.set(BYTE, at, (byte) (s.get(BYTE, at) & ~bits));
    }

    public static void clear16(MemorySegment s, long row, long bits) {
        long at = row >>> 3;
        s.set(SHORT, at, (short) (s.get(SHORT, at) & ~bits));
    }

    public static void clear32(MemorySegment s, long row, long bits) {
        long at = row >>> 3;
        s.set(INT, at, (int) (s.get(INT, at) & ~bits));
    }

    public static void clear64(MemorySegment s, long row, long bits) {
        long at = row >>> 3;
        s.set(LONG, at, s.get(LONG, at) & ~bits);
    }

    /** Copies {@code count} bits from bit {@code fromBit} of {@code src} to bit {@code toBit} of {@code dst}, one at a time. */
    static void copyBits(MemorySegment src, long fromBit, MemorySegment dst, long toBit, long count) {
        for (long k = 0; k < count; k++) {
            long sb = fromBit + k, db = toBit + k;
            boolean set = (src.get(BYTE, sb >>> 3) & (1 << (sb & 7))) != 0;
            byte old = dst.get(BYTE, db >>> 3);
            dst.set(BYTE, db >>> 3, (byte) (set ? old | (1 << (db & 7)) : old & ~(1 << (db & 7))));
        }
    }
}
