package dev.quiver.expr;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static dev.quiver.expr.Expr.when;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.quiver.SmallStack;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@code equals}, {@code hashCode} and {@code toString} of trees far deeper than a thread's stack
 * could recurse through, on a 256 KiB stack: a record's generated methods would overflow at a few
 * thousand levels. Texts are checked against strings built here by hand.
 */
class DeepExprTest {
    private static final int DEEP = 100_000;

    /** {@code first + x + x + ...}, {@code n} terms, left-deep: {@code n} levels. */
    private static Expr sum(Expr first, int n) {
        Expr e = first;
        for (int i = 1; i < n; i++) {
            e = e.add(col("x"));
        }
        return e;
    }

    private static Expr chain(Expr leaf, int n, UnaryOperator<Expr> level) {
        Expr e = leaf;
        for (int i = 1; i < n; i++) {
            e = level.apply(e);
        }
        return e;
    }

    /** {@code open} n-1 times, the leaf, {@code close} n-1 times. */
    private static String nested(String open, String leaf, String close, int n) {
        return open.repeat(n - 1) + leaf + close.repeat(n - 1);
    }

    @Test
    void aHundredThousandTermSumPrintsComparesAndHashes() {
        SmallStack.run(() -> {
            Expr a = sum(col("x"), DEEP);
            Expr b = sum(col("x"), DEEP);
            StringBuilder text = new StringBuilder("(".repeat(DEEP - 1)).append('x');
            for (int i = 1; i < DEEP; i++) {
                text.append(" + x)");
            }
            assertEquals(text.toString(), a.toString());
            assertEquals(a, b);
            assertEquals(a.hashCode(), b.hashCode());
            // The one difference is the deepest leaf.
            assertNotEquals(a, sum(col("y"), DEEP));
            assertNotEquals(a, sum(col("x"), DEEP - 1));
            assertEquals("((((((((((…", ExprText.sql(a, 10));
        });
    }

    /** Every node kind that has a subexpression, nested in itself {@code DEEP} levels. */
    @Test
    void everyKindOfNodeNestsDeeply() {
        SmallStack.run(() -> {
            record Case(
                    String name, Expr leaf, UnaryOperator<Expr> level, String open, String leafText, String close) {}
            List<Case> cases = List.of(
                    new Case("NOT", col("b"), Expr::not, "(NOT ", "b", ")"),
                    new Case("minus", col("x"), Expr::neg, "(- ", "x", ")"),
                    new Case("IS NULL", col("b"), Expr::isNull, "(", "b", " IS NULL)"),
                    new Case("CAST", col("x"), e -> e.cast(DataType.INT64), "CAST(", "x", " AS BIGINT)"),
                    new Case("TRY_CAST", col("x"), e -> e.tryCast(DataType.INT64), "TRY_CAST(", "x", " AS BIGINT)"),
                    new Case(
                            "CASE in THEN",
                            col("x"),
                            e -> when(col("b"), e).otherwise(lit(0)),
                            "CASE WHEN b THEN ",
                            "x",
                            " ELSE 0 END"),
                    new Case(
                            "CASE in WHEN",
                            col("b"),
                            e -> when(e, lit(true)).end(),
                            "CASE WHEN ",
                            "b",
                            " THEN TRUE END"),
                    new Case("call", col("x"), e -> call("abs", e), "abs(", "x", ")"),
                    new Case("IN", col("x"), e -> e.in(lit(1)), "(", "x", " IN (1))"),
                    new Case("BETWEEN", col("x"), e -> lit(0).between(e, lit(9)), "(0 BETWEEN ", "x", " AND 9)"),
                    new Case("LIKE", col("s"), e -> e.like(lit("a%")), "(", "s", " LIKE 'a%')"),
                    new Case("comparison", col("b"), e -> e.eq(col("c")), "(", "b", " = c)"),
                    new Case("AND", col("b"), e -> col("c").and(e), "(c AND ", "b", ")"),
                    new Case(
                            "subquery", col("x"), e -> Expr.scalarSubquery(e, "t", null), "(SELECT ", "x", " FROM t)"));
            for (Case c : cases) {
                Expr a = chain(c.leaf(), DEEP, c.level());
                Expr b = chain(c.leaf(), DEEP, c.level());
                assertEquals(nested(c.open(), c.leafText(), c.close(), DEEP), a.toString(), c.name());
                assertEquals(a, b, c.name());
                assertEquals(a.hashCode(), b.hashCode(), c.name());
                assertNotEquals(a, chain(col("other"), DEEP, c.level()), c.name());
            }
        });
    }

    @Test
    void wideNodesPrintAndCompare() {
        SmallStack.run(() -> {
            List<Expr> args = new ArrayList<>();
            StringBuilder text = new StringBuilder("concat(");
            for (int i = 0; i < 1_000; i++) {
                args.add(col("c" + i));
                text.append(i == 0 ? "" : ", ").append("c").append(i);
            }
            Expr wide = call("concat", args);
            assertEquals(text.append(')').toString(), wide.toString());
            assertEquals(wide, call("concat", new ArrayList<>(args)));
            args.set(999, col("other"));
            assertNotEquals(wide, call("concat", args));
        });
    }
}
