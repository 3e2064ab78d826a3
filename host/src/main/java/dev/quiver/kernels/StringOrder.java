package dev.quiver.kernels;

import dev.quiver.types.DataType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The order of Utf8, LargeUtf8 and Binary rows for the comparison kernels ({@link ComparisonKernels.Order}),
 * 64 rows per word, read where the bytes lie: in the Arrow offsets and data buffers, with no
 * {@code String}, {@code byte[]} or segment per row. A first offset above zero (a slice) is read as
 * any other.
 *
 * <ul>
 * <li>Equality looks at the lengths first: rows of another length are unequal without a byte
 * read. With the Vector API, the lengths of 64 rows are compared in a few vector steps over the
 * offsets ({@link StringLengths}), and only the rows whose length matches are visited. Rows of
 * the same length compare eight bytes per step (a row's last, partial word masked to its bytes;
 * a key of at most eight bytes is one masked word).
 * <li>Ordering compares eight bytes per step too, each word read as a big-endian unsigned number,
 * so the first word that differs orders the rows as their first differing byte does (unsigned
 * bytes: for UTF-8 that is code point order); when the shorter row is a prefix of the longer,
 * the shorter is less.
 * <li>A scalar side is turned into its length and words once, before the loop.
 * </ul>
 *
 * Only for equality, {@code lt} is left zero: {@code =}, {@code <>} and the DISTINCT FROM forms
 * read only {@code eq}.
 */
final class StringOrder {
    private StringOrder() {}

    /**
     * The order of array {@code a} against array or scalar {@code b}; {@code equalityOnly}: only {@code eq} is
     * computed; {@code vectorApi}: lengths are compared with the Vector API (which must then be present).
     */
    static ComparisonKernels.Order of(Operand a, Operand b, boolean equalityOnly, boolean vectorApi) {
        Side x = Side.of(a);
        if (b.isScalar()) {
            Object v = b.scalar.value();
            byte[] bytes = v instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) v;
            Key key = new Key(bytes);
            return equalityOnly
                    ? (ComparisonKernels.MaskedOrder)
                            (from, n, lt, eq, needed) -> equalToKey(x, key, from, n, eq, vectorApi, needed)
                    : (from, n, lt, eq) -> orderToKey(x, key, from, n, lt, eq);
        }
        Side y = Side.of(b);
        return equalityOnly
                ? (from, n, lt, eq) -> equalRows(x, y, from, n, eq, vectorApi)
                : (from, n, lt, eq) -> orderRows(x, y, from, n, lt, eq);
    }

    /** An array operand's views: row {@code r} is the bytes {@code [start(r), start(r + 1))} of {@code data}. */
    private record Side(MemorySegment data, MemorySegment offsets, boolean large) {
        static Side of(Operand o) {
            return new Side(o.data(), o.offsets(), o.type instanceof DataType.Utf8 u && u.large());
        }

        long start(int row) {
            return large
                    ? offsets.get(PredicateOutput.WORD, (long) row << 3)
                    : offsets.get(PredicateOutput.INT, (long) row << 2);
        }
    }

    /** A scalar's bytes as little-endian words (zero past its end), and the same words as big-endian numbers. */
    private static final class Key {
        final long length;
        final long[] words;
        final long[] ordered;

        Key(byte[] bytes) {
            length = bytes.length;
            int n = (bytes.length + 7) >>> 3;
            words = new long[Math.max(1, n)]; // an empty key is one word of zeros
            ordered = new long[words.length];
            for (int i = 0; i < bytes.length; i++) {
                words[i >>> 3] |= (bytes[i] & 0xFFL) << ((i & 7) << 3);
            }
            for (int k = 0; k < words.length; k++) {
                ordered[k] = Long.reverseBytes(words[k]);
            }
        }
    }

    /** A word with at most this many rows wanted reads their lengths one by one. */
    private static final int FEW_ROWS = 4;

    /** {@code needed}: null, or the rows of each word whose bit is wanted (the others may be anything). */
    private static void equalToKey(Side x, Key key, int from, int n, long[] eq, boolean vectorApi, long[] needed) {
        long len = key.length;
        long[] words = key.words;
        MemorySegment d = x.data;
        if (vectorApi || needed != null) {
            // The lengths of 64 rows in a few vector steps; bytes are read only where they match.
            long mask = ByteColumn.lowBytes((int) Math.min(8, len));
            long lastWord = d.byteSize() - 8;
            for (int k = 0; k < Bitmaps.words(n); k++) {
                int first = from + (k << 6);
                long want = needed == null ? -1L : needed[k];
                if (want == 0) {
                    eq[k] = 0;
                    continue;
                }
                int count = Math.min(64, n - (k << 6));
                // A few wanted rows: their lengths one by one, not the word's in vector steps.
                long sameLength = vectorApi && Long.bitCount(want) > FEW_ROWS
                        ? StringLengths.equalTo(x.offsets, x.large, first, count, len)
                        : lengthsEqual(x, first, count, len, want);
                long e = 0;
                for (long m = sameLength & want; m != 0; m &= m - 1) {
                    int j = Long.numberOfTrailingZeros(m);
                    long start = x.start(first + j);
                    boolean hit = len <= 8
                            ? ((start <= lastWord ? d.get(PredicateOutput.WORD, start) : tail(d, start, start + len))
                                            & mask)
                                    == words[0]
                            : equalsWords(d, start, len, words);
                    e |= (hit ? 1L : 0L) << j;
                }
                eq[k] = e;
            }
            return;
        }
        long start = x.start(from);
        if (len <= 8) {
            // One word: the row's first eight bytes, masked to the key's length, without a branch on the data.
            long word = words[0];
            long mask = ByteColumn.lowBytes((int) len);
            long lastWord = d.byteSize() - 8; // a row starting past it is read byte by byte
            for (int k = 0; k < Bitmaps.words(n); k++) {
                long e = 0;
                int end = Math.min(64, n - (k << 6));
                for (int j = 0; j < end; j++) {
                    long next = x.start(from + (k << 6) + j + 1);
                    long w = start <= lastWord ? d.get(PredicateOutput.WORD, start) : tail(d, start, next);
                    boolean hit = (next - start == len) & ((w & mask) == word);
                    e |= (hit ? 1L : 0L) << j;
                    start = next;
                }
                eq[k] = e;
            }
            return;
        }
        for (int k = 0; k < Bitmaps.words(n); k++) {
            long e = 0;
            int end = Math.min(64, n - (k << 6));
            for (int j = 0; j < end; j++) {
                long next = x.start(from + (k << 6) + j + 1);
                if (next - start == len && equalsWords(d, start, len, words)) {
                    e |= 1L << j;
                }
                start = next;
            }
            eq[k] = e;
        }
    }

    /** Bit {@code j}: row {@code row + j} of {@code x} ({@code j < n}, only where {@code want} is set) has {@code len} bytes. */
    private static long lengthsEqual(Side x, int row, int n, long len, long want) {
        long bits = 0;
        for (long m = want & (n >= 64 ? -1L : (1L << n) - 1); m != 0; m &= m - 1) {
            int j = Long.numberOfTrailingZeros(m);
            bits |= (x.start(row + j + 1) - x.start(row + j) == len ? 1L : 0L) << j;
        }
        return bits;
    }

    /** The bytes of {@code [start, min(end, start + 8))} as a little-endian word, read one by one (the end of the buffer). */
    private static long tail(MemorySegment d, long start, long end) {
        long w = 0;
        for (long p = start; p < Math.min(end, start + 8); p++) {
            w |= (d.get(ValueLayout.JAVA_BYTE, p) & 0xFFL) << ((p - start) << 3);
        }
        return w;
    }

    /** The {@code n <= 8} bytes at {@code at} as a little-endian word (zero above): a whole word where the buffer has one. */
    private static long word(MemorySegment d, long at, int n) {
        if (at + 8 <= d.byteSize()) {
            return d.get(PredicateOutput.WORD, at) & ByteColumn.lowBytes(n);
        }
        return tail(d, at, at + n);
    }

    /** Whether the {@code len} bytes at {@code at} are those of {@code words}. */
    private static boolean equalsWords(MemorySegment d, long at, long len, long[] words) {
        int w = 0;
        long p = at;
        long end = at + len;
        for (; p + 8 <= end; p += 8, w++) {
            if (d.get(PredicateOutput.WORD, p) != words[w]) {
                return false;
            }
        }
        return p == end || word(d, p, (int) (end - p)) == words[w];
    }

    private static void orderToKey(Side x, Key key, int from, int n, long[] lt, long[] eq) {
        if (key.length <= 8) {
            orderToShortKey(x, key, from, n, lt, eq);
            return;
        }
        long start = x.start(from);
        for (int k = 0; k < Bitmaps.words(n); k++) {
            long l = 0;
            long e = 0;
            int end = Math.min(64, n - (k << 6));
            for (int j = 0; j < end; j++) {
                long next = x.start(from + (k << 6) + j + 1);
                int c = compareToKey(x.data, start, next - start, key);
                l |= (c < 0 ? 1L : 0L) << j;
                e |= (c == 0 ? 1L : 0L) << j;
                start = next;
            }
            lt[k] = l;
            eq[k] = e;
        }
    }

    /** {@link #orderToKey} for a key of at most eight bytes: one word of each side decides, or else the lengths. */
    private static void orderToShortKey(Side x, Key key, int from, int n, long[] lt, long[] eq) {
        MemorySegment d = x.data;
        long len = key.length;
        long word = key.words[0];
        long lastWord = d.byteSize() - 8;
        long start = x.start(from);
        for (int k = 0; k < Bitmaps.words(n); k++) {
            long l = 0;
            long e = 0;
            int end = Math.min(64, n - (k << 6));
            for (int j = 0; j < end; j++) {
                long next = x.start(from + (k << 6) + j + 1);
                long w = start <= lastWord ? d.get(PredicateOutput.WORD, start) : tail(d, start, next);
                long common = ByteColumn.lowBytes((int) Math.min(next - start, len));
                long a = Long.reverseBytes(w & common);
                long b = Long.reverseBytes(word & common);
                int c = a != b ? Long.compareUnsigned(a, b) : Long.compare(next - start, len);
                l |= (c < 0 ? 1L : 0L) << j;
                e |= (c == 0 ? 1L : 0L) << j;
                start = next;
            }
            lt[k] = l;
            eq[k] = e;
        }
    }

    /** The order of the {@code len} bytes at {@code at} against the key's. */
    private static int compareToKey(MemorySegment d, long at, long len, Key key) {
        long common = Math.min(len, key.length);
        int w = 0;
        long p = 0;
        for (; p + 8 <= common; p += 8, w++) {
            long a = Long.reverseBytes(d.get(PredicateOutput.WORD, at + p));
            if (a != key.ordered[w]) {
                return Long.compareUnsigned(a, key.ordered[w]);
            }
        }
        if (p < common) {
            int r = (int) (common - p);
            long a = Long.reverseBytes(word(d, at + p, r));
            long b = Long.reverseBytes(key.words[w] & ByteColumn.lowBytes(r));
            if (a != b) {
                return Long.compareUnsigned(a, b);
            }
        }
        return Long.compare(len, key.length);
    }

    private static void equalRows(Side x, Side y, int from, int n, long[] eq, boolean vectorApi) {
        if (vectorApi) {
            for (int k = 0; k < Bitmaps.words(n); k++) {
                int first = from + (k << 6);
                long e = 0;
                for (long m = StringLengths.equalAcross(
                                x.offsets, x.large, y.offsets, y.large, first, Math.min(64, n - (k << 6)));
                        m != 0;
                        m &= m - 1) {
                    int j = Long.numberOfTrailingZeros(m);
                    long xs = x.start(first + j);
                    long ys = y.start(first + j);
                    if (equalBytes(x.data, xs, y.data, ys, x.start(first + j + 1) - xs)) {
                        e |= 1L << j;
                    }
                }
                eq[k] = e;
            }
            return;
        }
        long xs = x.start(from);
        long ys = y.start(from);
        for (int k = 0; k < Bitmaps.words(n); k++) {
            long e = 0;
            int end = Math.min(64, n - (k << 6));
            for (int j = 0; j < end; j++) {
                int row = from + (k << 6) + j + 1;
                long xn = x.start(row);
                long yn = y.start(row);
                long len = xn - xs;
                if (len == yn - ys && equalBytes(x.data, xs, y.data, ys, len)) {
                    e |= 1L << j;
                }
                xs = xn;
                ys = yn;
            }
            eq[k] = e;
        }
    }

    /** Whether the {@code len} bytes of {@code a} at {@code ap} are those of {@code b} at {@code bp}. */
    private static boolean equalBytes(MemorySegment a, long ap, MemorySegment b, long bp, long len) {
        long k = 0;
        for (; k + 8 <= len; k += 8) {
            if (a.get(PredicateOutput.WORD, ap + k) != b.get(PredicateOutput.WORD, bp + k)) {
                return false;
            }
        }
        int r = (int) (len - k);
        return r == 0 || word(a, ap + k, r) == word(b, bp + k, r);
    }

    private static void orderRows(Side x, Side y, int from, int n, long[] lt, long[] eq) {
        long xs = x.start(from);
        long ys = y.start(from);
        for (int k = 0; k < Bitmaps.words(n); k++) {
            long l = 0;
            long e = 0;
            int end = Math.min(64, n - (k << 6));
            for (int j = 0; j < end; j++) {
                int row = from + (k << 6) + j + 1;
                long xn = x.start(row);
                long yn = y.start(row);
                int c = compareBytes(x.data, xs, xn - xs, y.data, ys, yn - ys);
                l |= (c < 0 ? 1L : 0L) << j;
                e |= (c == 0 ? 1L : 0L) << j;
                xs = xn;
                ys = yn;
            }
            lt[k] = l;
            eq[k] = e;
        }
    }

    /** Lexicographic order of unsigned bytes, eight per step; for UTF-8 this is code point order. */
    static int compareBytes(MemorySegment a, long ap, long aLen, MemorySegment b, long bp, long bLen) {
        long common = Math.min(aLen, bLen);
        long k = 0;
        for (; k + 8 <= common; k += 8) {
            long x = a.get(PredicateOutput.WORD, ap + k);
            long y = b.get(PredicateOutput.WORD, bp + k);
            if (x != y) {
                return Long.compareUnsigned(Long.reverseBytes(x), Long.reverseBytes(y));
            }
        }
        int r = (int) (common - k);
        if (r > 0) {
            long x = word(a, ap + k, r);
            long y = word(b, bp + k, r);
            if (x != y) {
                return Long.compareUnsigned(Long.reverseBytes(x), Long.reverseBytes(y));
            }
        }
        return Long.compare(aLen, bLen);
    }
}
