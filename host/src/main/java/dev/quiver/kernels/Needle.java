package dev.quiver.kernels;

import dev.quiver.strings.Utf8;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * A byte string to search for, prepared once (per query for a literal, per batch for a constant
 * argument): its bytes as little-endian words with masks, and its first and last byte spread
 * over a word for the SWAR candidate filter. A byte match in valid UTF-8 is a character match,
 * since UTF-8 is self-synchronizing, so every search here works on the bytes.
 *
 * <p>{@link #find} tests eight start positions per step with an exact SWAR byte comparison of
 * four of the needle's bytes: a needle of up to 4 bytes is matched outright, a longer one's
 * candidates (its first two and last two bytes in place) are then compared in full.
 */
public final class Needle {
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long LOW7 = 0x7F7F_7F7F_7F7F_7F7FL;
    private static final long HIGHS = 0x8080_8080_8080_8080L;
    /** The widest byte vector the CPU has (64 lanes with AVX-512, 32 with AVX2). */
    private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED;

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final byte[] bytes;
    private final long[] words;
    private final long[] masks;
    /**
     * Four byte positions of the needle are tested per step: 0, 1, {@code tail}, {@code tail + 1}
     * (all of a needle of up to 4 bytes, with {@code tail = 2}; else its first two and last two).
     * Their bytes in every byte of a word, and per position a mask that is 0 where the needle is
     * too short to have it (the comparison then always passes).
     */
    private final int tail;

    private final long b0;
    private final long b1;
    private final long b2;
    private final long b3;
    private final long m1;
    private final long m2;
    private final long m3;
    /** Whether the four positions cover the whole needle (at most 4 bytes): a candidate is then a match. */
    private final boolean exact;
    /** Where the needle's last byte is, and that byte in every byte of a word. */
    private final int lastAt;

    private final long last;

    private Needle(byte[] bytes) {
        this.bytes = bytes;
        int n = bytes.length;
        words = new long[(n + 7) >>> 3];
        masks = new long[words.length];
        for (int k = 0; k < n; k++) {
            int shift = (k & 7) << 3;
            words[k >>> 3] |= (bytes[k] & 0xFFL) << shift;
            masks[k >>> 3] |= 0xFFL << shift;
        }
        exact = n <= 4;
        tail = exact ? 2 : n - 2;
        b0 = n > 0 ? (bytes[0] & 0xFFL) * ONES : 0;
        b1 = n > 1 ? (bytes[1] & 0xFFL) * ONES : 0;
        b2 = n > tail ? (bytes[tail] & 0xFFL) * ONES : 0;
        b3 = n > tail + 1 ? (bytes[tail + 1] & 0xFFL) * ONES : 0;
        m1 = n > 1 ? -1L : 0;
        m2 = n > tail ? -1L : 0;
        m3 = n > tail + 1 ? -1L : 0;
        lastAt = Math.max(0, n - 1);
        last = n > 0 ? (bytes[lastAt] & 0xFFL) * ONES : 0;
    }

    /** A needle of {@code bytes} (copied). */
    public static Needle of(byte[] bytes) {
        return new Needle(Objects.requireNonNull(bytes, "bytes is null").clone());
    }

    /** A needle of the bytes {@code [from, to)} of {@code d} (copied). */
    public static Needle of(MemorySegment d, long from, long to) {
        return new Needle(d.asSlice(from, to - from).toArray(ValueLayout.JAVA_BYTE));
    }

    /** Its length in bytes. */
    public int length() {
        return bytes.length;
    }

    /** Its bytes (a copy). */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Whether the needle's bytes are at {@code at} of {@code d}; the caller ensures {@code at + length() <= d.byteSize()}. */
    public boolean at(MemorySegment d, long at) {
        long size = d.byteSize();
        long[] w = words;
        for (int k = 0; k < w.length; k++) {
            long pos = at + ((long) k << 3);
            long x = pos + 8 <= size ? d.get(Utf8.WORD, pos) : partial(d, pos, Math.min(8, bytes.length - (k << 3)));
            if ((x & masks[k]) != w[k]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Bit 7 of byte {@code k} set when {@code p + k} may start the needle: its first and last
     * bytes are in place (two words and the zero-byte trick: a few false positives, never a
     * miss). Reads words up to {@code p + }{@link #reach()}; the caller ensures
     * {@code p + reach() + 8 <= d.byteSize()}. Straight-line code, so the scanning loop unrolls;
     * pass the rare non-zero result to {@link #confirm}.
     */
    long candidates(MemorySegment d, long p) {
        long x = (d.get(Utf8.WORD, p) ^ b0) | (d.get(Utf8.WORD, p + lastAt) ^ last);
        return (x - ONES) & ~x & HIGHS;
    }

    /**
     * The candidates {@code c} of {@link #candidates} at {@code p} that also have the needle's
     * bytes 1, {@code tail} and {@code tail + 1} in place (an exact SWAR zero-byte test): for a
     * needle of up to 4 bytes ({@link #exact}) exactly its matches; otherwise still candidates.
     */
    long confirm(MemorySegment d, long p, long c) {
        long q = p + tail;
        return c
                & zeros(d.get(Utf8.WORD, p) ^ b0)
                & zeros((d.get(Utf8.WORD, p + 1) ^ b1) & m1)
                & zeros((d.get(Utf8.WORD, q) ^ b2) & m2)
                & zeros((d.get(Utf8.WORD, q + 1) ^ b3) & m3);
    }

    /** The last byte offset from a start position that {@link #candidates} and {@link #confirm} read a word at. */
    long reach() {
        return Math.max(tail + 1, lastAt);
    }

    /** Whether every candidate of {@link #candidates} is a match (needles of up to 4 bytes). */
    boolean exact() {
        return exact;
    }

    /** Bit 7 set in each byte of {@code x} that is 0, and in no other. */
    private static long zeros(long x) {
        return ~(((x & LOW7) + LOW7) | x | LOW7);
    }

    /**
     * Where the needle first occurs entirely inside {@code [from, to)} of {@code d}, or -1. An
     * empty needle occurs at {@code from}.
     */
    public long find(MemorySegment d, long from, long to) {
        int n = bytes.length;
        if (n == 0) {
            return from <= to ? from : -1;
        }
        long lastStart = to - n;
        // Words are read up to p + reach(): stay where they lie inside the segment.
        long fastEnd = Math.min(lastStart - 7, d.byteSize() - reach() - 8);
        long p = from;
        for (; p <= fastEnd; p += 8) {
            long c = candidates(d, p);
            if (c == 0) {
                continue;
            }
            for (c = confirm(d, p, c); c != 0; c &= c - 1) {
                long q = p + (Long.numberOfTrailingZeros(c) >>> 3);
                if (exact || at(d, q)) {
                    return q;
                }
            }
        }
        for (; p <= lastStart; p++) {
            if (d.get(ValueLayout.JAVA_BYTE, p) == bytes[0] && at(d, p)) {
                return p;
            }
        }
        return -1;
    }

    /**
     * Bit {@code j} set when row {@code first + j} of {@code column} (of the {@code count <= 64}
     * rows from {@code first}) contains the needle (not empty). The rows' bytes lie back to back,
     * so one search runs over all of them, eight start positions per step ({@link #candidates},
     * then {@link #confirm} for the rare word with a candidate: exact for needles of up to 4
     * bytes, else each candidate compared in full); only a real occurrence walks the offsets
     * forward to its row, where it counts if it ends inside the row (a needle split across two
     * adjacent rows is no match). The hits stay in a register and the walk never passes the
     * 64 rows, which measured faster than one search over the whole buffer with a bitmap in
     * memory. Null rows may be marked; the caller masks them.
     */
    long searchRows(ByteColumn column, int first, int count) {
        return searchRows(column.data, column, first, count);
    }

    /** {@link #searchRows(ByteColumn, int, int)} over {@code d}, a view of the column's data (a tighter one measured faster). */
    long searchRows(MemorySegment d, ByteColumn column, int first, int count) {
        if (column.constant) {
            throw new IllegalArgumentException("searchRows reads a column, not a constant");
        }
        // The offsets are read directly: this walk is the hot part of a search with many hits.
        MemorySegment offsets = column.offsets;
        boolean large = column.large;
        int len = bytes.length;
        int last = first + count - 1;
        long lastStart = end(offsets, large, last) - len;
        // Words are read up to p + reach(): the fast loop stops where they lie inside the segment.
        long fastEnd = Math.min(lastStart - 7, d.byteSize() - reach() - 8);
        int r = first;
        long rowEnd = end(offsets, large, first);
        long hits = 0;
        long p = end(offsets, large, first - 1);
        for (; p <= fastEnd; p += 8) {
            long c = candidates(d, p);
            if (c == 0) {
                continue;
            }
            for (c = confirm(d, p, c); c != 0; c &= c - 1) {
                long q = p + (Long.numberOfTrailingZeros(c) >>> 3);
                if (exact || at(d, q)) {
                    while (rowEnd <= q) {
                        rowEnd = end(offsets, large, ++r);
                    }
                    if (q + len <= rowEnd) {
                        hits |= 1L << (r - first);
                    }
                }
            }
        }
        for (; p <= lastStart; p++) {
            if (at(d, p)) {
                while (rowEnd <= p) {
                    rowEnd = end(offsets, large, ++r);
                }
                if (p + len <= rowEnd) {
                    hits |= 1L << (r - first);
                }
            }
        }
        return hits;
    }

    /**
     * Bit {@code r % 64} of word {@code r / 64} set when row {@code r} of the {@code rows} rows
     * whose offsets are {@code offsets} contains the needle (not empty). One pass over the whole
     * data buffer with byte vectors ({@link #BYTES}: 64 start positions per step with AVX-512):
     * the first (up to) four bytes of the needle are compared at every position, which is the
     * match itself for a needle of up to 4 bytes (longer needles compare each candidate in
     * full). Only a match walks the offsets forward to its row, where it counts if it ends inside
     * the row (a needle split across two adjacent rows is no match); the rest of that row's
     * positions are then skipped. Null rows may be marked; the caller masks them.
     */
    long[] searchAllRows(MemorySegment d, MemorySegment offsets, boolean large, int rows) {
        long[] hits = new long[(rows + 63) >>> 6];
        int len = bytes.length;
        if (rows == 0 || len == 0) {
            return hits;
        }
        long lastStart = end(offsets, large, rows - 1) - len;
        int k = Math.min(len, 4);
        int lanes = BYTES.length();
        // A step reads lanes bytes at p .. p + k - 1 and may only report starts up to lastStart.
        long vectorEnd = Math.min(lastStart - (lanes - 1), d.byteSize() - lanes - (k - 1));
        byte c0 = bytes[0];
        byte c1 = bytes[Math.min(1, len - 1)];
        byte c2 = bytes[Math.min(2, len - 1)];
        byte c3 = bytes[Math.min(3, len - 1)];
        int r = 0;
        long rowEnd = end(offsets, large, 0);
        long p = end(offsets, large, -1);
        for (; p <= vectorEnd; p += lanes) {
            VectorMask<Byte> m = ByteVector.fromMemorySegment(BYTES, d, p, LE).eq(c0);
            if (k > 1) {
                m = m.and(ByteVector.fromMemorySegment(BYTES, d, p + 1, LE).eq(c1));
            }
            if (k > 2) {
                m = m.and(ByteVector.fromMemorySegment(BYTES, d, p + 2, LE).eq(c2));
            }
            if (k > 3) {
                m = m.and(ByteVector.fromMemorySegment(BYTES, d, p + 3, LE).eq(c3));
            }
            long bits = m.toLong();
            while (bits != 0) {
                long q = p + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                if (len > 4 && !at(d, q)) {
                    continue;
                }
                while (rowEnd <= q) {
                    rowEnd = end(offsets, large, ++r);
                }
                if (q + len <= rowEnd) {
                    hits[r >>> 6] |= 1L << r;
                    long rest = rowEnd - p;
                    bits = rest >= 64 ? 0 : bits & (-1L << rest);
                }
            }
        }
        for (; p <= lastStart; p++) {
            if (d.get(ValueLayout.JAVA_BYTE, p) == c0 && at(d, p)) {
                while (rowEnd <= p) {
                    rowEnd = end(offsets, large, ++r);
                }
                if (p + len <= rowEnd) {
                    hits[r >>> 6] |= 1L << r;
                }
            }
        }
        return hits;
    }

    /** {@link #searchAllRows(MemorySegment, MemorySegment, boolean, int)} over a column's data and offsets. */
    long[] searchAllRows(ByteColumn column, int rows) {
        if (column.constant) {
            throw new IllegalArgumentException("searchAllRows reads a column, not a constant");
        }
        return searchAllRows(column.data, column.offsets, column.large, rows);
    }

    /** Where row {@code row} ends (row -1 ends where row 0 starts). */
    private static long end(MemorySegment offsets, boolean large, int row) {
        return large ? offsets.get(Utf8.WORD, (long) (row + 1) << 3) : offsets.get(Utf8.INT, (long) (row + 1) << 2);
    }

    /** Whether the bytes {@code [from, to)} of {@code d} are exactly the needle. */
    public boolean equalTo(MemorySegment d, long from, long to) {
        return to - from == bytes.length && at(d, from);
    }

    private static long partial(MemorySegment s, long at, int n) {
        long w = 0;
        for (int k = 0; k < n; k++) {
            w |= (s.get(ValueLayout.JAVA_BYTE, at + k) & 0xFFL) << (k << 3);
        }
        return w;
    }

    /** Where the {@code nl} bytes of {@code nb} at {@code ns} first occur in {@code [from, to)} of {@code d}, or -1. */
    public static long indexOf(MemorySegment d, long from, long to, MemorySegment nb, long ns, long nl) {
        if (nl == 0) {
            return from;
        }
        byte first = nb.get(ValueLayout.JAVA_BYTE, ns);
        for (long p = from; p + nl <= to; p++) {
            if (d.get(ValueLayout.JAVA_BYTE, p) == first && ByteColumn.equal(d, p, nb, ns, nl)) {
                return p;
            }
        }
        return -1;
    }
}
