package dev.quiver.functions.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.re2j.Pattern;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RegexLimits}: RE2's rule for nested repetitions, against what DuckDB (RE2) answers for
 * the same patterns; the nesting depth; and the size estimate against the size RE2/J compiles to.
 */
class RegexLimitsTest {

    /** Accepted by DuckDB 1.4 (RE2): nested counted repetitions that multiply to at most 1000. */
    private static final List<String> RE2_ACCEPTS = List.of(
            "(a{10}){100}",
            "(?:a{2}b{500}){2}",
            "((a{10}){10}){10}",
            "(a{2,}){500}",
            "(a*){1000}",
            "(a{0}){1000}",
            "(a{0,1}){1000}",
            "(a{1,2}){500}",
            "a{2}|b{1000}",
            "[{]{100}",
            "a\\{100\\}{100}",
            "\\Q(a{100}){100}\\E",
            "(?i)(a{100}){10}",
            "(a{100}|b){10}",
            "(a{1}){1000}",
            "((a{1}){1000}){1}",
            "(a{3}){333}",
            "a{1000}",
            "[a-z]{1000}");

    /** Rejected by DuckDB 1.4 (RE2) with "invalid repetition size": {@code (a{100}){100}} and its kin. */
    private static final List<String> RE2_REJECTS = List.of(
            "(a{100}){100}",
            "(a{10}){101}",
            "(?:a{2}b{501}){2}",
            "((a{10}){10}){11}",
            "(a{2,}){501}",
            "(a{1,2}){501}",
            "(a{100}|b){11}",
            "(a{3}){334}",
            "((a{1000}){1000}){1000}");

    @Test
    void nestedRepetitionsFollowRe2() {
        for (String p : RE2_ACCEPTS) {
            assertNull(RegexLimits.check(p), p);
            Regex.compile(p, Regex.Options.DEFAULT); // and RE2/J compiles it within the size limit
        }
        for (String p : RE2_REJECTS) {
            String why = RegexLimits.check(p);
            assertTrue(why != null && why.startsWith("invalid repetition size {"), p + ": " + why);
        }
    }

    @Test
    void groupsNestAtMostAThousandDeep() {
        for (String open : new String[] {"(", "(?:", "(?i:"}) {
            String ok = open.repeat(1000) + "a" + ")".repeat(1000);
            assertNull(RegexLimits.check(ok), open);
            assertTrue(Regex.compile(ok, Regex.Options.DEFAULT).matcher("a").find(), open);
            assertEquals(
                    "groups nest more than 1000 deep",
                    RegexLimits.check(open.repeat(1001) + "a" + ")".repeat(1001)),
                    open);
        }
        // What only looks like a group does not count.
        assertNull(RegexLimits.check("(?i)".repeat(2000) + "[(]".repeat(2000) + "\\(".repeat(2000) + "\\Q((((\\E"));
    }

    @Test
    void theEstimateStaysNearRe2jsProgramSize() {
        Random rnd = new Random(20260);
        String[] atoms = {
            "a", "[a-z]", ".", "\\d", "\\pL", "(?:ab|cd)", "(x)", "\\b", "^", "é", "[[:alpha:]]", "\\x{263a}", "(?i:k)"
        };
        String[] repeats = {"", "", "*", "+?", "?", "{3}", "{2,5}", "{4,}", "{0,7}"};
        for (int t = 0; t < 500; t++) {
            StringBuilder p = new StringBuilder();
            int n = 1 + rnd.nextInt(12);
            for (int k = 0; k < n; k++) {
                if (k > 0 && rnd.nextInt(6) == 0) {
                    p.append('|');
                }
                String atom = atoms[rnd.nextInt(atoms.length)];
                if (rnd.nextInt(4) == 0) {
                    atom = "(" + atom + atoms[rnd.nextInt(atoms.length)] + ")";
                }
                p.append(atom).append(repeats[rnd.nextInt(repeats.length)]);
            }
            String pattern = rnd.nextInt(3) == 0 ? "(?:" + p + "){" + (2 + rnd.nextInt(40)) + "}" : p.toString();
            long estimate = RegexLimits.estimate(pattern);
            int size = Pattern.compile(pattern).programSize();
            // Never far below (the check before compiling catches every blow-up), never above the slack (no pattern
            // within the
            // limit is refused by the estimate).
            assertTrue(size <= 2 * estimate + 8, pattern + ": estimate " + estimate + ", RE2/J " + size);
            assertTrue(
                    estimate <= RegexLimits.ESTIMATE_SLACK * (long) size,
                    pattern + ": estimate " + estimate + ", RE2/J " + size);
        }
    }

    @Test
    void aProgramOverTheLimitIsRefusedExactly() {
        assertNull(RegexLimits.check("[a-z]".repeat(9_998)));
        assertEquals(
                10_000,
                Regex.compile("[a-z]".repeat(9_998), Regex.Options.DEFAULT).programSize());
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Regex.compile("[a-z]".repeat(9_999), Regex.Options.DEFAULT));
        assertTrue(
                e.getMessage()
                        .endsWith("the pattern is too large: it compiles to 10001 instructions, the limit is 10000"),
                e.getMessage());
    }
}
