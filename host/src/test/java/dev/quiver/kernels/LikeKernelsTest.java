package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.EvaluationException;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

class LikeKernelsTest extends KernelTestBase {
    private record Case(String value, String pattern, Character escape, boolean caseInsensitive, boolean expected) {}

    private static Case like(String v, String p, boolean expected) {
        return new Case(v, p, null, false, expected);
    }

    private static final List<Case> CASES = List.of(
            like("abc", "abc", true),
            like("abc", "ab", false),
            like("abc", "abcd", false),
            like("", "", true),
            like("abc", "a%", true),
            like("abc", "%c", true),
            like("abc", "%b%", true),
            like("abc", "%d%", false),
            like("abc", "%", true),
            like("", "%", true),
            like("", "_", false),
            like("abc", "___", true),
            like("abc", "__", false),
            like("abc", "a_c", true),
            like("abc", "a%b%c", true),
            like("aXbXc", "a%b%c", true),
            like("acb", "a%b%c", false),
            like("mississippi", "%iss%ipp%", true),
            like("mississippi", "m%ss%ss%", true),
            like("mississippi", "m%ss%ss%ss%", false),
            like("aaa", "%a%a%a%", true),
            like("aa", "%a%a%a%", false),
            like("ab", "a%%b", true),
            like("a%b", "a\\%b", false),
            like("a\\xb", "a\\%b", true),
            new Case("a%b", "a\\%b", '\\', false, true),
            new Case("axb", "a\\%b", '\\', false, false),
            new Case("a_b", "a#_b", '#', false, true),
            new Case("axb", "a#_b", '#', false, false),
            new Case("a#b", "a##b", '#', false, true),
            new Case("a%", "%#%", '#', false, true),
            new Case("a", "%#%", '#', false, false),
            new Case("abc", "a#bc", '#', false, true),
            like("日本語", "日_語", true),
            like("日本語", "__", false),
            like("😀x", "_x", true),
            like("😀x", "%x", true),
            like("naïve", "na_ve", true),
            like("naïve", "%ïv%", true),
            like("ABC", "abc", false),
            like("ABC", "a%", false),
            new Case("ABC", "abc", null, true, true),
            new Case("ABC", "a%", null, true, true),
            new Case("ÄBC", "äb_", null, true, true),
            new Case("STRASSE", "%ſ%", null, true, true),
            new Case("\u212A", "k", null, true, true),
            new Case("ΌΣΟΣ", "όσος", null, true, true),
            new Case("abc", "A_C", null, true, true),
            new Case("abc", "%B%", null, true, true),
            new Case("abc", "%D", null, true, false));

    @Test
    void tableOfPatterns() {
        int n = CASES.size();
        for (int i = 0; i < n; i++) {
            Case c = CASES.get(i);
            for (boolean negated : new boolean[] {false, true}) {
                String what = c + (negated ? " NOT" : "");
                Object r = scalar(Kernels.like(
                        sc(DataType.UTF8, c.value()),
                        sc(DataType.UTF8, c.pattern()),
                        c.escape(),
                        negated,
                        c.caseInsensitive(),
                        1,
                        allocator));
                assertEquals(c.expected() != negated, r, what);
                // The array path (byte fast paths for constant patterns) agrees, with a null row around it.
                for (DataType t : List.of(DataType.UTF8, DataType.LARGE_UTF8)) {
                    assertEquals(
                            list(null, c.expected() != negated, null),
                            values(
                                    Kernels.like(
                                            arr(t, null, c.value(), null),
                                            sc(DataType.UTF8, c.pattern()),
                                            c.escape(),
                                            negated,
                                            c.caseInsensitive(),
                                            3,
                                            allocator),
                                    3),
                            what + " " + t);
                }
                // The general matcher on code points gives the same answer as the fast paths.
                assertEquals(
                        c.expected(),
                        LikePattern.compile(c.pattern(), c.escape(), c.caseInsensitive())
                                .matches(c.value()),
                        what);
            }
        }
    }

    @Test
    void arrayPatternsRowByRow() {
        List<Object> values = new ArrayList<>();
        List<Object> patterns = new ArrayList<>();
        List<Object> expected = new ArrayList<>();
        for (Case c : CASES) {
            if (c.escape() == null && !c.caseInsensitive()) {
                values.add(c.value());
                patterns.add(c.pattern());
                expected.add(c.expected());
            }
        }
        values.add(null);
        patterns.add("%");
        expected.add(null);
        values.add("x");
        patterns.add(null);
        expected.add(null);
        int n = values.size();
        assertEquals(
                expected,
                values(
                        Kernels.like(
                                arr(DataType.UTF8, values.toArray()),
                                arr(DataType.UTF8, patterns.toArray()),
                                null,
                                false,
                                false,
                                n,
                                allocator),
                        n));
        assertEquals(
                list(true, false),
                values(
                        Kernels.like(
                                sc(DataType.UTF8, "abc"),
                                arr(DataType.UTF8, "a%", "b%"),
                                null,
                                false,
                                false,
                                2,
                                allocator),
                        2));
    }

    @Test
    void nullsAndErrors() {
        assertEquals(
                null,
                scalar(Kernels.like(
                        sc(DataType.UTF8, null), sc(DataType.UTF8, "%"), null, false, false, 1, allocator)));
        assertEquals(
                list(null, null),
                values(
                        Kernels.like(
                                arr(DataType.UTF8, "a", "b"), sc(DataType.UTF8, null), null, true, false, 2, allocator),
                        2));
        EvaluationException e = assertThrows(
                EvaluationException.class,
                () -> Kernels.like(
                        arr(DataType.UTF8, "a"), sc(DataType.UTF8, "a\\"), '\\', false, false, 1, allocator));
        assertTrue(e.getMessage().contains("escape"), e.getMessage());
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.like(arr(DataType.INT32, 1), sc(DataType.UTF8, "1"), null, false, false, 1, allocator));
        assertEquals(
                list(),
                values(Kernels.like(arr(DataType.UTF8), sc(DataType.UTF8, "a%"), null, false, false, 0, allocator), 0));
    }

    @Test
    void randomStringsAgreeWithTheGeneralMatcher() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String alphabet = "ab%_é";
        for (int k = 0; k < 300; k++) {
            String p = randomString(random, alphabet, 5);
            String v = randomString(random, "abé", 7);
            LikePattern compiled = LikePattern.compile(p, null, false);
            try (FieldVector vec = Values.of(DataType.UTF8, "v", List.of(v), allocator)) {
                ColumnarValue r = Kernels.like(
                        ColumnarValue.Array.borrowed(vec), sc(DataType.UTF8, p), null, false, false, 1, allocator);
                assertEquals(
                        list(compiled.matches(v)), values(r, 1), "seed " + seed + ": '" + v + "' LIKE '" + p + "'");
                assertEquals(
                        v.matches(toRegex(p)), compiled.matches(v), "seed " + seed + ": '" + v + "' LIKE '" + p + "'");
            }
        }
    }

    private static String randomString(Random random, String alphabet, int maxLength) {
        StringBuilder sb = new StringBuilder();
        int n = random.nextInt(maxLength + 1);
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** An independent reference: the pattern as a regular expression. */
    private static String toRegex(String pattern) {
        StringBuilder sb = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            sb.append(c == '%' ? "(?s).*" : c == '_' ? "(?s)." : Pattern.quote(String.valueOf(c)));
        }
        return sb.toString();
    }

    // ---- random columns against an independent reference

    private record Like(String pattern, Character escape) {}

    /** Unicode simple case folding as the spec defines it: lower(upper(c)) per code point. */
    private static int foldReference(int c) {
        return Character.toLowerCase(Character.toUpperCase(c));
    }

    /**
     * The reference: the pattern translated to a java.util.regex (each literal code point quoted,
     * {@code %} to {@code .*}, {@code _} to {@code .}, which matches one code point), matched on
     * the Java string; ILIKE folds both sides first. Null when the pattern ends in a lone escape.
     */
    private static Pattern referenceRegex(String pattern, Character escape, boolean ci) {
        StringBuilder re = new StringBuilder();
        int[] cps = pattern.codePoints().toArray();
        for (int k = 0; k < cps.length; k++) {
            int c = cps[k];
            if (escape != null && c == escape) {
                if (++k == cps.length) {
                    return null;
                }
                re.append(Pattern.quote(Character.toString(ci ? foldReference(cps[k]) : cps[k])));
            } else if (c == '%') {
                re.append(".*");
            } else if (c == '_') {
                re.append('.');
            } else {
                re.append(Pattern.quote(Character.toString(ci ? foldReference(c) : c)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    private static Boolean referenceMatch(Pattern regex, String value, boolean ci, boolean negated) {
        if (value == null) {
            return null;
        }
        String v = ci
                ? value.codePoints()
                        .map(LikeKernelsTest::foldReference)
                        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                        .toString()
                : value;
        return regex.matcher(v).matches() != negated;
    }

    private static final List<Like> FIXED_PATTERNS = List.of(
            new Like("%", null),
            new Like("%%", null),
            new Like("", null),
            new Like("_", null),
            new Like("__", null),
            new Like("%_%", null),
            new Like("a%", null),
            new Like("%a", null),
            new Like("%a%", null),
            new Like("abc", null),
            new Like("abc%", null),
            new Like("%abc", null),
            new Like("%abc%", null),
            new Like("ABC%", null),
            new Like("%é%", null),
            new Like("%É%", null),
            new Like("é_", null),
            new Like("_😀%", null),
            new Like("%😀", null),
            new Like("日本%", null),
            new Like("%ſ%", null),
            new Like("s%", null),
            new Like("%S%", null),
            new Like("K%", null),
            new Like("k%", null),
            new Like("%\u212A%", null),
            new Like("%K%", null),
            new Like("%abcdefghijklmnop%", null),
            new Like("abcdefghijklmnopq", null),
            new Like("%-the-quick-%", null),
            new Like("%e-quick-brown-f%", null),
            new Like("%strasse", null),
            new Like("a\\%b", '\\'),
            new Like("%\\_%", '\\'),
            new Like("a!%%", '!'),
            new Like("%!!%", '!'),
            new Like("%!%", '!'),
            new Like("a\\", '\\'),
            new Like("%%a%%b%%", null),
            new Like("a%c", null),
            new Like("%a_c%", null),
            new Like("_b%", null),
            new Like("%b_", null),
            new Like("%XYZ_BC%", null),
            new Like("%xyz_bc%", null),
            new Like("A_C", null),
            new Like("a_c", null),
            new Like("%Z%a%", null),
            new Like("%z_a%", null),
            new Like("a%__x%", null),
            new Like("%__x", null),
            new Like("%_日_%", null));

    /** Fixed patterns, and patterns cut from the pool's values (so they match some rows) in every shape. */
    private static List<Like> patterns(List<Object> pool, Random r) {
        List<Like> out = new ArrayList<>(FIXED_PATTERNS);
        for (int k = 0; k < 24; k++) {
            String v = (String) pool.get(r.nextInt(pool.size()));
            int[] cps = v.codePoints().toArray();
            int from = cps.length == 0 ? 0 : r.nextInt(cps.length);
            int to = from + (cps.length == 0 ? 0 : r.nextInt(cps.length - from + 1));
            Character escape = switch (r.nextInt(3)) {
                case 0 -> null;
                case 1 -> '\\';
                default -> '!';
            };
            StringBuilder lit = new StringBuilder();
            for (int i = from; i < to; i++) {
                int c = cps[i];
                if (escape != null && (c == '%' || c == '_' || c == escape)) {
                    lit.append(escape.charValue());
                }
                if (r.nextInt(8) == 0 && escape != null) {
                    lit.append('_'); // a wildcard in the middle: the general matcher
                } else {
                    lit.appendCodePoint(c);
                }
            }
            String p = switch (k % 4) {
                case 0 -> lit + "%";
                case 1 -> "%" + lit;
                case 2 -> "%" + lit + "%";
                default -> lit.toString();
            };
            out.add(new Like(p, escape));
        }
        return out;
    }

    @Test
    void randomColumnsAgreeWithARegexReference() {
        Random r = new Random(PredicateTestData.seed("LikeKernelsTest"));
        List<Object> pool = PredicateTestData.pool(DataType.UTF8, r);
        List<Like> patterns = patterns(pool, r);
        for (DataType t : List.of(DataType.UTF8, DataType.LARGE_UTF8)) {
            for (int rows : PredicateTestData.BATCH_SIZES) {
                for (PredicateTestData.Nulls nulls : PredicateTestData.Nulls.values()) {
                    List<Object> values = PredicateTestData.column(pool, rows, nulls, r);
                    FieldVector vector = PredicateTestData.vectorWithGarbage(t, values, pool, r, allocator);
                    try {
                        ColumnarValue column = ColumnarValue.Array.borrowed(vector);
                        for (Like like : patterns) {
                            for (boolean ci : new boolean[] {false, true}) {
                                Pattern regex = referenceRegex(like.pattern(), like.escape(), ci);
                                if (regex == null) {
                                    assertThrows(
                                            EvaluationException.class,
                                            () -> LikePattern.compile(like.pattern(), like.escape(), ci));
                                    continue;
                                }
                                LikePattern compiled = LikePattern.compile(like.pattern(), like.escape(), ci);
                                boolean negated = r.nextBoolean();
                                List<Object> expected = values.stream()
                                        .map(v -> (Object) referenceMatch(regex, (String) v, ci, negated))
                                        .toList();
                                String what = t + " " + rows + " rows, " + nulls + " nulls: " + (negated ? "NOT " : "")
                                        + compiled;
                                assertEquals(
                                        expected,
                                        values(
                                                PredicateTestData.cleanTail(
                                                        Kernels.like(column, compiled, negated, rows, allocator)),
                                                rows),
                                        what);
                                if (rows > 1) {
                                    // A batch shorter than its vectors reads only its rows.
                                    assertEquals(
                                            expected.subList(0, rows - 1),
                                            values(
                                                    PredicateTestData.cleanTail(Kernels.like(
                                                            column, compiled, negated, rows - 1, allocator)),
                                                    rows - 1),
                                            what + ", one row fewer");
                                }
                                if (rows == 65) {
                                    assertEquals(
                                            expected,
                                            values(
                                                    Kernels.like(
                                                            column,
                                                            sc(t, like.pattern()),
                                                            like.escape(),
                                                            negated,
                                                            ci,
                                                            rows,
                                                            allocator),
                                                    rows),
                                            what + ", scalar pattern");
                                }
                                if (rows == 1) {
                                    assertEquals(
                                            expected.getFirst(),
                                            scalar(Kernels.like(
                                                    sc(t, values.getFirst()), compiled, negated, 1, allocator)),
                                            what + ", scalar value");
                                }
                            }
                        }
                        if (rows >= 64) {
                            // A pattern per row (compiled per distinct value), as an array.
                            for (boolean ci : new boolean[] {false, true}) {
                                List<Object> rowPatterns = new ArrayList<>();
                                List<Object> expected = new ArrayList<>();
                                for (int i = 0; i < rows; i++) {
                                    String pattern = patterns.get(r.nextInt(patterns.size()))
                                            .pattern();
                                    Pattern regex = referenceRegex(pattern, '\\', ci);
                                    boolean isNull = r.nextInt(10) == 0 || regex == null;
                                    rowPatterns.add(isNull ? null : pattern);
                                    expected.add(
                                            isNull ? null : referenceMatch(regex, (String) values.get(i), ci, false));
                                }
                                assertEquals(
                                        expected,
                                        values(
                                                Kernels.like(
                                                        column,
                                                        arr(t, rowPatterns.toArray()),
                                                        '\\',
                                                        false,
                                                        ci,
                                                        rows,
                                                        allocator),
                                                rows),
                                        t + " " + rows + " rows, " + nulls + " nulls, a pattern per row, ci " + ci);
                            }
                        }
                    } finally {
                        vector.close();
                    }
                }
            }
        }
    }

    @Test
    void strategiesFollowThePatternsShape() {
        Object[][] table = {
            {"%", null, false, LikePattern.Strategy.ANY},
            {"%%", null, false, LikePattern.Strategy.ANY},
            {"abc", null, false, LikePattern.Strategy.EXACT},
            {"", null, false, LikePattern.Strategy.EXACT},
            {"abc%", null, false, LikePattern.Strategy.PREFIX},
            {"%abc", null, false, LikePattern.Strategy.SUFFIX},
            {"%abc%", null, false, LikePattern.Strategy.CONTAINS},
            {"%a!%c%", '!', false, LikePattern.Strategy.CONTAINS},
            {"a_c%d", null, false, LikePattern.Strategy.GENERAL},
            {"a%c", null, false, LikePattern.Strategy.GENERAL},
            {"%é%", null, false, LikePattern.Strategy.CONTAINS},
            {"%é%", null, true, LikePattern.Strategy.GENERAL},
            {"ABC%", null, true, LikePattern.Strategy.PREFIX},
            {"%ſ%", null, true, LikePattern.Strategy.CONTAINS},
        };
        for (Object[] row : table) {
            LikePattern p = LikePattern.compile((String) row[0], (Character) row[1], (Boolean) row[2]);
            assertEquals(row[3], p.strategy(), p.toString());
        }
    }

    @Test
    void valuesThatEndWhereTheDataBufferEnds() {
        // The last value's bytes end at the buffer's capacity: word reads near the end must fall back to bytes.
        for (String last : List.of("xyzabc", "abcxyz", "ab", "abc", "é😀abc", "ABCſ", "a", "")) {
            try (VarCharVector v = new VarCharVector("v", allocator)) {
                v.allocateNew(64, 4);
                int capacity = Math.toIntExact(v.getDataBuffer().capacity());
                byte[] tail = last.getBytes(StandardCharsets.UTF_8);
                byte[] filler = "f".repeat(capacity - tail.length - 2).getBytes(StandardCharsets.UTF_8);
                v.set(0, "a".getBytes());
                v.set(1, filler);
                v.set(2, "b".getBytes());
                v.set(3, tail);
                v.setValueCount(4);
                assertEquals(capacity, v.getDataBuffer().capacity(), "the data buffer was not reallocated");
                assertEquals(capacity, v.getEndOffset(3), "the last value ends at the buffer's end");
                List<String> rows = List.of("a", new String(filler), "b", last);
                for (String pattern :
                        List.of("%abc", "abc%", "%abc%", "abc", "%c", "%_", "a%", "%ab_", "%é%", "%😀%c")) {
                    for (boolean ci : new boolean[] {false, true}) {
                        Pattern regex = referenceRegex(pattern, null, ci);
                        List<Object> expected = rows.stream()
                                .map(r -> (Object) referenceMatch(regex, r, ci, false))
                                .toList();
                        assertEquals(
                                expected,
                                values(
                                        Kernels.like(
                                                ColumnarValue.Array.borrowed(v),
                                                LikePattern.compile(pattern, null, ci),
                                                false,
                                                4,
                                                allocator),
                                        4),
                                "'" + last + "' " + (ci ? "ILIKE '" : "LIKE '") + pattern + "'");
                    }
                }
                for (int size : new int[] {2, 9}) {
                    List<ScalarValue> elements = new ArrayList<>();
                    for (int k = 0; k < size - 1; k++) {
                        elements.add(ScalarValue.of("k" + k));
                    }
                    elements.add(ScalarValue.of(last));
                    assertEquals(
                            list(last.equals("a"), false, false, true),
                            values(
                                    Kernels.inList(
                                            ColumnarValue.Array.borrowed(v),
                                            InList.of(DataType.UTF8, elements),
                                            List.of(),
                                            false,
                                            4,
                                            allocator),
                                    4),
                            "'" + last + "' IN " + size + " values");
                }
            }
        }
    }
}
