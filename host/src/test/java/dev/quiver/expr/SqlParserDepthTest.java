package dev.quiver.expr;

import dev.quiver.SmallStack;
import dev.quiver.functions.PlanningException;
import dev.quiver.types.DataType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.function.UnaryOperator;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static dev.quiver.expr.Expr.when;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deep and long SQL text: nesting past {@link SqlParser#MAX_NESTING} is a planning error found
 * before JSqlParser runs (whose time grows steeply with nesting), text up to it parses to the tree
 * the builders make, and long chains of operators parse whatever their length. Every case runs on
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

    private static String tooDeep(String text, int column) {
        return "the expression text is nested more than 128 levels deep (parentheses, brackets and CASE) at column " + column
                + ", more than the SQL parser reads; build a deeper expression with the Expr builders, whose limit is"
                + " Quiver.builder().maxExpressionDepth(int) (docs/expressions.md#limits); the text begins \""
                + text.substring(0, 80) + "…\"";
    }

    @Test
    void nestingUpToTheLimitParsesToTheBuildersTree() {
        onSmallStack(() -> {
            int n = SqlParser.MAX_NESTING;
            assertEquals(chain(col("x"), n, e -> call("abs", e)), SqlParser.parse("abs(".repeat(n) + "x" + ")".repeat(n)));
            assertEquals(chain(col("x"), n, e -> when(col("b"), e).otherwise(lit(0))),
                    SqlParser.parse("CASE WHEN b THEN ".repeat(n) + "x" + " ELSE 0 END".repeat(n)));
            // Parentheses around each operand of a chain: x + (x + (x + ...)).
            assertEquals(chain(col("x"), n, e -> col("x").add(e)), SqlParser.parse("x + (".repeat(n) + "x" + ")".repeat(n)));
        });
    }

    @Test
    void nestingPastTheLimitIsAPlanningError() {
        onSmallStack(() -> {
            for (String open : new String[]{"(", "abs(", "CASE WHEN b THEN ", "[", "x + ("}) {
                String close = open.startsWith("CASE") ? " END" : open.equals("[") ? "]" : ")";
                String text = open.repeat(10_000) + "x" + close.repeat(10_000);
                PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text), open);
                // The level past the limit opens at the 129th CASE, or the 129th '(' or '[' (the last character of each).
                int column = open.startsWith("CASE") ? 128 * open.length() + 1 : 129 * open.length();
                assertEquals(tooDeep(text, column), e.getMessage(), open);
            }
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
     * A syntax error eighteen CASEs deep: JSqlParser's backtracking would take longer than anyone
     * waits (each level triples it), and is stopped at its budget with an error that says why.
     */
    @Test
    void aParseThatBacktracksPastItsBudgetIsStopped() {
        assertTimeoutPreemptively(Duration.ofMillis(SqlParser.parseBudgetMillis("") * 6), () -> SmallStack.run(() -> {
            String text = "CASE WHEN b THEN ".repeat(18) + "x y" + " END".repeat(18);
            PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text));
            assertEquals("the SQL parser gave up on this text after " + SqlParser.parseBudgetMillis(text) + " ms: JSqlParser backtracks"
                    + " in time exponential in the nesting (18 levels here) where the text has a syntax error; look for the error,"
                    + " or build the expression with the Expr builders (docs/expressions.md#limits); the text begins \""
                    + text.substring(0, 80) + "…\"", e.getMessage());
        }));
    }

    @Test
    void aChainOfCastsPastTheTreeLimitIsAPlanningError() {
        onSmallStack(() -> {
            int limit = 4 * SqlParser.MAX_NESTING;
            assertEquals(chain(col("x"), limit - 1, e -> e.cast(DataType.INT64)), SqlParser.parse("x" + "::BIGINT".repeat(limit - 1)));
            String text = "x" + "::BIGINT".repeat(10_000);
            PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text));
            assertEquals("the expression text is nested more than 128 levels deep (its tree has more than 512 levels that are not a"
                    + " chain of binary operators: casts, calls, CASE, parentheses), more than the SQL parser reads; build a deeper"
                    + " expression with the Expr builders, whose limit is Quiver.builder().maxExpressionDepth(int)"
                    + " (docs/expressions.md#limits); the text begins \"" + text.substring(0, 80) + "…\"", e.getMessage());
        });
    }

    /**
     * JSqlParser's complex mode, whose time grows threefold per level, is not tried on deeply nested
     * text; its plain mode finds this error at once.
     */
    @Test
    void aSyntaxErrorInDeeplyNestedTextIsFoundWithoutTheComplexMode() {
        onSmallStack(() -> {
            String text = "abs(".repeat(40) + "x y" + ")".repeat(40);
            PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text));
            assertTrue(e.getMessage().startsWith("syntax error at column "), e.getMessage());
            assertTrue(e.getMessage().endsWith("\n(text nested more than " + SqlParser.COMPLEX_PARSING_NESTING + " levels deep is read without JSqlParser's complex mode,"
                    + " whose time grows steeply with nesting: it reads no named arguments, POSITION(x IN s), SUBSTRING(s FROM n) or"
                    + " more than 16 parentheses in a row)"), e.getMessage());
            // Seventeen parentheses in a row: JSqlParser's plain mode does not read them, and says so with the note.
            PlanningException paren = assertThrows(PlanningException.class,
                    () -> SqlParser.parse("(".repeat(17) + "x" + ")".repeat(17)));
            assertTrue(paren.getMessage().contains("more than 16 parentheses in a row"), paren.getMessage());
            // Named arguments still parse where the text is shallow.
            assertEquals(Expr.callNamed("round", java.util.List.of("x", "digits"), col("x"), lit(2)),
                    SqlParser.parse("round(x => x, digits => 2)"));
        });
    }
}
