package dev.quiver.kernels;

import dev.quiver.strings.Utf8;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A byte string to search for, prepared once (per query for a literal, per batch for a constant
 * argument): its bytes as little-endian words with masks, and its first and last byte spread
 * over a word for the SWAR candidate filter. A byte match in valid UTF-8 is a character match,
 * since UTF-8 is self-synchronizing, so every search here works on the bytes.
 *
 * <p>{@link #find} tests eight start positions per step: a position is a candidate when the
 * needle's first byte is there and its last byte where it would end (the zero-byte trick; a
 * few false positives, never a miss), and each candidate is then compared in full.
 */
public final class Needle {
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long HIGHS = 0x8080_8080_8080_8080L;

    private final byte[] bytes;
    private final long[] words;
    private final long[] masks;
    private final long firstBytes;
    private final long lastBytes;

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
        firstBytes = n == 0 ? 0 : (bytes[0] & 0xFFL) * ONES;
        lastBytes = n == 0 ? 0 : (bytes[n - 1] & 0xFFL) * ONES;
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
     * Bit 7 of byte {@code k} set when {@code p + k} may start the needle: its first byte at
     * {@code p + k} and its last at {@code p + k + length() - 1}. Reads eight bytes at {@code p}
     * and at {@code p + length() - 1}; the caller ensures both words are inside {@code d}.
     */
    long candidates(MemorySegment d, long p) {
        long a = d.get(Utf8.WORD, p) ^ firstBytes;
        long b = d.get(Utf8.WORD, p + bytes.length - 1) ^ lastBytes;
        long x = a | b;
        return (x - ONES) & ~x & HIGHS;
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
        // Whole words are read at p and at p + n - 1: stay where both lie inside the segment.
        long fastEnd = Math.min(lastStart - 7, d.byteSize() - n - 7);
        long p = from;
        for (; p <= fastEnd; p += 8) {
            for (long c = candidates(d, p); c != 0; c &= c - 1) {
                long q = p + (Long.numberOfTrailingZeros(c) >>> 3);
                if (at(d, q)) {
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
        byte first = nb.get(java.lang.foreign.ValueLayout.JAVA_BYTE, ns);
        for (long p = from; p + nl <= to; p++) {
            if (d.get(java.lang.foreign.ValueLayout.JAVA_BYTE, p) == first && ByteColumn.equal(d, p, nb, ns, nl)) {
                return p;
            }
        }
        return -1;
    }
}
