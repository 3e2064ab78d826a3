package dev.quiver.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Moving the values of fixed-width vectors (1, 2, 4, 8 or 16 bytes a value, or any other width
 * through a byte copy) between rows: gathers by a selection or by indices, and the scatters
 * merges are made of. Validity is not touched here (see {@link PackedBits}).
 *
 * <p>Selections are walked a 64-row word at a time, run of set bits by run: a run of at least
 * {@code BULK_RUN} rows (a whole word of ones, most often) is one bulk copy, a shorter one is
 * copied value by value. Where the hardware compresses vectors in one instruction, dense
 * selections of 1-, 2-, 4- and 8-byte values are packed by {@link VectorCompress} instead
 * ({@code -Dquiver.kernels.vectorCompress=false} keeps the walk run by run).
 */
final class FixedWidthRows {
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    /** Masked vector stores for 4- and 8-byte constants, where the Vector API module is present. */
    private static final boolean VECTOR_FILLS =
            ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && VectorFills.usable();
    /** Turns {@link #VECTOR_COMPRESS} off when {@code false}. */
    static final String VECTOR_COMPRESS_PROPERTY = "quiver.kernels.vectorCompress";
    /**
     * Dense selections packed by {@link VectorCompress}, where the Vector API module is present and
     * {@link #VECTOR_COMPRESS_PROPERTY} does not turn it off, for the widths whose {@code compress}
     * is one instruction here ({@link VectorCompress#fast}).
     */
    private static final boolean VECTOR_COMPRESS = !"false"
                    .equalsIgnoreCase(
                            System.getProperty(VECTOR_COMPRESS_PROPERTY, "true").trim())
            && ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
            && VectorCompress.usable();

    private FixedWidthRows() {}

    /** Copies value {@code from} of {@code src} to value {@code to} of {@code dst}. */
    private static void copy(MemorySegment src, long from, MemorySegment dst, long to, int width) {
        switch (width) {
            case 4 -> dst.set(INT, to << 2, src.get(INT, from << 2));
            case 8 -> dst.set(LONG, to << 3, src.get(LONG, from << 3));
            case 1 -> dst.set(BYTE, to, src.get(BYTE, from));
            case 2 -> dst.set(SHORT, to << 1, src.get(SHORT, from << 1));
            case 16 -> {
                dst.set(LONG, to << 4, src.get(LONG, from << 4));
                dst.set(LONG, (to << 4) + 8, src.get(LONG, (from << 4) + 8));
            }
            default -> MemorySegment.copy(src, from * width, dst, to * width, width);
        }
    }

    /** Copies values {@code from .. from + n - 1} to {@code to .. to + n - 1}. */
    private static void copyRun(MemorySegment src, long from, MemorySegment dst, long to, int n, int width) {
        MemorySegment.copy(src, from * width, dst, to * width, (long) n * width);
    }

    /**
     * A run of at least this many selected rows is one bulk copy; a shorter one is copied value by
     * value ({@link MemorySegment#copy} costs tens of nanoseconds a call, which a sparse selection of
     * single rows paid per row).
     */
    private static final int BULK_RUN = 16;

    /**
     * A selection of fewer than one row in this many is gathered by its rows' positions (a counted
     * loop per value width) rather than walked run by run.
     */
    private static final int SPARSE = 4;

    /** Value {@code k} of {@code dst} := value {@code r} of {@code src}, for the k-th selected row r. */
    static void filter(MemorySegment src, MemorySegment dst, int width, Selection selection) {
        if ((long) selection.count() * SPARSE < selection.rows()) {
            take(src, dst, width, selection.positions());
        } else if (VECTOR_COMPRESS && VectorCompress.fast(width)) {
            long k = VectorCompress.filter(src, dst, width, selection);
            filterRuns(src, dst, width, selection, selection.rows() >>> 6, k);
        } else {
            filterRuns(src, dst, width, selection, 0, 0);
        }
    }

    /**
     * {@link #filter} of the selection's words from {@code fromWord} on, into {@code dst} from value
     * {@code k} on, run by run: a long run is one bulk copy, a short one value by value.
     */
    static void filterRuns(MemorySegment src, MemorySegment dst, int width, Selection selection, int fromWord, long k) {
        for (int wi = fromWord, n = selection.wordCount(); wi < n; wi++) {
            long base = (long) wi << 6;
            for (long w = selection.word(wi); w != 0; ) {
                int start = Long.numberOfTrailingZeros(w);
                int len = Long.numberOfTrailingZeros(~(w >>> start));
                if (len >= BULK_RUN) {
                    copyRun(src, base + start, dst, k, len, width);
                } else {
                    for (int j = 0; j < len; j++) {
                        copy(src, base + start + j, dst, k + j, width);
                    }
                }
                k += len;
                w = start + len >= 64 ? 0 : w & (-1L << (start + len));
            }
        }
    }

    /** Value {@code k} of {@code dst} := value {@code indices[k]} of {@code src} (indices already checked). */
    static void take(MemorySegment src, MemorySegment dst, int width, int[] indices) {
        // The common widths a loop each, the value moved straight (a switch per value costs a call).
        switch (width) {
            case 8 -> {
                for (int k = 0; k < indices.length; k++) {
                    dst.setAtIndex(LONG, k, src.getAtIndex(LONG, indices[k]));
                }
            }
            case 4 -> {
                for (int k = 0; k < indices.length; k++) {
                    dst.setAtIndex(INT, k, src.getAtIndex(INT, indices[k]));
                }
            }
            default -> {
                for (int k = 0; k < indices.length; k++) {
                    copy(src, indices[k], dst, k, width);
                }
            }
        }
    }

    /**
     * Value {@code r} of {@code dst} := value {@code r} of {@code src} ({@code compact}: value
     * {@code k}, for the k-th selected row), for every row r {@code selection} selects.
     */
    static void scatter(MemorySegment src, MemorySegment dst, int width, Selection selection, boolean compact) {
        long k = 0;
        for (int wi = 0, n = selection.wordCount(); wi < n; wi++) {
            long base = (long) wi << 6;
            for (long w = selection.word(wi); w != 0; ) {
                int start = Long.numberOfTrailingZeros(w);
                int len = Long.numberOfTrailingZeros(~(w >>> start));
                long first = base + start;
                long from = compact ? k : first;
                if (len >= BULK_RUN) {
                    copyRun(src, from, dst, first, len, width);
                } else {
                    for (int j = 0; j < len; j++) {
                        copy(src, from + j, dst, first + j, width);
                    }
                }
                k += len;
                w = start + len >= 64 ? 0 : w & (-1L << (start + len));
            }
        }
    }

    /**
     * Value {@code r} of {@code dst} := the first value of {@code constant}, for every row r
     * {@code selection} selects. The hot path of CASE with constant branches, so the common
     * widths get a loop each, with the constant in a register (about 15% faster than one loop
     * that switches on the width per row).
     */
    static void fill(MemorySegment constant, MemorySegment dst, int width, Selection selection) {
        switch (width) {
            case 1 -> fill8(constant.get(BYTE, 0), dst, selection);
            case 2 -> fill16(constant.get(SHORT, 0), dst, selection);
            case 4 -> fill32(constant.get(INT, 0), dst, selection);
            case 8 -> fill64(constant.get(LONG, 0), dst, selection);
            case 16 -> fill128(constant.get(LONG, 0), constant.get(LONG, 8), dst, selection);
            default -> {
                for (int wi = 0, n = selection.wordCount(); wi < n; wi++) {
                    long base = (long) wi << 6;
                    for (long w = selection.word(wi); w != 0; w &= w - 1) {
                        MemorySegment.copy(constant, 0, dst, (base + Long.numberOfTrailingZeros(w)) * width, width);
                    }
                }
            }
        }
    }

    private static void fill8(byte c, MemorySegment dst, Selection selection) {
        for (int wi = 0, n = selection.wordCount(); wi < n; wi++) {
            long w = selection.word(wi);
            long base = (long) wi << 6;
            if (w == -1L) {
                for (long r = base; r < base + 64; r++) {
                    dst.set(BYTE, r, c);
                }
                continue;
            }
            for (; w != 0; w &= w - 1) {
                dst.set(BYTE, base + Long.numberOfTrailingZeros(w), c);
            }
        }
    }

    private static void fill16(short c, MemorySegment dst, Selection selection) {
        for (int wi = 0, n = selection.wordCount(); wi < n; wi++) {
            long w = selection.word(wi);
            long base = (long) wi << 6;
            if (w == -1L) {
                for (long r = base; r < base + 64; r++) {
                    dst.set(SHORT, r << 1, c);
                }
                continue;
            }
            for (; w != 0; w &= w - 1) {
                dst.set(SHORT, (base + Long.numberOfTrailingZeros(w)) << 1, c);
            }
        }
    }

    private static void fill32(int c, MemorySegment dst, Selection selection) {
        int done = VECTOR_FILLS ? VectorFills.fill32(c, dst, selection) : 0;
        for (int wi = done, n = selection.wordCount(); wi < n; wi++) {
            long w = selection.word(wi);
            long base = (long) wi << 6;
            if (w == -1L) {
                for (long r = base; r < base + 64; r++) {
                    dst.set(INT, r << 2, c);
                }
                continue;
            }
            for (; w != 0; w &= w - 1) {
                dst.set(INT, (base + Long.numberOfTrailingZeros(w)) << 2, c);
            }
        }
    }

    private static void fill64(long c, MemorySegment dst, Selection selection) {
        int done = VECTOR_FILLS ? VectorFills.fill64(c, dst, selection) : 0;
        for (int wi = done, n = selection.wordCount(); wi < n; wi++) {
            long w = selection.word(wi);
            long base = (long) wi << 6;
            if (w == -1L) {
                for (long r = base; r < base + 64; r++) {
                    dst.set(LONG, r << 3, c);
                }
                continue;
            }
            for (; w != 0; w &= w - 1) {
                dst.set(LONG, (base + Long.numberOfTrailingZeros(w)) << 3, c);
            }
        }
    }

    private static void fill128(long lo, long hi, MemorySegment dst, Selection selection) {
        for (int wi = 0, n = selection.wordCount(); wi < n; wi++) {
            long base = (long) wi << 6;
            for (long w = selection.word(wi); w != 0; w &= w - 1) {
                long at = (base + Long.numberOfTrailingZeros(w)) << 4;
                dst.set(LONG, at, lo);
                dst.set(LONG, at + 8, hi);
            }
        }
    }
}
