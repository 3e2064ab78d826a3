package dev.quiver.kernels;

import com.sun.management.OperatingSystemMXBean;
import dev.quiver.errors.EvaluationException;
import dev.quiver.errors.ResourceException;
import dev.quiver.strings.Utf8;
import dev.quiver.strings.Utf8Input;
import dev.quiver.strings.Utf8Output;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Whole-column kernels that measure and reshape strings by character (Unicode code point):
 * lengths, case mapping, trim, substring, left/right, pad, repeat and reverse. They work on
 * the UTF-8 bytes through {@link Utf8Input} and {@link Utf8Output}: no row is ever a
 * {@code String} or a {@code byte[]}.
 *
 * <p>Contract of every kernel: the string arguments are Utf8 or LargeUtf8 vectors and the
 * integer ones Int64 ({@link BigIntVector}); each has {@code rows} rows, or one row that every
 * row reads (a constant). Arguments are borrowed. Non-null rows are valid UTF-8 (Quiver checks
 * every string column once per batch); the bytes behind null rows are never read as text.
 * A row is null when any of its arguments is null. A string result has the type of the first
 * argument (Utf8 in, Utf8 out; LargeUtf8 in, LargeUtf8 out). The returned vector belongs to
 * {@code allocator} and the caller closes it; on an exception everything allocated is closed.
 *
 * <p>Fast paths are chosen once per batch: an all-ASCII string column is measured from its
 * offsets alone, case-mapped eight bytes per step over the whole data buffer, reversed,
 * sliced and padded with byte arithmetic; a constant argument is read once.
 */
public final class StringShapeKernels {
    private static final long HIGH_BITS = 0x8080_8080_8080_8080L;
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    /** The most bytes of text a Utf8 (32-bit offsets) column holds. */
    static final long UTF8_LIMIT = Integer.MAX_VALUE;

    private StringShapeKernels() {}

    /** Which ends {@link #trim} removes characters from. */
    public enum TrimSide {
        LEADING,
        TRAILING,
        BOTH
    }

    // ------------------------------------------------------------------------------ lengths

    /** The number of characters (code points) of each row, as Int64. */
    public static BigIntVector charLength(FieldVector strings, BufferAllocator allocator) {
        return lengths(strings, true, 1, allocator);
    }

    /** The number of bytes of each row, as Int64 (the offsets alone). */
    public static BigIntVector octetLength(FieldVector strings, BufferAllocator allocator) {
        return lengths(strings, false, 1, allocator);
    }

    /** The number of bits (8 per byte) of each row, as Int64 (the offsets alone). */
    public static BigIntVector bitLength(FieldVector strings, BufferAllocator allocator) {
        return lengths(strings, false, 8, allocator);
    }

    private static BigIntVector lengths(
            FieldVector strings, boolean characters, long scale, BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        BigIntVector out = new BigIntVector("result", allocator);
        try (Utf8Input in = Utf8Input.of(strings)) {
            int rows = in.rows();
            out.allocateNew(rows);
            copyValidity(strings, out.getValidityBuffer(), rows);
            ArrowBuf result = out.getDataBuffer();
            if (!characters || in.isAllAscii()) {
                // One byte per character: the lengths are in the offsets, the data is never read.
                long previous = rows == 0 ? 0 : in.start(0);
                for (int r = 0; r < rows; r++) {
                    long end = in.end(r);
                    result.setLong((long) r << 3, (end - previous) * scale);
                    previous = end;
                }
            } else {
                MemorySegment d = in.data();
                for (int r = 0; r < rows; r++) {
                    if (in.isValid(r)) {
                        result.setLong((long) r << 3, Utf8.codePoints(d, in.start(r), in.end(r)));
                    }
                }
            }
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    // ------------------------------------------------------------------------------ case

    /**
     * Each row in upper case: Unicode simple case mapping per code point
     * ({@link Character#toUpperCase(int)}, locale-independent), except that {@code ß} becomes
     * {@code ẞ} (U+1E9E), as in DuckDB. An all-ASCII batch maps its whole data buffer eight
     * bytes per step and copies offsets and validity.
     */
    public static FieldVector upper(FieldVector strings, BufferAllocator allocator) {
        return caseMap(strings, true, allocator);
    }

    /** Each row in lower case: {@link Character#toLowerCase(int)} per code point (locale-independent). */
    public static FieldVector lower(FieldVector strings, BufferAllocator allocator) {
        return caseMap(strings, false, allocator);
    }

    /** The upper-case mapping of one code point. */
    public static int upperCodePoint(int cp) {
        return cp == 0xDF ? 0x1E9E : Character.toUpperCase(cp);
    }

    /** The lower-case mapping of one code point. */
    public static int lowerCodePoint(int cp) {
        return Character.toLowerCase(cp);
    }

    private static FieldVector caseMap(FieldVector strings, boolean upper, BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        try (Utf8Input in = Utf8Input.of(strings)) {
            int rows = in.rows();
            MemorySegment d = in.data();
            if (rows > 0 && in.isAllAscii()) {
                return sameShape(strings, in, allocator, dst -> {
                    long bytes = d.byteSize();
                    long k = 0;
                    if (upper) {
                        for (; k + 8 <= bytes; k += 8) {
                            dst.set(Utf8.WORD, k, Utf8.upperAsciiWord(d.get(Utf8.WORD, k)));
                        }
                    } else {
                        for (; k + 8 <= bytes; k += 8) {
                            dst.set(Utf8.WORD, k, Utf8.lowerAsciiWord(d.get(Utf8.WORD, k)));
                        }
                    }
                    for (; k < bytes; k++) {
                        dst.set(BYTE, k, asciiCase(d.get(BYTE, k), upper));
                    }
                });
            }
            try (Utf8Output out = Utf8Output.allocate(in.large(), "result", rows, d.byteSize(), allocator)) {
                for (int r = 0; r < rows; r++) {
                    if (!in.isValid(r)) {
                        out.nullRow();
                        continue;
                    }
                    long k = in.start(r);
                    long e = in.end(r);
                    while (k < e) {
                        if (k + 8 <= e) {
                            long w = d.get(Utf8.WORD, k);
                            if ((w & HIGH_BITS) == 0) {
                                out.ensure(8);
                                out.data()
                                        .set(
                                                Utf8.WORD,
                                                out.position(),
                                                upper ? Utf8.upperAsciiWord(w) : Utf8.lowerAsciiWord(w));
                                out.advance(8);
                                k += 8;
                                continue;
                            }
                        }
                        byte b = d.get(BYTE, k);
                        if (b >= 0) {
                            out.append(asciiCase(b, upper));
                            k++;
                        } else {
                            int cp = Utf8.decode(d, k);
                            k += Utf8.sequenceLength(b);
                            out.appendCodePoint(upper ? upperCodePoint(cp) : lowerCodePoint(cp));
                        }
                    }
                    out.endRow();
                }
                return out.finish();
            }
        }
    }

    private static byte asciiCase(byte b, boolean upper) {
        if (upper) {
            return b >= 'a' && b <= 'z' ? (byte) (b - 32) : b;
        }
        return b >= 'A' && b <= 'Z' ? (byte) (b + 32) : b;
    }

    // ------------------------------------------------------------------------------ reverse

    /** Each row with its characters (code points, not bytes) in reverse order. */
    public static FieldVector reverse(FieldVector strings, BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        try (Utf8Input in = Utf8Input.of(strings)) {
            int rows = in.rows();
            MemorySegment d = in.data();
            if (rows > 0 && in.isAllAscii()) {
                return sameShape(strings, in, allocator, dst -> {
                    for (int r = 0; r < rows; r++) {
                        long s = in.start(r);
                        long e = in.end(r);
                        long i = 0;
                        long n = e - s;
                        for (; i + 8 <= n; i += 8) {
                            dst.set(Utf8.WORD, e - i - 8, Long.reverseBytes(d.get(Utf8.WORD, s + i)));
                        }
                        for (; i < n; i++) {
                            dst.set(BYTE, e - 1 - i, d.get(BYTE, s + i));
                        }
                    }
                });
            }
            try (Utf8Output out = Utf8Output.allocate(in.large(), "result", rows, d.byteSize(), allocator)) {
                for (int r = 0; r < rows; r++) {
                    if (!in.isValid(r)) {
                        out.nullRow();
                        continue;
                    }
                    long s = in.start(r);
                    long e = in.end(r);
                    out.ensure(e - s);
                    MemorySegment dst = out.data();
                    long base = out.position() + (e - s);
                    long k = s;
                    while (k < e) {
                        int n = Utf8.sequenceLength(d.get(BYTE, k));
                        long to = base - (k - s) - n;
                        for (int j = 0; j < n; j++) {
                            dst.set(BYTE, to + j, d.get(BYTE, k + j));
                        }
                        k += n;
                    }
                    out.advance(e - s);
                    out.endRow();
                }
                return out.finish();
            }
        }
    }

    // ------------------------------------------------------------------------------ trim

    /**
     * Each row without the characters of {@code characters} at the ends {@code side} names;
     * {@code characters} null trims spaces (U+0020) only. {@code characters} is a set of code
     * points (any order, repeats ignored); an empty set trims nothing.
     */
    public static FieldVector trim(
            FieldVector strings, FieldVector characters, TrimSide side, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(side, "side is null");
        Objects.requireNonNull(allocator, "allocator is null");
        try (Utf8Input in = open(strings, rows);
                Utf8Input chars = characters == null ? null : open(characters, rows)) {
            long[] valid = validity(rows, in, chars);
            MemorySegment d = in.data();
            CharacterSet set = new CharacterSet();
            boolean fixed = chars == null || chars.constant();
            if (chars == null) {
                set.ascii(' ');
            } else if (chars.constant() && chars.isValid(0)) {
                set.load(chars.data(), chars.start(0), chars.end(0));
            }
            boolean leading = side != TrimSide.TRAILING;
            boolean trailing = side != TrimSide.LEADING;
            try (Utf8Output out = output(in, rows, allocator)) {
                for (int r = 0; r < rows; r++) {
                    if (nullRow(valid, r, out)) {
                        continue;
                    }
                    if (!fixed) {
                        set.load(chars.data(), chars.start(r), chars.end(r));
                    }
                    long p = in.start(r);
                    long q = in.end(r);
                    if (set.asciiOnly()) {
                        // Bytes of multi-byte sequences are >= 0x80 and never in an ASCII set.
                        if (leading) {
                            while (p < q && set.containsByte(d.get(BYTE, p))) {
                                p++;
                            }
                        }
                        if (trailing) {
                            while (q > p && set.containsByte(d.get(BYTE, q - 1))) {
                                q--;
                            }
                        }
                    } else {
                        if (leading) {
                            while (p < q) {
                                byte b = d.get(BYTE, p);
                                if (!set.contains(b >= 0 ? b : Utf8.decode(d, p))) {
                                    break;
                                }
                                p += Utf8.sequenceLength(b);
                            }
                        }
                        if (trailing) {
                            while (q > p) {
                                long t = q - 1;
                                while ((d.get(BYTE, t) & 0xC0) == 0x80) {
                                    t--;
                                }
                                if (!set.contains(Utf8.decode(d, t))) {
                                    break;
                                }
                                q = t;
                            }
                        }
                    }
                    out.append(d, p, q - p);
                    out.endRow();
                }
                return out.finish();
            }
        }
    }

    /** A set of code points: a bitmap for ASCII, a short list for the rest; reused from row to row. */
    private static final class CharacterSet {
        private long low;
        private long high;
        private int[] others = new int[8];
        private int count;

        void ascii(int c) {
            if (c < 64) {
                low |= 1L << c;
            } else {
                high |= 1L << (c - 64);
            }
        }

        void load(MemorySegment d, long from, long to) {
            low = 0;
            high = 0;
            count = 0;
            long k = from;
            while (k < to) {
                byte b = d.get(BYTE, k);
                if (b >= 0) {
                    ascii(b);
                    k++;
                } else {
                    if (count == others.length) {
                        others = Arrays.copyOf(others, count * 2);
                    }
                    others[count++] = Utf8.decode(d, k);
                    k += Utf8.sequenceLength(b);
                }
            }
        }

        boolean asciiOnly() {
            return count == 0;
        }

        /** Whether the byte is an ASCII member (false for every byte of a multi-byte sequence). */
        boolean containsByte(byte b) {
            return b >= 0 && ((b < 64 ? low >>> b : high >>> (b - 64)) & 1) != 0;
        }

        boolean contains(int cp) {
            if (cp < 128) {
                return ((cp < 64 ? low >>> cp : high >>> (cp - 64)) & 1) != 0;
            }
            for (int i = 0; i < count; i++) {
                if (others[i] == cp) {
                    return true;
                }
            }
            return false;
        }
    }

    // ------------------------------------------------------------------------------ substring, left, right

    /**
     * SQL {@code substring(s, start[, length])} over characters, 1-based, as DuckDB and the SQL
     * standard define it: the characters at positions {@code [start, start + length)} that
     * exist. {@code start = 0} is the position before the first character (so
     * {@code substring('hello', 0, 2)} is {@code 'h'}); a negative start counts from the end
     * ({@code -1} is the last character); a negative length takes the characters before
     * {@code start}: {@code [start + length, start)}. Without a length, everything from
     * {@code start}. Positions that do not exist give nothing (an empty string, never an error);
     * the arithmetic saturates, so any Int64 is accepted. {@code length} may be null (absent).
     */
    public static FieldVector substring(
            FieldVector strings, FieldVector start, FieldVector length, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(start, "start is null");
        Objects.requireNonNull(allocator, "allocator is null");
        LongArgument from = LongArgument.of(start, rows);
        LongArgument count = length == null ? null : LongArgument.of(length, rows);
        try (Utf8Input in = open(strings, rows)) {
            long[] valid = validity(rows, in, from, count);
            MemorySegment d = in.data();
            boolean ascii = in.isAllAscii();
            try (Utf8Output out = output(in, rows, allocator)) {
                for (int r = 0; r < rows; r++) {
                    if (nullRow(valid, r, out)) {
                        continue;
                    }
                    long s = in.start(r);
                    long e = in.end(r);
                    long st = from.get(r);
                    // The number of characters is needed only to count from the end.
                    long n = ascii ? e - s : st < 0 ? Utf8.codePoints(d, s, e) : Long.MAX_VALUE;
                    long p = st > 0 ? st : st == 0 ? 0 : n + st + 1;
                    long lo;
                    long hi;
                    if (count == null) {
                        lo = p;
                        hi = Long.MAX_VALUE;
                    } else {
                        long len = count.get(r);
                        if (len >= 0) {
                            lo = p;
                            hi = saturatedAdd(p, len);
                        } else {
                            lo = saturatedAdd(p, len);
                            hi = p;
                        }
                    }
                    // 1-based [lo, hi) to 0-based character indexes, clipped at the start.
                    appendCharacters(out, d, s, e, ascii, Math.max(lo, 1) - 1, hi == Long.MAX_VALUE ? hi : hi - 1);
                    out.endRow();
                }
                return out.finish();
            }
        }
    }

    /**
     * {@code left(s, n)}: the first {@code n} characters; a negative {@code n} drops the last
     * {@code -n} characters (PostgreSQL, DuckDB).
     */
    public static FieldVector left(FieldVector strings, FieldVector count, int rows, BufferAllocator allocator) {
        return leftRight(strings, count, true, rows, allocator);
    }

    /**
     * {@code right(s, n)}: the last {@code n} characters; a negative {@code n} drops the first
     * {@code -n} characters (PostgreSQL, DuckDB).
     */
    public static FieldVector right(FieldVector strings, FieldVector count, int rows, BufferAllocator allocator) {
        return leftRight(strings, count, false, rows, allocator);
    }

    private static FieldVector leftRight(
            FieldVector strings, FieldVector count, boolean left, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(count, "count is null");
        Objects.requireNonNull(allocator, "allocator is null");
        LongArgument k = LongArgument.of(count, rows);
        try (Utf8Input in = open(strings, rows)) {
            long[] valid = validity(rows, in, k);
            MemorySegment d = in.data();
            boolean ascii = in.isAllAscii();
            try (Utf8Output out = output(in, rows, allocator)) {
                for (int r = 0; r < rows; r++) {
                    if (nullRow(valid, r, out)) {
                        continue;
                    }
                    long s = in.start(r);
                    long e = in.end(r);
                    long c = k.get(r);
                    // -c without overflow: Long.MIN_VALUE drops everything anyway.
                    long minus = c == Long.MIN_VALUE ? Long.MAX_VALUE : -c;
                    if (left) {
                        if (c >= 0) {
                            appendCharacters(out, d, s, e, ascii, 0, c);
                        } else {
                            long n = ascii ? e - s : Utf8.codePoints(d, s, e);
                            appendCharacters(out, d, s, e, ascii, 0, Math.max(n - minus, 0));
                        }
                    } else if (c >= 0) {
                        long n = ascii ? e - s : Utf8.codePoints(d, s, e);
                        appendCharacters(out, d, s, e, ascii, Math.max(n - c, 0), Long.MAX_VALUE);
                    } else {
                        appendCharacters(out, d, s, e, ascii, minus, Long.MAX_VALUE);
                    }
                    out.endRow();
                }
                return out.finish();
            }
        }
    }

    /**
     * Appends the characters {@code [from, to)} (0-based, {@code from >= 0}; either may be past
     * the end) of the row {@code [s, e)}.
     */
    private static void appendCharacters(
            Utf8Output out, MemorySegment d, long s, long e, boolean ascii, long from, long to) {
        if (to <= from) {
            return;
        }
        long a;
        long b;
        if (ascii) {
            long n = e - s;
            a = s + Math.min(from, n);
            b = s + Math.min(to, n);
        } else {
            a = skip(d, s, e, from);
            b = skip(d, a, e, to - from);
        }
        out.append(d, a, b - a);
    }

    /** The byte position {@code characters} code points after {@code p}, or {@code end} if the row ends first. */
    static long skip(MemorySegment d, long p, long end, long characters) {
        long left = characters;
        while (left > 0 && p < end) {
            if (left >= 8 && p + 8 <= end && (d.get(Utf8.WORD, p) & HIGH_BITS) == 0) {
                p += 8;
                left -= 8;
                continue;
            }
            p += Utf8.sequenceLength(d.get(BYTE, p));
            left--;
        }
        return Math.min(p, end);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    // ------------------------------------------------------------------------------ pad, repeat

    /**
     * {@code lpad(s, n, fill)} ({@code left}) or {@code rpad}: {@code s} padded to {@code n}
     * characters with {@code fill} repeated (its first characters at the end of the padding
     * when it does not divide evenly), before ({@code lpad}) or after ({@code rpad}) it. A string
     * longer than {@code n} is cut to its first {@code n} characters (both functions, as
     * DuckDB and PostgreSQL); {@code n <= 0} gives an empty string. {@code fill} null (the
     * argument, not a null value) pads with spaces.
     *
     * @throws IllegalArgumentException where a row needs padding and its fill is empty (as
     *                                  DuckDB raises "Insufficient padding"), or where the result would exceed 2 GiB of
     *                                  text in a Utf8 column or the allocator's limit
     */
    public static FieldVector pad(
            FieldVector strings,
            FieldVector count,
            FieldVector fill,
            boolean left,
            int rows,
            BufferAllocator allocator) {
        Objects.requireNonNull(count, "count is null");
        Objects.requireNonNull(allocator, "allocator is null");
        String name = left ? "lpad" : "rpad";
        LongArgument target = LongArgument.of(count, rows);
        try (Utf8Input in = open(strings, rows);
                Utf8Input fills = fill == null ? null : open(fill, rows)) {
            long[] valid = validity(rows, in, target, fills);
            MemorySegment d = in.data();
            boolean ascii = in.isAllAscii();
            MemorySegment f = fills == null ? SPACE : fills.data();
            boolean fixedFill = fills == null || fills.constant();
            boolean fillAscii = fills == null || fills.isAllAscii();
            long fs = 0;
            long fe = 1;
            long fillChars = 1;
            if (fills != null && fixedFill) {
                fs = fills.start(0);
                fe = fills.end(0);
                fillChars = fillAscii ? fe - fs : Utf8.codePoints(f, fs, fe);
            }
            try (Utf8Output out = output(in, rows, allocator)) {
                for (int r = 0; r < rows; r++) {
                    if (nullRow(valid, r, out)) {
                        continue;
                    }
                    long t = target.get(r);
                    if (t <= 0) {
                        out.endRow();
                        continue;
                    }
                    long s = in.start(r);
                    long e = in.end(r);
                    long cut = ascii ? s + Math.min(t, e - s) : skip(d, s, e, t);
                    if (cut < e) {
                        out.append(d, s, cut - s);
                        out.endRow();
                        continue;
                    }
                    long n = ascii ? e - s : Utf8.codePoints(d, s, e);
                    if (n == t) {
                        out.append(d, s, e - s);
                        out.endRow();
                        continue;
                    }
                    if (!fixedFill) {
                        fs = fills.start(r);
                        fe = fills.end(r);
                        fillChars = fillAscii ? fe - fs : Utf8.codePoints(f, fs, fe);
                    }
                    long missing = t - n;
                    if (fillChars == 0) {
                        throw new EvaluationException(name + ": row " + r + " needs " + missing
                                + " characters of padding but the fill string is empty");
                    }
                    long whole = missing / fillChars;
                    long rest = missing % fillChars;
                    long restEnd = fillAscii ? fs + rest : skip(f, fs, fe, rest);
                    long padBytes = whole > Long.MAX_VALUE / (fe - fs)
                            ? Long.MAX_VALUE
                            : saturatedAdd(whole * (fe - fs), restEnd - fs);
                    checkRoom(out, saturatedAdd(padBytes, e - s), name, r, in.large(), allocator);
                    if (!left) {
                        out.append(d, s, e - s);
                    }
                    appendRepeated(out, f, fs, fe - fs, whole);
                    out.append(f, fs, restEnd - fs);
                    if (left) {
                        out.append(d, s, e - s);
                    }
                    out.endRow();
                }
                return out.finish();
            }
        }
    }

    private static final MemorySegment SPACE = MemorySegment.ofArray(new byte[] {' '});

    /**
     * {@code repeat(s, n)}: {@code s} written {@code n} times; {@code n <= 0} gives an empty string.
     *
     * @throws IllegalArgumentException where the result would exceed 2 GiB of text in a Utf8
     *                                  column or the allocator's limit
     */
    public static FieldVector repeat(FieldVector strings, FieldVector count, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(count, "count is null");
        Objects.requireNonNull(allocator, "allocator is null");
        LongArgument times = LongArgument.of(count, rows);
        try (Utf8Input in = open(strings, rows)) {
            long[] valid = validity(rows, in, times);
            MemorySegment d = in.data();
            // The data buffer starts at the input's size and grows by doubling.
            try (Utf8Output out = output(in, rows, allocator)) {
                for (int r = 0; r < rows; r++) {
                    if (nullRow(valid, r, out)) {
                        continue;
                    }
                    long n = times.get(r);
                    long s = in.start(r);
                    long len = in.end(r) - s;
                    if (n > 0 && len > 0) {
                        long total = n > Long.MAX_VALUE / len ? Long.MAX_VALUE : n * len;
                        checkRoom(out, total, "repeat", r, in.large(), allocator);
                        appendRepeated(out, d, s, len, n);
                    }
                    out.endRow();
                }
                return out.finish();
            }
        }
    }

    /** Appends {@code times} copies of {@code src[from, from + length)}, doubling what is written. */
    private static void appendRepeated(Utf8Output out, MemorySegment src, long from, long length, long times) {
        if (times <= 0 || length == 0) {
            return;
        }
        long total = length * times;
        out.ensure(total);
        MemorySegment dst = out.data();
        long at = out.position();
        MemorySegment.copy(src, from, dst, at, length);
        long done = length;
        while (done < total) {
            long chunk = Math.min(done, total - done);
            MemorySegment.copy(dst, at, dst, at + done, chunk);
            done += chunk;
        }
        out.advance(total);
    }

    /** Fails before writing a row that would take the result past what its type or allocator can hold. */
    private static void checkRoom(
            Utf8Output out, long more, String name, int row, boolean large, BufferAllocator allocator) {
        if (!large && more > UTF8_LIMIT - out.position()) {
            throw new ResourceException(name + ": the result would hold more than 2 GiB of text by row " + row
                    + " (this row alone " + (more == Long.MAX_VALUE ? "more than 2^63" : more)
                    + " bytes), beyond what a"
                    + " Utf8 column can hold (a LargeUtf8 argument gives a LargeUtf8 result)");
        }
        // Growing towards an impossible size would first copy ever larger buffers: refuse up front
        // what the allocator's limit, or the machine's memory, cannot hold.
        long room = Math.min(out.data().byteSize() - out.position() + allocator.getHeadroom(), PHYSICAL_MEMORY);
        if (more > room) {
            throw new ResourceException(
                    name + ": row " + row + " would take " + (more == Long.MAX_VALUE ? "more than 2^63" : more)
                            + " bytes, more than the allocator's limit or the machine's memory leaves ("
                            + room + " bytes)");
        }
    }

    /** The machine's physical memory in bytes (unbounded when the JVM cannot tell). */
    private static final long PHYSICAL_MEMORY = physicalMemory();

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            long total = os.getTotalMemorySize();
            return total > 0 ? total : Long.MAX_VALUE;
        }
        return Long.MAX_VALUE;
    }

    // ------------------------------------------------------------------------------ shared

    /** A view of {@code vector}: every row, or its one row read by every row of a batch of {@code rows}. */
    private static Utf8Input open(FieldVector vector, int rows) {
        Objects.requireNonNull(vector, "vector is null");
        int n = vector.getValueCount();
        if (n == rows) {
            return Utf8Input.of(vector);
        }
        if (n == 1) {
            return Utf8Input.constant(vector);
        }
        throw new IllegalArgumentException("a string argument of " + n + " rows for a batch of " + rows);
    }

    /**
     * The result of a kernel over {@code in}'s rows, of its string type, its data buffer first as large as the
     * input's (64 bytes for a constant, one row every row reads), then grown by doubling.
     */
    private static Utf8Output output(Utf8Input in, int rows, BufferAllocator allocator) {
        return Utf8Output.allocate(
                in.large(), "result", rows, in.constant() ? 64 : in.data().byteSize(), allocator);
    }

    /** Whether row {@code r} is null in {@code valid} ({@link #validity}), written so to {@code out}. */
    private static boolean nullRow(long[] valid, int r, Utf8Output out) {
        if (isSet(valid, r)) {
            return false;
        }
        out.nullRow();
        return true;
    }

    /** The rows where every argument is valid, 64 per word; computed once per batch. */
    private static long[] validity(int rows, Object... inputs) {
        long[] words = new long[(rows + 63) >>> 6];
        for (int w = 0; w < words.length; w++) {
            long bits = -1L;
            for (Object input : inputs) {
                switch (input) {
                    case null -> {}
                    case Utf8Input u -> bits &= u.validWord(w, rows);
                    case LongArgument l -> bits &= l.validWord(w, rows);
                    default -> throw new IllegalArgumentException("not an input: " + input);
                }
            }
            long live = (long) rows - ((long) w << 6) >= 64 ? -1L : (1L << (rows - (w << 6))) - 1;
            words[w] = bits & live;
        }
        return words;
    }

    private static boolean isSet(long[] words, int row) {
        return (words[row >>> 6] >>> row & 1) != 0;
    }

    /** Writes the data of an ASCII result byte for byte where the input's are (same offsets, same validity). */
    @FunctionalInterface
    private interface AsciiData {
        void write(MemorySegment dst);
    }

    /**
     * A new vector of the type of {@code strings} with its offsets and validity, its data, as many bytes as the
     * input's, written by {@code data}.
     */
    private static FieldVector sameShape(FieldVector strings, Utf8Input in, BufferAllocator allocator, AsciiData data) {
        FieldVector out = sameShape(strings, in, allocator);
        try (Arena arena = Arena.ofConfined()) {
            data.write(view(out.getDataBuffer(), in.data().byteSize(), arena));
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /** A new vector of the type of {@code strings} with its offsets and validity, its data still to be written. */
    private static FieldVector sameShape(FieldVector strings, Utf8Input in, BufferAllocator allocator) {
        int rows = in.rows();
        long bytes = in.data().byteSize();
        boolean large = in.large();
        FieldVector out = large ? new LargeVarCharVector("result", allocator) : new VarCharVector("result", allocator);
        try {
            if (large) {
                ((BaseLargeVariableWidthVector) out).allocateNew(Math.max(bytes, 1), rows);
            } else {
                ((BaseVariableWidthVector) out).allocateNew(Math.max(bytes, 1), rows);
            }
            out.getOffsetBuffer().setBytes(0, strings.getOffsetBuffer(), 0, (long) (rows + 1) * (large ? 8 : 4));
            copyValidity(strings, out.getValidityBuffer(), rows);
            if (large) {
                ((BaseLargeVariableWidthVector) out).setLastSet(rows - 1);
            } else {
                ((BaseVariableWidthVector) out).setLastSet(rows - 1);
            }
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    private static void copyValidity(FieldVector from, ArrowBuf to, int rows) {
        long bytes = (rows + 7) / 8;
        if (bytes == 0) {
            return;
        }
        if (from.getNullCount() == 0) {
            to.setOne(0, bytes);
        } else {
            to.setBytes(0, from.getValidityBuffer(), 0, bytes);
        }
    }

    private static MemorySegment view(ArrowBuf buffer, long bytes, Arena arena) {
        if (bytes == 0) {
            return MemorySegment.NULL.reinterpret(0, arena, null);
        }
        if (buffer.capacity() < bytes) {
            throw new IllegalStateException(
                    "a buffer of " + buffer.capacity() + " bytes where " + bytes + " are needed");
        }
        return MemorySegment.ofAddress(buffer.memoryAddress()).reinterpret(bytes, arena, null);
    }
}
