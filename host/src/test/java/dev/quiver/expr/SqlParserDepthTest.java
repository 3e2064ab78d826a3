package dev.quiver.expr;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static dev.quiver.expr.Expr.when;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.SmallStack;
import dev.quiver.functions.PlanningException;
import dev.quiver.sql.SqlLimits;
import dev.quiver.sql.SqlParser;
import dev.quiver.types.DataType;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Deep and long SQL text: nesting past the limit ({@link SqlParser#MAX_NESTING} by default) is a
 * planning error found before the parser runs, text up to it parses to the tree the builders make, and long chains of operators parse whatever their length. Every case runs on
 * a 256 KiB stack (the parser works on threads of its own) under a generous hang guard.
 */
class SqlParserDepthTest {
    /** A guard against a hang, not a timing: each case takes well under a second. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(120);

    private static void onSmallStack(SmallStack.Body body) {
        assertTimeoutPreemptively(HANG_GUARD, () -> SmallStack.run(body));
    }

    private static Expr chain(Expr leaf, int n, UnaryOperator<Expr> level) {
        Expr e = leaf;
        for (int i = 0; i < n; i++) {
            e = level.apply(e);
        }
        return e;
    }

    private static String tooDeep(String text, int column, int limit) {
        return "the expression text is nested deeper than " + limit
                + " levels (parentheses, brackets, braces and CASE) at column "
                + column
                + "; raise the limit with -Dquiver.sql.maxNesting=N or SqlParser.parse(text, new SqlLimits(N)), or build"
                + " the expression with the Expr builders (docs/expressions.md#limits); the text begins \""
                + text.substring(0, 80) + "…\"";
    }

    @Test
    void nestingUpToTheLimitParsesToTheBuildersTree() {
        onSmallStack(() -> {
            int n = SqlParser.MAX_NESTING;
            assertEquals(
                    chain(col("x"), n, e -> call("abs", e)), SqlParser.parse("abs(".repeat(n) + "x" + ")".repeat(n)));
            assertEquals(
                    chain(col("x"), n, e -> when(col("b"), e).otherwise(lit(0))),
                    SqlParser.parse("CASE WHEN b THEN ".repeat(n) + "x" + " ELSE 0 END".repeat(n)));
            // Parentheses around each operand of a chain: x + (x + (x + ...)).
            assertEquals(
                    chain(col("x"), n, e -> col("x").add(e)), SqlParser.parse("x + (".repeat(n) + "x" + ")".repeat(n)));
        });
    }

    @Test
    void nestingPastTheLimitIsAPlanningError() {
        onSmallStack(() -> {
            for (String open : new String[] {"(", "abs(", "CASE WHEN b THEN ", "[", "x + (", "NOT ("}) {
                String close = open.startsWith("CASE") ? " END" : open.equals("[") ? "]" : ")";
                String text = open.repeat(10_000) + "x" + close.repeat(10_000);
                PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text), open);
                // The level past the limit opens at the 1,001st CASE, or the 1,001st '(' or '[' (the last character of
                // each).
                int column = open.startsWith("CASE") ? 1_000 * open.length() + 1 : 1_001 * open.length();
                assertEquals(tooDeep(text, column, SqlParser.MAX_NESTING), e.getMessage(), open);
            }
        });
    }

    /** The limit is the caller's: 10,000 levels parse with a limit above them, and fail with a limit below. */
    @Test
    void theNestingLimitIsConfigurable() {
        onSmallStack(() -> {
            int n = 10_000;
            assertEquals(
                    chain(col("x"), n, e -> e.not()),
                    SqlParser.parse("NOT (".repeat(n) + "x" + ")".repeat(n), new SqlLimits(n)));
            assertEquals(col("x"), SqlParser.parse("(".repeat(n) + "x" + ")".repeat(n), new SqlLimits(n)));
            String text = "abs(".repeat(20) + "x" + ")".repeat(20);
            PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text, new SqlLimits(19)));
            assertTrue(
                    e.getMessage().startsWith("the expression text is nested deeper than 19 levels"), e.getMessage());
        });
    }

    @Test
    void longChainsParseWhateverTheirLength() {
        onSmallStack(() -> {
            int n = 20_000;
            Expr sum = col("x");
            StringBuilder text = new StringBuilder("x");
            for (int i = 1; i < n; i++) {
                sum = sum.add(col("x"));
                text.append(" + x");
            }
            assertEquals(sum, SqlParser.parse(text.toString()));
            Expr ors = col("a").eq(lit(0));
            StringBuilder orText = new StringBuilder("a = 0");
            for (int i = 1; i < 5_000; i++) {
                ors = ors.or(col("a").eq(lit(i)));
                orText.append(" OR a = ").append(i);
            }
            assertEquals(ors, SqlParser.parse(orText.toString()));
        });
    }

    /**
     * A syntax error deep in nested text is reported at its place, at once: the parser never backtracks
     * (JSqlParser, before, took time exponential in the nesting here).
     */
    @Test
    void aSyntaxErrorDeepInNestedTextIsFoundAtOnce() {
        onSmallStack(() -> {
            String text = "CASE WHEN b THEN ".repeat(500) + "x y" + " END".repeat(500);
            PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text));
            int column = 500 * "CASE WHEN b THEN ".length() + 3;
            assertTrue(e.getMessage().startsWith("syntax error at column " + column + " in \""), e.getMessage());
            assertTrue(e.getMessage().contains(": expected "), e.getMessage());
            String calls = "abs(".repeat(500) + "x y" + ")".repeat(500);
            PlanningException c = assertThrows(PlanningException.class, () -> SqlParser.parse(calls));
            assertTrue(c.getMessage().startsWith("syntax error at column " + (500 * 4 + 3) + " in \""), c.getMessage());
        });
    }

    /** Chains of postfix and prefix operators are loops in the grammar: 10,000 casts or minus signs parse. */
    @Test
    void chainsOfCastsAndPrefixOperatorsParseWhateverTheirLength() {
        onSmallStack(() -> {
            int n = 10_000;
            assertEquals(chain(col("x"), n, e -> e.cast(DataType.INT64)), SqlParser.parse("x" + "::BIGINT".repeat(n)));
            assertEquals(chain(col("x"), n, e -> e.neg()), SqlParser.parse("- ".repeat(n) + "x"));
            assertEquals(chain(col("x"), n, e -> e.not()), SqlParser.parse("NOT ".repeat(n) + "x"));
            assertEquals(chain(col("x"), n, e -> e.isNotNull()), SqlParser.parse("x" + " IS NOT NULL".repeat(n)));
        });
    }

    /** The forms JSqlParser read only in its slow mode (named arguments, POSITION, SUBSTRING FROM) parse at any depth. */
    @Test
    void everyFormParsesDeepInTheText() {
        onSmallStack(() -> {
            int n = SqlParser.MAX_NESTING - 2;
            assertEquals(col("x"), SqlParser.parse("(".repeat(17) + "x" + ")".repeat(17)));
            assertEquals(
                    chain(col("x"), n / 2, e -> Expr.callNamed("round", List.of("x", "digits"), e, lit(2))),
                    SqlParser.parse("round(x => ".repeat(n / 2) + "x" + ", digits => 2)".repeat(n / 2)));
            assertEquals(
                    chain(col("x"), n, e -> call("strpos", e, lit("a"))),
                    SqlParser.parse("POSITION('a' IN ".repeat(n) + "x" + ")".repeat(n)));
            assertEquals(
                    chain(col("x"), n, e -> call("substring", e, lit(2))),
                    SqlParser.parse("SUBSTRING(".repeat(n) + "x" + " FROM 2)".repeat(n)));
        });
    }
}
