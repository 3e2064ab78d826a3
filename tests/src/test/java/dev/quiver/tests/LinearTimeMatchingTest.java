package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.errors.ResourceException;
import dev.quiver.types.DataType;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

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
    private static final Schema SCHEMA =
            new Schema(List.of(DataType.UTF8.toField("s", true), DataType.UTF8.toField("p", true)));

    /** The expression over rows of (s, p), its values read back. */
    private List<Object> evaluate(String sql, List<String> s, List<String> p) {
        CompiledExpression e = quiver.compile(SCHEMA, sql);
        try (VectorSchemaRoot batch = TestColumns.batch(
                        s.size(),
                        TestColumns.of(allocator, "s", DataType.UTF8, s, null),
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
        List<String> patterns = Collections.nCopies(strings.size(), pattern);
        expect("regexp_matches(s, '" + pattern + "')", strings, patterns, expected);
        expect("regexp_matches(s, p)", strings, patterns, expected);
    }

    @Test
    void theReviewedPatternOnFiftySixCharactersAndOnTenThousand() {
        matches(
                "(.*a){20}x",
                List.of("a".repeat(56), A, A + "x", "a".repeat(19) + "x"),
                List.of(false, false, true, false));
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
        List<String> p = Collections.nCopies(3, "(a+)+$");
        expect("regexp_replace(s, '(a+)+$', 'Z')", s, p, List.of(A + "b", "bZ", X));
        expect("regexp_replace(s, p, 'Z', 'g')", s, p, List.of(A + "b", "bZ", X));
        expect("regexp_replace(s, '(x+x+)+y', 'Z', 'g')", s, p, List.of(A + "b", "b" + A, X));
    }

    /** Evaluates {@code e} over {@code s} on a thread of {@code stackBytes}: its values, or what it threw. */
    private Object onThread(CompiledExpression e, List<String> s, long stackBytes) throws InterruptedException {
        Object[] outcome = new Object[1];
        Thread t = new Thread(
                null,
                () -> {
                    try (VectorSchemaRoot batch = TestColumns.batch(
                                    s.size(),
                                    TestColumns.of(allocator, "s", DataType.UTF8, s, null),
                                    TestColumns.of(allocator, "p", DataType.UTF8, s, null));
                            FieldVector out = e.evaluate(batch, Placement.CPU)) {
                        outcome[0] = TestColumns.values(out);
                    } catch (Throwable x) {
                        outcome[0] = x;
                    }
                },
                "stack of " + stackBytes + " bytes",
                stackBytes);
        t.start();
        t.join();
        return outcome[0];
    }

    @Test
    void aPatternTooDeepForASmallThreadStackIsAClearError() throws InterruptedException {
        // 3,300 empty groups: 9,902 instructions, within the limit, and RE2/J's matcher recurses through every one of
        // them
        // before it consumes a character: more frames than a 128 KiB stack holds, whatever their size.
        String pattern = "()".repeat(3300);
        CompiledExpression e = quiver.compile(SCHEMA, "regexp_matches(s, '" + pattern + "')");
        List<String> s = List.of("", "b");
        Object small = onThread(e, s, 128 * 1024);
        assertEquals(0, allocator.getAllocatedMemory(), "bytes left allocated after the failure");
        if (!(small instanceof ResourceException failure)) {
            throw new AssertionError(
                    "expected a ResourceException, got " + small, small instanceof Throwable t ? t : null);
        }
        assertEquals(0, failure.row());
        assertTrue(
                failure.getMessage().startsWith("regexp_matches: the regular expression '()()()"),
                failure.getMessage());
        assertTrue(
                failure.getMessage()
                        .contains("(9902 instructions) is too complex to match on this thread's stack (row 0)"),
                failure.getMessage());
        // On a large stack the same expression matches (the empty groups match the empty string).
        assertEquals(List.of(true, true), onThread(e, s, 64L << 20));
        assertEquals(0, allocator.getAllocatedMemory(), "bytes left allocated");
    }

    @Test
    void likeWithManyWildcards() {
        String like = "%a%a%a%a%a%a%a%a%a%a%b";
        List<String> s = Arrays.asList(A, A + "b", "b" + A, null, "ab".repeat(N / 2));
        List<String> p = Collections.nCopies(s.size(), like);
        List<Object> expected = Arrays.asList(false, true, false, null, true);
        expect("s LIKE '" + like + "'", s, p, expected);
        expect("s ILIKE '" + like.toUpperCase(Locale.ROOT) + "'", s, p, expected);
        expect("s LIKE '%a_a_a_a_a_a_a_a_a_a%b'", s, p, expected);
        expect("s LIKE '" + "%a".repeat(200) + "%b'", s, p, expected);
    }
}
