package dev.quiver.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Moving the values of variable-width vectors (Utf8, Binary with 32-bit offsets; LargeUtf8,
 * LargeBinary with 64-bit offsets) between rows. Each operation is two passes: one sums the
 * bytes the result needs (so its data buffer is allocated once), one copies them and writes
 * the offsets. Validity is not touched here (see {@link PackedBits}).
 */
final class VariableWidthRows {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** The offsets and data of one vector (source or result). */
    record Buffers(MemorySegment offsets, MemorySegment data, boolean large) {
        long offset(long row) {
            return large ? offsets.get(LONG, row << 3) : offsets.get(INT, row << 2);
        }

        void setOffset(long row, long value) {
            if (large) {
                offsets.set(LONG, row << 3, value);
            } else {
                offsets.set(INT, row << 2, (int) value);
            }
        }

        long length(long row) {
            return offset(row + 1) - offset(row);
        }
    }

    private VariableWidthRows() {}

    /**
     * Copies {@code bytes} bytes, for rows written in ascending order: a value of at most 16 bytes
     * (most strings) moves as two longs whenever both buffers have 16 bytes there, spilling
     * past its end into the place of the next row, which is written afterwards. Branch-free for
     * short values of varying length, where {@link MemorySegment#copy} costs several times more.
     */
    static void copyAscending(MemorySegment src, long from, MemorySegment dst, long to, long bytes) {
        // Unsigned: a negative length (broken offsets) takes the checked copy, which rejects it.
        if (Long.compareUnsigned(bytes, 16) <= 0 && from + 16 <= src.byteSize() && to + 16 <= dst.byteSize()) {
            dst.set(LONG, to, src.get(LONG, from));
            dst.set(LONG, to + 8, src.get(LONG, from + 8));
        } else {
            MemorySegment.copy(src, from, dst, to, bytes);
        }
    }

    /** Whether the set bits of a non-zero word are one contiguous run. */
    private static boolean isRun(long w) {
        return ((w + (w & -w)) & w) == 0;
    }

    /** Bytes of the rows {@code selection} selects. */
    static long filterBytes(Buffers src, Selection selection) {
        long total = 0;
        for (int wi = 0, n = selection.wordCount(); wi < n; wi++) {
            long w = selection.word(wi);
            if (w == 0) {
                continue;
            }
            long base = (long) wi << 6;
            if (isRun(w)) {
                long first = base + Long.numberOfTrailingZeros(w);
                total += src.offset(first + Long.bitCount(w)) - src.offset(first);
                continue;
            }
            do {
                total += src.length(base + Long.numberOfTrailingZeros(w));
                w &= w - 1;
            } while (w != 0);
        }
        return total;
    }

    /** The selected rows of {@code src}, in order, into {@code dst} (whose data holds {@link #filterBytes}). */
    static void filter(Buffers src, Buffers dst, Selection selection) {
        long k = 0;
        long at = 0;
        dst.setOffset(0, 0);
        for (int wi = 0, n = selection.wordCount(); wi < n; wi++) {
            long w = selection.word(wi);
            if (w == 0) {
                continue;
            }
            long base = (long) wi << 6;
            if (isRun(w)) {
                long first = base + Long.numberOfTrailingZeros(w);
                int c = Long.bitCount(w);
                long start = src.offset(first);
                long shift = at - start;
                for (int j = 1; j <= c; j++) {
                    dst.setOffset(k + j, src.offset(first + j) + shift);
                }
                long bytes = src.offset(first + c) - start;
                MemorySegment.copy(src.data(), start, dst.data(), at, bytes);
                at += bytes;
                k += c;
                continue;
            }
            do {
                long r = base + Long.numberOfTrailingZeros(w);
                long start = src.offset(r);
                long bytes = src.offset(r + 1) - start;
                copyAscending(src.data(), start, dst.data(), at, bytes);
                at += bytes;
                dst.setOffset(++k, at);
                w &= w - 1;
            } while (w != 0);
        }
    }

    /** Bytes of rows {@code indices}. */
    static long takeBytes(Buffers src, int[] indices) {
        long total = 0;
        for (int r : indices) {
            total += src.length(r);
        }
        return total;
    }

    /** Rows {@code indices} of {@code src}, in that order, into {@code dst} (whose data holds {@link #takeBytes}). */
    static void take(Buffers src, Buffers dst, int[] indices) {
        long at = 0;
        dst.setOffset(0, 0);
        for (int k = 0; k < indices.length; k++) {
            long start = src.offset(indices[k]);
            long bytes = src.offset(indices[k] + 1L) - start;
            copyAscending(src.data(), start, dst.data(), at, bytes);
            at += bytes;
            dst.setOffset(k + 1, at);
        }
    }

    /** One input of {@link #merge}: the rows it covers, read from row r, row k (compact) or row 0 (constant) of {@code src}. */
    record Piece(Selection rows, Buffers src, boolean compact, boolean constant) {
        /** Bytes this piece contributes. */
        long bytes() {
            if (constant) {
                return src.length(0) * rows.count();
            }
            if (compact) {
                return src.offset(rows.count()) - src.offset(0);
            }
            return filterBytes(src, rows);
        }
    }

    /**
     * Writes all {@code rows} rows of {@code dst} (whose data holds the pieces' {@link Piece#bytes})
     * in ascending order: each 64-row word first notes which piece owns each of its rows and from
     * which source row, then copies them; rows no piece covers get no bytes.
     */
    static void merge(Piece[] pieces, Buffers dst, int rows) {
        int[] owner = new int[64];
        long[] from = new long[64];
        long[] ranks = new long[pieces.length];
        long at = 0;
        dst.setOffset(0, 0);
        for (int wi = 0, words = (rows + 63) >>> 6; wi < words; wi++) {
            long base = (long) wi << 6;
            long covered = 0;
            for (int p = 0; p < pieces.length; p++) {
                Piece piece = pieces[p];
                long w = piece.rows().word(wi);
                covered |= w;
                for (; w != 0; w &= w - 1) {
                    int j = Long.numberOfTrailingZeros(w);
                    owner[j] = p;
                    from[j] = piece.constant() ? 0 : piece.compact() ? ranks[p]++ : base + j;
                }
            }
            int live = (int) Math.min(64, rows - base);
            for (int j = 0; j < live; j++) {
                if ((covered & (1L << j)) != 0) {
                    Buffers src = pieces[owner[j]].src();
                    long start = src.offset(from[j]);
                    long bytes = src.offset(from[j] + 1) - start;
                    copyAscending(src.data(), start, dst.data(), at, bytes);
                    at += bytes;
                }
                dst.setOffset(base + j + 1, at);
            }
        }
    }
}
