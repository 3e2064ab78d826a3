package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.EvaluationException;
import dev.quiver.errors.ResourceException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.junit.jupiter.api.Test;

/**
 * {@link StringShapeKernels} against plain-Java references on code points (java.lang.String):
 * generated ASCII and multi-byte strings (é, €, 日本語, 𝄞, ß, İ, Σ), empty strings, nulls with
 * garbage behind them (ASCII garbage, so the ASCII fast paths run with nulls, and invalid UTF-8),
 * 100 KB strings, batches of 0, 1, 63, 64, 65 and 1000 rows, Utf8 and LargeUtf8, integer
 * arguments as columns (with nulls and garbage) and as constants. Replay with
 * {@code -Dquiver.seed=<seed>} (printed).
 */
class StringShapeKernelsTest extends KernelTestBase {
    static final long SEED = Long.getLong("quiver.seed", 20261130L);
    static final int[] BATCHES = {0, 1, 63, 64, 65, 1000};
    static final String[] ASCII_PIECES = {"a", "b", "Z", "x", "y", " ", "  ", "abc", "Hello", "0", "%", "_", "\t", "xyx"
    };
    static final String[] UNICODE_PIECES = {
        "é", "É", "€", "日本語", "𝄞", "ß", "ẞ", "İ", "ı", "ΑΣ", "ς", "ǅ", "ſ", "ﬁ", "ŉ", "\u0301", "Ȿ", "ⱥ", "😀", "ö"
    };
    static final long[] COUNTS = {
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        5,
        -5,
        7,
        8,
        9,
        -9,
        12,
        100,
        -100,
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        Long.MIN_VALUE + 1,
        Long.MAX_VALUE - 1,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        4_294_967_296L,
        -4_294_967_297L
    };

    private final List<FieldVector> owned = new ArrayList<>();

    /** A batch of generated strings. */
    record Strings(List<String> values, boolean ascii) {}

    static Strings strings(Random r, int rows, boolean ascii) {
        List<String> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            if (r.nextInt(7) == 0) {
                out.add(null);
                continue;
            }
            if (r.nextInt(9) == 0) {
                out.add("");
                continue;
            }
            StringBuilder sb = new StringBuilder();
            int n = r.nextInt(4) == 0 ? r.nextInt(40) : r.nextInt(6);
            for (int k = 0; k < n; k++) {
                sb.append(
                        !ascii && r.nextInt(3) == 0
                                ? UNICODE_PIECES[r.nextInt(UNICODE_PIECES.length)]
                                : ASCII_PIECES[r.nextInt(ASCII_PIECES.length)]);
            }
            out.add(sb.toString());
        }
        return new Strings(out, ascii);
    }

    /** A Utf8 or LargeUtf8 vector of {@code values}; nulls get bytes behind them (ASCII or not, as the batch). */
    FieldVector vector(List<String> values, boolean large, boolean asciiGarbage, Random r) {
        VariableWidthFieldVector v = large ? new LargeVarCharVector("s", allocator) : new VarCharVector("s", allocator);
        owned.add(v);
        v.allocateNew(Math.max(1, values.size()));
        for (int i = 0; i < values.size(); i++) {
            String s = values.get(i);
            if (s != null) {
                v.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
            } else {
                byte[] garbage = new byte[r.nextInt(12)];
                for (int k = 0; k < garbage.length; k++) {
                    garbage[k] = (byte) (asciiGarbage ? 'A' + r.nextInt(26) : 0x80 | r.nextInt(128));
                }
                v.setSafe(i, garbage);
                v.setNull(i);
            }
        }
        v.setValueCount(values.size());
        return v;
    }

    /** An Int64 column of {@code values} (nulls with garbage behind them). */
    BigIntVector longs(List<Long> values, Random r) {
        BigIntVector v = new BigIntVector("n", allocator);
        owned.add(v);
        v.allocateNew(Math.max(1, values.size()));
        for (int i = 0; i < values.size(); i++) {
            v.set(i, values.get(i) == null ? r.nextLong() : values.get(i));
            if (values.get(i) == null) {
                v.setNull(i);
            }
        }
        v.setValueCount(values.size());
        return v;
    }

    List<Long> counts(Random r, int rows, long bound) {
        List<Long> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            if (r.nextInt(9) == 0) {
                out.add(null);
            } else if (bound < 0) {
                out.add(r.nextInt(3) == 0 ? COUNTS[r.nextInt(COUNTS.length)] : (long) r.nextInt(25) - 12);
            } else {
                out.add((long) r.nextInt((int) (2 * bound + 1)) - bound);
            }
        }
        return out;
    }

    static List<String> read(FieldVector v) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(v.isNull(i) ? null : v.getObject(i).toString());
        }
        return out;
    }

    static List<Long> readLongs(BigIntVector v) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(v.isNull(i) ? null : v.get(i));
        }
        return out;
    }

    /** Checks a string result's type and rows, then closes it. */
    static void check(String what, boolean large, List<String> expected, FieldVector result) {
        try (result) {
            assertEquals(large ? LargeVarCharVector.class : VarCharVector.class, result.getClass(), what);
            assertEquals(expected.size(), result.getValueCount(), what);
            List<String> actual = read(result);
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), actual.get(i), what + " row " + i);
            }
        }
    }

    static <T> List<T> map(List<String> in, Function<String, T> f) {
        List<T> out = new ArrayList<>(in.size());
        for (String s : in) {
            out.add(s == null ? null : f.apply(s));
        }
        return out;
    }

    // ------------------------------------------------------------------ references (java.lang.String, per code point)

    static int[] cps(String s) {
        return s.codePoints().toArray();
    }

    static String str(int[] cps, long from, long to) {
        return from >= to ? "" : new String(cps, (int) from, (int) (to - from));
    }

    static String refUpper(String s) {
        return new String(
                s.codePoints()
                        .map(c -> c == 'ß' ? 0x1E9E : Character.toUpperCase(c))
                        .toArray(),
                0,
                s.codePointCount(0, s.length()));
    }

    static String refLower(String s) {
        return new String(s.codePoints().map(Character::toLowerCase).toArray(), 0, s.codePointCount(0, s.length()));
    }

    static String refTrim(String s, String chars, boolean leading, boolean trailing) {
        int[] c = cps(s);
        int[] set = cps(chars);
        int a = 0;
        int b = c.length;
        while (leading && a < b && contains(set, c[a])) {
            a++;
        }
        while (trailing && b > a && contains(set, c[b - 1])) {
            b--;
        }
        return str(c, a, b);
    }

    static boolean contains(int[] set, int cp) {
        return Arrays.stream(set).anyMatch(x -> x == cp);
    }

    private static final BigInteger ONE = BigInteger.ONE;

    /** SQL/DuckDB substring, exactly (BigInteger: no overflow). */
    static String refSubstring(String s, long start, Long length) {
        int[] c = cps(s);
        BigInteger n = BigInteger.valueOf(c.length);
        BigInteger st = BigInteger.valueOf(start);
        BigInteger p = start > 0 ? st : start == 0 ? BigInteger.ZERO : n.add(st).add(ONE);
        BigInteger lo;
        BigInteger hi;
        if (length == null) {
            lo = p;
            hi = n.add(ONE);
        } else if (length >= 0) {
            lo = p;
            hi = p.add(BigInteger.valueOf(length));
        } else {
            lo = p.add(BigInteger.valueOf(length));
            hi = p;
        }
        lo = lo.max(ONE);
        hi = hi.min(n.add(ONE));
        return hi.compareTo(lo) <= 0 ? "" : str(c, lo.longValueExact() - 1, hi.longValueExact() - 1);
    }

    static String refLeft(String s, long k) {
        int[] c = cps(s);
        BigInteger n = BigInteger.valueOf(c.length);
        BigInteger keep = k >= 0
                ? BigInteger.valueOf(k).min(n)
                : n.add(BigInteger.valueOf(k)).max(BigInteger.ZERO);
        return str(c, 0, keep.longValueExact());
    }

    static String refRight(String s, long k) {
        int[] c = cps(s);
        BigInteger n = BigInteger.valueOf(c.length);
        BigInteger drop = k >= 0
                ? n.subtract(BigInteger.valueOf(k)).max(BigInteger.ZERO)
                : BigInteger.valueOf(k).negate().min(n);
        return str(c, drop.longValueExact(), c.length);
    }

    /** lpad/rpad; null where the fill is empty and padding is needed (the kernel raises). */
    static String refPad(String s, long t, String fill, boolean left) {
        int[] c = cps(s);
        if (t <= 0) {
            return "";
        }
        if (c.length >= t) {
            return str(c, 0, t);
        }
        int[] f = cps(fill);
        if (f.length == 0) {
            return null;
        }
        StringBuilder pad = new StringBuilder();
        for (long i = 0; i < t - c.length; i++) {
            pad.appendCodePoint(f[(int) (i % f.length)]);
        }
        return left ? pad + s : s + pad;
    }

    // ------------------------------------------------------------------ the tests

    @Test
    void everyKernelMatchesItsReferenceOnEveryBatchShape() {
        System.out.println("StringShapeKernelsTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        Random r = new Random(SEED);
        for (int rows : BATCHES) {
            for (boolean large : new boolean[] {false, true}) {
                for (boolean ascii : new boolean[] {true, false}) {
                    Strings st = strings(r, rows, ascii);
                    String what =
                            rows + " rows, " + (large ? "LargeUtf8" : "Utf8") + ", " + (ascii ? "ASCII" : "Unicode");
                    FieldVector s = vector(st.values(), large, ascii, r);
                    runAll(what, st.values(), s, large, rows, r);
                    if (rows > 0 && ascii) {
                        // Non-ASCII garbage behind the nulls: no ASCII fast path, same answers.
                        runAll(
                                what + ", non-ASCII garbage",
                                st.values(),
                                vector(st.values(), large, false, r),
                                large,
                                rows,
                                r);
                    }
                }
            }
        }
    }

    private void runAll(String what, List<String> values, FieldVector s, boolean large, int rows, Random r) {
        assertEquals(
                map(values, x -> (long) x.codePointCount(0, x.length())),
                readAndClose(StringShapeKernels.charLength(s, allocator)),
                what);
        assertEquals(
                map(values, x -> (long) x.getBytes(StandardCharsets.UTF_8).length),
                readAndClose(StringShapeKernels.octetLength(s, allocator)),
                what);
        assertEquals(
                map(values, x -> 8L * x.getBytes(StandardCharsets.UTF_8).length),
                readAndClose(StringShapeKernels.bitLength(s, allocator)),
                what);
        check(
                "upper " + what,
                large,
                map(values, StringShapeKernelsTest::refUpper),
                StringShapeKernels.upper(s, allocator));
        check(
                "lower " + what,
                large,
                map(values, StringShapeKernelsTest::refLower),
                StringShapeKernels.lower(s, allocator));
        check(
                "reverse " + what,
                large,
                map(values, x -> new StringBuilder(x).reverse().toString()),
                StringShapeKernels.reverse(s, allocator));

        // trim with the default (spaces), a constant set (ASCII, Unicode, empty), a column of sets
        for (StringShapeKernels.TrimSide side : StringShapeKernels.TrimSide.values()) {
            boolean lead = side != StringShapeKernels.TrimSide.TRAILING;
            boolean trail = side != StringShapeKernels.TrimSide.LEADING;
            check(
                    "trim " + side + " " + what,
                    large,
                    map(values, x -> refTrim(x, " ", lead, trail)),
                    StringShapeKernels.trim(s, null, side, rows, allocator));
            for (String set : List.of("xy", "a ", "é𝄞ΑΣ", "", "日x\t")) {
                FieldVector chars = vector(Arrays.asList(set), large, true, r);
                check(
                        "trim " + side + " '" + set + "' " + what,
                        large,
                        map(values, x -> refTrim(x, set, lead, trail)),
                        StringShapeKernels.trim(s, chars, side, rows, allocator));
            }
            List<String> sets = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                sets.add(
                        r.nextInt(8) == 0
                                ? null
                                : List.of("x", "ab ", "é", "", "日本語𝄞", " ΑΣ").get(r.nextInt(6)));
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                expected.add(
                        values.get(i) == null || sets.get(i) == null
                                ? null
                                : refTrim(values.get(i), sets.get(i), lead, trail));
            }
            check(
                    "trim " + side + " per-row sets " + what,
                    large,
                    expected,
                    StringShapeKernels.trim(s, vector(sets, !large, false, r), side, rows, allocator));
        }

        // substring, left, right: columns and constants of edge counts
        List<Long> starts = counts(r, rows, -1);
        List<Long> lengths = counts(r, rows, -1);
        BigIntVector startCol = longs(starts, r);
        BigIntVector lengthCol = longs(lengths, r);
        List<String> sub2 = new ArrayList<>();
        List<String> sub3 = new ArrayList<>();
        List<String> left = new ArrayList<>();
        List<String> right = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            String x = values.get(i);
            Long a = starts.get(i);
            Long b = lengths.get(i);
            sub2.add(x == null || a == null ? null : refSubstring(x, a, null));
            sub3.add(x == null || a == null || b == null ? null : refSubstring(x, a, b));
            left.add(x == null || a == null ? null : refLeft(x, a));
            right.add(x == null || a == null ? null : refRight(x, a));
        }
        check(
                "substring(s, col) " + what,
                large,
                sub2,
                StringShapeKernels.substring(s, startCol, null, rows, allocator));
        check(
                "substring(s, col, col) " + what,
                large,
                sub3,
                StringShapeKernels.substring(s, startCol, lengthCol, rows, allocator));
        check("left(s, col) " + what, large, left, StringShapeKernels.left(s, startCol, rows, allocator));
        check("right(s, col) " + what, large, right, StringShapeKernels.right(s, startCol, rows, allocator));
        for (long a : new long[] {0, 1, 2, -1, -3, 6, Long.MIN_VALUE, Long.MAX_VALUE}) {
            for (Long b : Arrays.asList(null, 0L, 2L, -1L, -3L, Long.MAX_VALUE, Long.MIN_VALUE)) {
                BigIntVector ca = longs(List.of(a), r);
                BigIntVector cb = b == null ? null : longs(List.of(b), r);
                check(
                        "substring(s, " + a + ", " + b + ") " + what,
                        large,
                        map(values, x -> refSubstring(x, a, b)),
                        StringShapeKernels.substring(s, ca, cb, rows, allocator));
            }
            BigIntVector ca = longs(List.of(a), r);
            check(
                    "left(s, " + a + ") " + what,
                    large,
                    map(values, x -> refLeft(x, a)),
                    StringShapeKernels.left(s, ca, rows, allocator));
            check(
                    "right(s, " + a + ") " + what,
                    large,
                    map(values, x -> refRight(x, a)),
                    StringShapeKernels.right(s, ca, rows, allocator));
        }
        // A null constant makes every row null.
        BigIntVector nullConstant = longs(Arrays.asList((Long) null), r);
        check(
                "substring(s, NULL) " + what,
                large,
                map(values, x -> null),
                StringShapeKernels.substring(s, nullConstant, null, rows, allocator));

        // lpad/rpad with small targets (the result is built by the reference), fills constant and per row
        List<Long> targets = counts(r, rows, 30);
        BigIntVector targetCol = longs(targets, r);
        for (boolean isLeft : new boolean[] {true, false}) {
            for (String fill : Arrays.asList(null, "*", "xy", "é日𝄞")) {
                FieldVector fv = fill == null ? null : vector(Arrays.asList(fill), large, true, r);
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    String x = values.get(i);
                    Long t = targets.get(i);
                    expected.add(x == null || t == null ? null : refPad(x, t, fill == null ? " " : fill, isLeft));
                }
                check(
                        (isLeft ? "lpad" : "rpad") + " fill " + fill + " " + what,
                        large,
                        expected,
                        StringShapeKernels.pad(s, targetCol, fv, isLeft, rows, allocator));
            }
            List<String> fills = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                fills.add(
                        r.nextInt(8) == 0
                                ? null
                                : List.of("-", "ab", "é", "日本語𝄞").get(r.nextInt(4)));
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                String x = values.get(i);
                Long t = targets.get(i);
                expected.add(
                        x == null || t == null || fills.get(i) == null ? null : refPad(x, t, fills.get(i), isLeft));
            }
            check(
                    (isLeft ? "lpad" : "rpad") + " per-row fills " + what,
                    large,
                    expected,
                    StringShapeKernels.pad(s, targetCol, vector(fills, large, false, r), isLeft, rows, allocator));
        }

        // repeat with small counts, column and constant
        List<Long> times = counts(r, rows, 4);
        List<String> rep = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            rep.add(
                    values.get(i) == null || times.get(i) == null
                            ? null
                            : values.get(i).repeat((int) Math.max(0, times.get(i))));
        }
        check("repeat(s, col) " + what, large, rep, StringShapeKernels.repeat(s, longs(times, r), rows, allocator));
        for (long n : new long[] {0, 1, 3, -2, Long.MIN_VALUE}) {
            check(
                    "repeat(s, " + n + ") " + what,
                    large,
                    map(values, x -> x.repeat((int) Math.max(0, n))),
                    StringShapeKernels.repeat(s, longs(List.of(n), r), rows, allocator));
        }
        closeOwned();
    }

    private static List<Long> readAndClose(BigIntVector v) {
        try (v) {
            return readLongs(v);
        }
    }

    private void closeOwned() {
        owned.forEach(FieldVector::close);
        owned.clear();
    }

    @Test
    void aConstantStringWithAColumnOfCounts() {
        Random r = new Random(SEED + 1);
        for (boolean large : new boolean[] {false, true}) {
            for (String constant : List.of("ab", "é日", "")) {
                FieldVector s = vector(List.of(constant), large, true, r);
                List<Long> n = counts(r, 65, 7);
                BigIntVector col = longs(n, r);
                check(
                        "repeat const",
                        large,
                        map(asStrings(n), k -> constant.repeat(Math.max(0, Integer.parseInt(k)))),
                        StringShapeKernels.repeat(s, col, 65, allocator));
                check(
                        "substring const",
                        large,
                        map(asStrings(n), k -> refSubstring(constant, Long.parseLong(k), 1L)),
                        StringShapeKernels.substring(s, col, longs(List.of(1L), r), 65, allocator));
                check(
                        "lpad const",
                        large,
                        map(asStrings(n), k -> refPad(constant, Long.parseLong(k), "*", true)),
                        StringShapeKernels.pad(s, col, vector(List.of("*"), large, true, r), true, 65, allocator));
                check(
                        "trim const",
                        large,
                        Collections.nCopies(65, refTrim(constant, "a", true, true)),
                        StringShapeKernels.trim(
                                s,
                                vector(List.of("a"), large, true, r),
                                StringShapeKernels.TrimSide.BOTH,
                                65,
                                allocator));
                closeOwned();
            }
        }
    }

    private static List<String> asStrings(List<Long> n) {
        return n.stream().map(x -> x == null ? null : Long.toString(x)).toList();
    }

    @Test
    void longStrings() {
        Random r = new Random(SEED + 2);
        StringBuilder ascii = new StringBuilder();
        StringBuilder mixed = new StringBuilder();
        while (ascii.length() < 100_000) {
            ascii.append(ASCII_PIECES[r.nextInt(ASCII_PIECES.length)]);
            mixed.append(
                    r.nextBoolean()
                            ? UNICODE_PIECES[r.nextInt(UNICODE_PIECES.length)]
                            : ASCII_PIECES[r.nextInt(ASCII_PIECES.length)]);
        }
        List<String> values = Arrays.asList("  " + ascii + "  ", null, mixed.toString(), "", ascii.toString());
        for (boolean large : new boolean[] {false, true}) {
            runAll("long strings", values, vector(values, large, false, r), large, values.size(), r);
            List<String> asciiOnly = Arrays.asList(ascii.toString(), null, " " + ascii);
            runAll("long ASCII strings", asciiOnly, vector(asciiOnly, large, true, r), large, asciiOnly.size(), r);
        }
    }

    @Test
    void caseMappingsThatChangeTheByteLength() {
        Random r = new Random(SEED + 3);
        // ß → ẞ (2 → 3 bytes), ı → I (2 → 1), ſ → S, ȿ → Ȿ (2 → 3), İ → i (2 → 1), ⱥ → Ⱥ (3 → 2)
        List<String> values = List.of("straße", "ıſȿ", "İSTANBUL", "ⱥⱦ", "ΑΣ", "ǅ", "ﬁŉ");
        FieldVector s = vector(values, false, true, r);
        check(
                "upper",
                false,
                List.of("STRAẞE", "ISⱾ", "İSTANBUL", "ȺȾ", "ΑΣ", "Ǆ", "ﬁŉ"),
                StringShapeKernels.upper(s, allocator));
        check(
                "lower",
                false,
                List.of("straße", "ıſȿ", "istanbul", "ⱥⱦ", "ασ", "ǆ", "ﬁŉ"),
                StringShapeKernels.lower(s, allocator));
        closeOwned();
    }

    @Test
    void anEmptyFillRaisesOnlyWhereARowNeedsPadding() {
        Random r = new Random(SEED + 4);
        FieldVector s = vector(Arrays.asList("abc", null, "abcdef"), false, true, r);
        FieldVector empty = vector(List.of(""), false, true, r);
        // No row needs padding: cut or exact.
        check(
                "lpad cut",
                false,
                Arrays.asList("ab", null, "ab"),
                StringShapeKernels.pad(s, longs(List.of(2L), r), empty, true, 3, allocator));
        check(
                "rpad exact",
                false,
                Arrays.asList("abc", null, "abc"),
                StringShapeKernels.pad(s, longs(List.of(3L), r), empty, false, 3, allocator));
        EvaluationException e = assertThrows(
                EvaluationException.class,
                () -> StringShapeKernels.pad(s, longs(List.of(5L), r), empty, true, 3, allocator));
        assertEquals("lpad: row 0 needs 2 characters of padding but the fill string is empty", e.getMessage());
        closeOwned();
    }

    @Test
    void resultsBeyondWhatTheTypeOrMemoryHoldsAreClearErrors() {
        Random r = new Random(SEED + 5);
        for (boolean large : new boolean[] {false, true}) {
            FieldVector s = vector(Arrays.asList("ab", "c"), large, true, r);
            BigIntVector huge = longs(List.of(Long.MAX_VALUE), r);
            ResourceException e =
                    assertThrows(ResourceException.class, () -> StringShapeKernels.repeat(s, huge, 2, allocator));
            assertTrue(e.getMessage().startsWith("repeat: "), e.getMessage());
            assertTrue(e.getMessage().contains(large ? "machine's memory" : "2 GiB"), e.getMessage());
            ResourceException p = assertThrows(
                    ResourceException.class,
                    () -> StringShapeKernels.pad(s, huge, vector(List.of("é"), large, true, r), false, 2, allocator));
            assertTrue(p.getMessage().startsWith("rpad: "), p.getMessage());
            // 2^30 copies of 'ab' are 2 GiB: one byte too many for Utf8; refused before any allocation.
            if (!large) {
                ResourceException two = assertThrows(
                        ResourceException.class,
                        () -> StringShapeKernels.repeat(s, longs(List.of(1L << 30), r), 2, allocator));
                assertTrue(two.getMessage().contains("2 GiB"), two.getMessage());
            }
            closeOwned();
        }
        // A limited allocator: the limit is checked up front too.
        try (BufferAllocator small = allocator.newChildAllocator("small", 0, 1 << 20)) {
            FieldVector s = vector(List.of("abcd"), true, true, r);
            ResourceException e = assertThrows(
                    ResourceException.class, () -> StringShapeKernels.repeat(s, longs(List.of(1L << 20), r), 1, small));
            assertTrue(e.getMessage().contains("allocator's limit"), e.getMessage());
            closeOwned();
        }
    }
}
