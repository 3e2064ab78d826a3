package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LikeKernelsTest extends KernelTestBase {
    private record Case(String value, String pattern, Character escape, boolean caseInsensitive, boolean expected) {
    }

    private static Case like(String v, String p, boolean expected) {
        return new Case(v, p, null, false, expected);
    }

    private static final List<Case> CASES = List.of(
            like("abc", "abc", true), like("abc", "ab", false), like("abc", "abcd", false), like("", "", true),
            like("abc", "a%", true), like("abc", "%c", true), like("abc", "%b%", true), like("abc", "%d%", false),
            like("abc", "%", true), like("", "%", true), like("", "_", false), like("abc", "___", true), like("abc", "__", false),
            like("abc", "a_c", true), like("abc", "a%b%c", true), like("aXbXc", "a%b%c", true), like("acb", "a%b%c", false),
            like("mississippi", "%iss%ipp%", true), like("mississippi", "m%ss%ss%", true), like("mississippi", "m%ss%ss%ss%", false), like("aaa", "%a%a%a%", true),
            like("aa", "%a%a%a%", false), like("ab", "a%%b", true), like("a%b", "a\\%b", false), like("a\\xb", "a\\%b", true),
            new Case("a%b", "a\\%b", '\\', false, true), new Case("axb", "a\\%b", '\\', false, false),
            new Case("a_b", "a#_b", '#', false, true), new Case("axb", "a#_b", '#', false, false),
            new Case("a#b", "a##b", '#', false, true), new Case("a%", "%#%", '#', false, true), new Case("a", "%#%", '#', false, false),
            new Case("abc", "a#bc", '#', false, true),
            like("日本語", "日_語", true), like("日本語", "__", false), like("😀x", "_x", true), like("😀x", "%x", true),
            like("naïve", "na_ve", true), like("naïve", "%ïv%", true), like("ABC", "abc", false), like("ABC", "a%", false),
            new Case("ABC", "abc", null, true, true), new Case("ABC", "a%", null, true, true), new Case("ÄBC", "äb_", null, true, true),
            new Case("STRASSE", "%ſ%", null, true, true), new Case("\u212A", "k", null, true, true), new Case("ΌΣΟΣ", "όσος", null, true, true),
            new Case("abc", "A_C", null, true, true), new Case("abc", "%B%", null, true, true), new Case("abc", "%D", null, true, false));

    @Test
    void tableOfPatterns() {
        int n = CASES.size();
        for (int i = 0; i < n; i++) {
            Case c = CASES.get(i);
            for (boolean negated : new boolean[]{false, true}) {
                String what = c + (negated ? " NOT" : "");
                Object r = scalar(Kernels.like(sc(DataType.UTF8, c.value()), sc(DataType.UTF8, c.pattern()), c.escape(), negated,
                        c.caseInsensitive(), 1, allocator));
                assertEquals(c.expected() != negated, r, what);
                // The array path (byte fast paths for constant patterns) agrees, with a null row around it.
                for (DataType t : List.of(DataType.UTF8, DataType.LARGE_UTF8)) {
                    assertEquals(list(null, c.expected() != negated, null), values(Kernels.like(arr(t, null, c.value(), null),
                            sc(DataType.UTF8, c.pattern()), c.escape(), negated, c.caseInsensitive(), 3, allocator), 3), what + " " + t);
                }
                // The general matcher on code points gives the same answer as the fast paths.
                assertEquals(c.expected(), LikePattern.compile(c.pattern(), c.escape(), c.caseInsensitive()).matches(c.value()), what);
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
        assertEquals(expected, values(Kernels.like(arr(DataType.UTF8, values.toArray()), arr(DataType.UTF8, patterns.toArray()),
                null, false, false, n, allocator), n));
        assertEquals(list(true, false), values(Kernels.like(sc(DataType.UTF8, "abc"), arr(DataType.UTF8, "a%", "b%"),
                null, false, false, 2, allocator), 2));
    }

    @Test
    void nullsAndErrors() {
        assertEquals(null, scalar(Kernels.like(sc(DataType.UTF8, null), sc(DataType.UTF8, "%"), null, false, false, 1, allocator)));
        assertEquals(list(null, null), values(Kernels.like(arr(DataType.UTF8, "a", "b"), sc(DataType.UTF8, null), null, true, false, 2, allocator), 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Kernels.like(arr(DataType.UTF8, "a"),
                sc(DataType.UTF8, "a\\"), '\\', false, false, 1, allocator));
        assertTrue(e.getMessage().contains("escape"), e.getMessage());
        assertThrows(UnsupportedOperationException.class, () -> Kernels.like(arr(DataType.INT32, 1), sc(DataType.UTF8, "1"),
                null, false, false, 1, allocator));
        assertEquals(list(), values(Kernels.like(arr(DataType.UTF8), sc(DataType.UTF8, "a%"), null, false, false, 0, allocator), 0));
    }

    @Test
    void randomStringsAgreeWithTheGeneralMatcher() {
        long seed = System.nanoTime();
        java.util.Random random = new java.util.Random(seed);
        String alphabet = "ab%_é";
        for (int k = 0; k < 300; k++) {
            String p = randomString(random, alphabet, 5);
            String v = randomString(random, "abé", 7);
            LikePattern compiled = LikePattern.compile(p, null, false);
            try (FieldVector vec = Values.of(DataType.UTF8, "v", List.of(v), allocator)) {
                ColumnarValue r = Kernels.like(ColumnarValue.Array.borrowed(vec), sc(DataType.UTF8, p), null, false, false, 1, allocator);
                assertEquals(list(compiled.matches(v)), values(r, 1), "seed " + seed + ": '" + v + "' LIKE '" + p + "'");
                assertEquals(v.matches(toRegex(p)), compiled.matches(v), "seed " + seed + ": '" + v + "' LIKE '" + p + "'");
            }
        }
    }

    private static String randomString(java.util.Random random, String alphabet, int maxLength) {
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
            sb.append(c == '%' ? "(?s).*" : c == '_' ? "(?s)." : java.util.regex.Pattern.quote(String.valueOf(c)));
        }
        return sb.toString();
    }
}
