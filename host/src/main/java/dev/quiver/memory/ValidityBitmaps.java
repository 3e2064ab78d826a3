package dev.quiver.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Word-wise operations on Arrow validity bitmaps (LSB-first bits, bit set = valid).
 */
public final class ValidityBitmaps {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private ValidityBitmaps() {}

    /**
     * Writes into {@code out} the AND of {@code inputs} for {@code rows} rows, 64 rows per
     * step, and returns the number of null rows. An empty {@code inputs} list means every row
     * is valid. Bits past {@code rows} in the last byte are cleared.
     *
     * @param out    at least {@code ceil(rows / 8)} bytes
     * @param inputs bitmaps of at least {@code ceil(rows / 8)} bytes each; inputs without nulls
     *               should be left out rather than passed
     */
    public static long and(MemorySegment out, List<MemorySegment> inputs, long rows) {
        long bytes = VectorView.validityBytes(rows);
        long words = rows >>> 6;
        long set = 0;
        int k = inputs.size();
        for (long w = 0; w < words; w++) {
            long off = w << 3;
            long v = -1L;
            for (int i = 0; i < k; i++) {
                v &= inputs.get(i).get(WORD, off);
            }
            out.set(WORD, off, v);
            set += Long.bitCount(v);
        }
        // The last partial word, a byte at a time: the buffers may end before a whole word.
        for (long b = words << 3; b < bytes; b++) {
            int v = 0xFF;
            for (int i = 0; i < k; i++) {
                v &= inputs.get(i).get(ValueLayout.JAVA_BYTE, b);
            }
            long firstRow = b << 3;
            long live = Math.min(8, rows - firstRow);
            v &= (1 << live) - 1;
            out.set(ValueLayout.JAVA_BYTE, b, (byte) v);
            set += Integer.bitCount(v);
        }
        return rows - set;
    }

    /** Whether row {@code row} is valid in {@code bitmap}. */
    public static boolean isValid(MemorySegment bitmap, long row) {
        return (bitmap.get(ValueLayout.JAVA_BYTE, row >>> 3) & (1 << (row & 7))) != 0;
    }

    /** Sets bit {@code row} of {@code bitmap}. */
    public static void set(MemorySegment bitmap, long row) {
        long b = row >>> 3;
        bitmap.set(ValueLayout.JAVA_BYTE, b, (byte) (bitmap.get(ValueLayout.JAVA_BYTE, b) | (1 << (row & 7))));
    }

    /** Clears bit {@code row} of {@code bitmap}. */
    public static void clear(MemorySegment bitmap, long row) {
        long b = row >>> 3;
        bitmap.set(ValueLayout.JAVA_BYTE, b, (byte) (bitmap.get(ValueLayout.JAVA_BYTE, b) & ~(1 << (row & 7))));
    }

    /** The number of set bits among the first {@code rows} bits of {@code bitmap}. */
    public static long count(MemorySegment bitmap, long rows) {
        long words = rows >>> 6;
        long set = 0;
        for (long w = 0; w < words; w++) {
            set += Long.bitCount(bitmap.get(WORD, w << 3));
        }
        for (long r = words << 6; r < rows; r++) {
            set += isValid(bitmap, r) ? 1 : 0;
        }
        return set;
    }
}
