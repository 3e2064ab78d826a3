package dev.quiver.tests;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.types.DataType;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The patterns that make a backtracking matcher take exponential time, on strings of 10,000
 * characters, through regexp_matches, regexp_replace and LIKE: each must give its hand-computed
 * value well inside a generous hang guard (java.util.regex needed more than 60 s for
 * {@code (.*a){20}x} on 56 characters). Literal patterns and pattern columns both. And a pattern
 * within the limits that still overflows a small thread stack while matching (RE2/J's matcher
 * recurses along empty-width instructions) is a clear error, not a {@code StackOverflowError}.
 */
class LinearTimeMatchingTest extends QuiverTestBase {
    private static final Duration GUARD = Duration.ofSeconds(10);
    private static final int N = 10_000;
    private static final String A = "a".repeat(N);
    private static final String X = "x".repeat(N);
    private static final Schema SCHEMA = new Schema(List.of(DataType.UTF8.toField("s", true), DataType.UTF8.toField("p", true)));

    /** The expression over rows of (s, p), its values read back. */
    private List<Object> evaluate(String sql, List<String> s, List<String> p) {
        CompiledExpression e = quiver.compile(SCHEMA, sql);
        try (VectorSchemaRoot batch = TestColumns.batch(s.size(), TestColumns.of(allocator, "s", DataType.UTF8, s, null),
                TestColumns.of(allocator, "p", DataType.UTF8, p, null));
             FieldVector out = e.evaluate(batch, Placement.CPU)) {
            return TestColumns.values(out);
        }
    }

    private void expect(String sql, List<String> s, List<String> p, List<Object> expected) {
        assertTimeoutPreemptively(GUARD, () -> assertEquals(expected, evaluate(sql, s, p), sql));
        assertEquals(0, allocator.getAllocatedMemory(), sql + ": bytes left allocated");
    }

    /** Each pattern as a literal and as a column (the same pattern on every row), over the given strings. */
    private void matches(String pattern, List<String> strings, List<Object> expected) {
        List<String> patterns = java.util.Collections.nCopies(strings.size(), pattern);
        expect("regexp_matches(s, '" + pattern + "')", strings, patterns, expected);
        expect("regexp_matches(s, p)", strings, patterns, expected);
    }

    @Test
    void theReviewedPatternOnFiftySixCharactersAndOnTenThousand() {
        matches("(.*a){20}x", List.of("a".repeat(56), A, A + "x", "a".repeat(19) + "x"), List.of(false, false, true, false));
    }

    @Test
    void nestedQuantifiers() {
        matches("(a+)+$", List.of(A + "b", A), List.of(false, true));
        matches("(a|aa)+b", List.of(A, A + "b"), List.of(false, true));
        matches("(x+x+)+y", List.of(X, X + "y"), List.of(false, true));
        matches("^(a|a?)+$", List.of(A + "!", A), List.of(false, true));
        matches("(\\w+\\s?)+$", List.of(A + "!", A), List.of(false, true));
    }

    @Test
    void replacementsAfterCatastrophicPatterns() {
        List<String> s = List.of(A + "b", "b" + A, X);
        List<String> p = java.util.Collections.nCopies(3, "(a+)+$");
        expect("regexp_replace(s, '(a+)+$', 'Z')", s, p, List.of(A + "b", "bZ", X));
        expect("regexp_replace(s, p, 'Z', 'g')", s, p, List.of(A + "b", "bZ", X));
        expect("regexp_replace(s, '(x+x+)+y', 'Z', 'g')", s, p, List.of(A + "b", "b" + A, X));
    }

    @Test
    void aPatternTooDeepForASmallThreadStackIsAClearError() throws InterruptedException {
        String pattern = "(?:a*)".repeat(4000); // 8002 instructions: within the limit; matching "" runs through every one
        CompiledExpression e = quiver.compile(SCHEMA, "regexp_matches(s, '" + pattern + "')");
        List<String> s = List.of("", "b");
        Throwable[] failure = new Throwable[1];
        Thread small = new Thread(null, () -> {
            try (VectorSchemaRoot batch = TestColumns.batch(2, TestColumns.of(allocator, "s", DataType.UTF8, s, null),
                    TestColumns.of(allocator, "p", DataType.UTF8, s, null))) {
                e.evaluate(batch, Placement.CPU).close();
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "small stack", 128 * 1024);
        small.start();
        small.join();
        assertEquals(IllegalArgumentException.class, failure[0] == null ? null : failure[0].getClass(), String.valueOf(failure[0]));
        assertTrue(failure[0].getMessage().startsWith("regexp_matches: the regular expression '(?:a*)(?:a*)"), failure[0].getMessage());
        assertTrue(failure[0].getMessage().contains("(8002 instructions) is too complex to match on this thread's stack"),
                failure[0].getMessage());
        assertEquals(0, allocator.getAllocatedMemory(), "bytes left allocated after the failure");
        // On an ordinary stack the same expression matches (a* matches the empty string).
        expect("regexp_matches(s, '" + pattern + "')", s, s, List.of(true, true));
    }

    @Test
    void likeWithManyWildcards() {
        String like = "%a%a%a%a%a%a%a%a%a%a%b";
        List<String> s = Arrays.asList(A, A + "b", "b" + A, null, "ab".repeat(N / 2));
        List<String> p = java.util.Collections.nCopies(s.size(), like);
        List<Object> expected = Arrays.asList(false, true, false, null, true);
        expect("s LIKE '" + like + "'", s, p, expected);
        expect("s ILIKE '" + like.toUpperCase(java.util.Locale.ROOT) + "'", s, p, expected);
        expect("s LIKE '%a_a_a_a_a_a_a_a_a_a%b'", s, p, expected);
        expect("s LIKE '" + "%a".repeat(200) + "%b'", s, p, expected);
    }
}
