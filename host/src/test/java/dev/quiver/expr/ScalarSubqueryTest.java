package dev.quiver.expr;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static dev.quiver.expr.Expr.scalarSubquery;
import static dev.quiver.expr.Expr.when;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.functions.PlanningException;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** {@link Expr.ScalarSubquery}: the record, its SQL text, what {@code SqlParser} reads into it and what it rejects. */
class ScalarSubqueryTest {
    private static final Expr X = col("x");
    private static final Expr Y = col("y");
    private static final Expr.ScalarSubquery EUR =
            scalarSubquery(col("rate"), "rates", col("cur").eq(lit("EUR")));
    private static final Expr.ScalarSubquery ONE = new Expr.ScalarSubquery(col("rate"), "rates", null, 1L);

    private static Expr.ScalarSubquery sub(Expr select, String table, Expr where, Long limit) {
        return new Expr.ScalarSubquery(select, table, where, limit);
    }

    // ---------------------------------------------------------------- the record

    @Test
    void recordAndBuilder() {
        assertEquals(sub(col("a"), "t", null, null), scalarSubquery(col("a"), "t", null));
        assertEquals(sub(col("a"), "t", X, null), scalarSubquery(col("a"), "t", X));
        assertEquals(0L, sub(col("a"), "t", null, 0L).limit());
        assertNull(EUR.limit());
        assertEquals(
                "the LIMIT of a subquery must be at least 0, got -1",
                assertThrows(IllegalArgumentException.class, () -> sub(col("a"), "t", null, -1L))
                        .getMessage());
        assertEquals(
                "select is null",
                assertThrows(NullPointerException.class, () -> scalarSubquery(null, "t", null))
                        .getMessage());
        assertEquals(
                "table is null",
                assertThrows(NullPointerException.class, () -> scalarSubquery(col("a"), null, null))
                        .getMessage());
    }

    @Test
    void itsColumnsAreNotTheChildrenOfTheExpressionAroundIt() {
        assertEquals(List.of(), EUR.children());
        assertEquals(List.of(X, EUR), X.gt(EUR).children());
    }

    @Test
    void toStringIsSql() {
        assertEquals("(SELECT rate FROM rates WHERE (cur = 'EUR'))", EUR.toString());
        assertEquals("(SELECT rate FROM rates LIMIT 1)", ONE.toString());
        assertEquals(
                "(SELECT \"a b\" FROM \"s.My Rates\" WHERE (\"T\".x > 1) LIMIT 0)",
                sub(col("a b"), "s.My Rates", col("T", "x").gt(lit(1)), 0L).toString());
        assertEquals(
                "(x > ((SELECT rate FROM rates LIMIT 1) * 2))",
                X.gt(ONE.mul(lit(2))).toString());
        assertEquals("(- (SELECT rate FROM rates LIMIT 1))", ONE.neg().toString());
        assertEquals(
                "(SELECT rate FROM \"select\")",
                scalarSubquery(col("rate"), "select", null).toString());
    }

    // ---------------------------------------------------------------- round trips

    static List<Expr> corpus() {
        Expr.ScalarSubquery plain = scalarSubquery(col("a"), "t", null);
        return List.of(
                plain,
                EUR,
                ONE,
                sub(
                        col("rate"),
                        "rates",
                        col("cur").eq(lit("EUR")).and(col("day").gt(lit(3))),
                        5L),
                sub(col("a"), "t", null, 0L),
                sub(col("a"), "t", null, 3_000_000_000L),
                sub(col("a"), "t", null, Long.MAX_VALUE),
                // nested in arithmetic and comparisons
                X.gt(EUR.mul(lit(2))),
                X.gt(EUR).and(Y.lt(ONE)),
                EUR.add(lit(1)).lt(Y),
                ONE.sub(EUR).div(lit(2.5)),
                X.mul(EUR.add(ONE)),
                EUR.eq(ONE),
                EUR.isDistinctFrom(X),
                ONE.neg(),
                ONE.neg().neg(),
                EUR.not(),
                EUR.isNull(),
                EUR.isNotNull(),
                EUR.cast(DataType.INT64),
                EUR.tryCast(DataType.FLOAT32),
                X.in(EUR, lit(1)),
                EUR.notIn(lit(1), lit(2)),
                X.between(EUR, ONE),
                EUR.notBetween(lit(0), X),
                EUR.like(lit("a%")),
                col("name").ilike(EUR),
                call("coalesce", EUR, lit(0)),
                call("round", EUR, lit(2)),
                when(EUR.gt(lit(0)), ONE).otherwise(X),
                Expr.caseOf(EUR).when(lit(1), lit("one")).end(),
                EUR.alias("eur_rate"),
                X.add(ONE).alias("Total"),
                // qualified and quoted tables
                scalarSubquery(col("a"), "s.rates", null),
                scalarSubquery(col("a"), "My Rates", null),
                scalarSubquery(col("a"), "Sales.Q1 Rates", X.gt(lit(0))),
                scalarSubquery(col("a"), "select", null),
                scalarSubquery(col("a"), "order", null),
                scalarSubquery(col("a"), "q\"uote", null),
                scalarSubquery(col("a"), "T", null),
                scalarSubquery(col("a"), "c.s.r", null),
                scalarSubquery(col("a"), "a..b", null),
                scalarSubquery(col("a"), ".a", null),
                scalarSubquery(col("a"), "My Schema.x y", null),
                scalarSubquery(col("a"), "s.q\"uote", null),
                // quoted identifiers and expressions inside
                scalarSubquery(col("a b"), "t", col("select").eq(lit("it's"))),
                scalarSubquery(col("T", "X"), "T", null),
                scalarSubquery(call("max", col("rate")), "rates", null),
                scalarSubquery(col("a").mul(lit(2)).neg(), "t", null),
                scalarSubquery(when(col("a").gt(lit(1)), lit(2)).end(), "t", col("b").in(lit(1), lit(2))),
                scalarSubquery(lit(1), "t", null),
                scalarSubquery(Expr.nullLit(DataType.INT64), "t", lit(true)),
                // a subquery inside a subquery
                scalarSubquery(col("a"), "r", col("b").eq(scalarSubquery(col("c"), "s", null))),
                sub(scalarSubquery(col("c"), "s", col("d").lt(ONE)), "r", null, 1L));
    }

    @TestFactory
    Stream<DynamicTest> roundTrip() {
        return corpus().stream()
                .map(e -> DynamicTest.dynamicTest(e.toString(), () -> {
                    Expr back = Expr.parse(e.toString());
                    assertEquals(e, back, "text: " + e);
                    assertEquals(e.toString(), back.toString());
                }));
    }

    // ---------------------------------------------------------------- reading SQL

    @TestFactory
    Stream<DynamicTest> reads() {
        Map<String, Expr> cases = new LinkedHashMap<>();
        cases.put("x > (SELECT rate FROM rates WHERE cur = 'EUR')", X.gt(EUR));
        cases.put("(SELECT rate FROM rates WHERE cur = 'EUR')", EUR);
        cases.put("  ( select rate from rates where cur = 'EUR' )  ", EUR);
        cases.put("((SELECT rate FROM rates WHERE cur = 'EUR'))", EUR);
        cases.put("x > (SELECT rate FROM rates WHERE cur = 'EUR') * 2", X.gt(EUR.mul(lit(2))));
        cases.put("(SELECT rate FROM rates LIMIT 1) + 1 < y", ONE.add(lit(1)).lt(Y));
        cases.put("-(SELECT rate FROM rates LIMIT 1)", ONE.neg());
        cases.put("NOT (SELECT rate FROM rates LIMIT 1)", ONE.not());
        cases.put("(SELECT rate FROM rates LIMIT 1)::BIGINT", ONE.cast(DataType.INT64));
        cases.put("coalesce((SELECT rate FROM rates LIMIT 1), 0)", call("coalesce", ONE, lit(0)));
        cases.put("(SELECT rate AS r FROM rates LIMIT 1)", ONE);
        cases.put("(SELECT rate r FROM rates LIMIT 1)", ONE);
        cases.put("(SELECT ALL rate FROM rates LIMIT 1)", ONE);
        cases.put("(SELECT rate FROM rates LIMIT 00)", sub(col("rate"), "rates", null, 0L));
        cases.put(
                "(SELECT rate FROM rates LIMIT 9223372036854775807)", sub(col("rate"), "rates", null, Long.MAX_VALUE));
        cases.put("(SELECT rate FROM s.rates)", scalarSubquery(col("rate"), "s.rates", null));
        cases.put("(SELECT rate FROM \"S\".\"My Rates\")", scalarSubquery(col("rate"), "S.My Rates", null));
        cases.put("(SELECT rate FROM \"S.My Rates\")", scalarSubquery(col("rate"), "S.My Rates", null));
        cases.put("(SELECT rate FROM c.s.rates)", scalarSubquery(col("rate"), "c.s.rates", null));
        cases.put("(SELECT rate FROM \"C\".s.\"Rates\")", scalarSubquery(col("rate"), "C.s.Rates", null));
        cases.put(
                "(SELECT \"a b\" FROM \"T\" WHERE \"T\".\"X\" = 1)",
                scalarSubquery(col("a b"), "T", col("T", "X").eq(lit(1))));
        cases.put(
                "(SELECT a FROM r WHERE b = (SELECT c FROM s))",
                scalarSubquery(col("a"), "r", col("b").eq(scalarSubquery(col("c"), "s", null))));
        cases.put("(SELECT rate FROM rates LIMIT 1) AS z", ONE.alias("z"));
        cases.forEach((text, expected) -> assertEquals(
                expected.toString(), Expr.parse(expected.toString()).toString()));
        return cases.entrySet().stream()
                .map(c -> DynamicTest.dynamicTest(
                        c.getKey(), () -> assertEquals(c.getValue(), Expr.parse(c.getKey()), c.getKey())));
    }

    // ---------------------------------------------------------------- what it rejects

    @Test
    void rejectsEveryOtherFormOfSelectByName() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("(SELECT * FROM rates)", "'*' in a subquery");
        cases.put("(SELECT rates.* FROM rates)", "'*' in a subquery");
        cases.put("(SELECT a, * FROM rates)", "'*' in a subquery");
        cases.put("(SELECT a, b FROM rates)", "several select items in a subquery");
        cases.put("(SELECT a FROM r JOIN s ON r.k = s.k)", "a join in a subquery");
        cases.put("(SELECT a FROM r LEFT JOIN s ON r.k = s.k)", "a join in a subquery");
        cases.put("(SELECT a FROM r, s)", "several FROM items in a subquery");
        cases.put("(SELECT a FROM (SELECT a FROM r))", "a subquery as FROM item");
        cases.put("(SELECT a FROM (SELECT a FROM r) AS q)", "a subquery as FROM item");
        cases.put("(SELECT a FROM r GROUP BY a)", "GROUP BY in a subquery");
        cases.put("(SELECT max(a) FROM r HAVING max(a) > 1)", "HAVING in a subquery");
        cases.put("(SELECT a FROM r ORDER BY a)", "ORDER BY in a subquery");
        cases.put("(SELECT a FROM r ORDER BY a DESC LIMIT 1)", "ORDER BY in a subquery");
        cases.put("(SELECT DISTINCT a FROM r)", "DISTINCT in a subquery");
        cases.put("(SELECT DISTINCT ON (a) a FROM r)", "DISTINCT in a subquery");
        cases.put("(SELECT a FROM r LIMIT 1 OFFSET 2)", "OFFSET in a subquery");
        cases.put("(SELECT a FROM r OFFSET 2)", "OFFSET in a subquery");
        cases.put("(SELECT a FROM r LIMIT 2, 1)", "OFFSET in a subquery");
        cases.put("(SELECT a FROM r UNION SELECT b FROM s)", "UNION (a set operation)");
        cases.put("(SELECT a FROM r UNION ALL SELECT b FROM s)", "UNION ALL (a set operation)");
        cases.put("(SELECT a FROM r INTERSECT SELECT b FROM s)", "INTERSECT (a set operation)");
        cases.put("(SELECT a FROM r EXCEPT SELECT b FROM s)", "EXCEPT (a set operation)");
        cases.put("(WITH t AS (SELECT a FROM r) SELECT a FROM t)", "WITH in a subquery");
        cases.put("EXISTS (SELECT a FROM r)", "EXISTS");
        cases.put("NOT EXISTS (SELECT a FROM r)", "EXISTS");
        cases.put("x IN (SELECT a FROM r)", "IN (SELECT ...)");
        cases.put("x NOT IN (SELECT a FROM r)", "IN (SELECT ...)");
        cases.put("x = ANY (SELECT a FROM r)", "ANY/ALL/SOME");
        cases.put("x > ALL (SELECT a FROM r)", "ANY/ALL/SOME");
        cases.put("(SELECT 1)", "a subquery without FROM");
        cases.put("(SELECT a FROM r t)", "a table alias in a subquery");
        cases.put("(SELECT a FROM r AS t)", "a table alias in a subquery");
        cases.put("(SELECT a FROM r TABLESAMPLE SYSTEM (10))", "a table with TABLESAMPLE, hints or other decorations");
        cases.put("(SELECT a FROM r LIMIT x)", "LIMIT x (LIMIT takes a non-negative integer literal)");
        cases.put("(SELECT a FROM r LIMIT -1)", "LIMIT -1 (LIMIT takes a non-negative integer literal)");
        cases.put("(SELECT a FROM r LIMIT 1.5)", "LIMIT 1.5 (LIMIT takes a non-negative integer literal)");
        cases.put("(SELECT a FROM r LIMIT ALL)", "LIMIT ALL (LIMIT takes a non-negative integer literal)");
        cases.put("(SELECT a FROM r LIMIT NULL)", "LIMIT NULL (LIMIT takes a non-negative integer literal)");
        cases.put("(SELECT TOP 1 a FROM r)", "TOP in a subquery");
        cases.put("(SELECT a FROM r FETCH FIRST 1 ROWS ONLY)", "FETCH in a subquery");
        cases.put(
                "(SELECT a FROM r WHERE a > 1 QUALIFY a > 1)",
                "a subquery clause other than SELECT, FROM, WHERE and LIMIT");
        cases.put("(SELECT a FROM r FOR UPDATE)", "a subquery clause other than SELECT, FROM, WHERE and LIMIT");
        cases.put("(SELECT a INTO b FROM r)", "a subquery clause other than SELECT, FROM, WHERE and LIMIT");
        cases.put("((SELECT a FROM r) LIMIT 1)", "a clause after a parenthesized subquery");
        cases.put("((SELECT a FROM r) ORDER BY a)", "ORDER BY in a subquery");
        cases.put("(VALUES 1)", "VALUES as a subquery");
        // inside an accepted subquery, an unsupported construct is still named
        cases.put("x > (SELECT a FROM r WHERE b IN (SELECT c FROM s))", "IN (SELECT ...)");
        cases.put("(SELECT count(*) FROM r)", "'*'");
        List<String> failures = new ArrayList<>();
        cases.forEach((text, what) -> {
            PlanningException e = assertThrows(PlanningException.class, () -> Expr.parse(text), text);
            if (!(e.getMessage().startsWith(what)
                    && e.getMessage().contains(" is not supported in a Quiver expression: ")
                    && e.getMessage().endsWith("(in \"" + text + "\")"))) {
                failures.add(text + " -> " + e.getMessage());
            }
        });
        assertEquals(List.of(), failures);
    }

    @Test
    void rejectionMessagesQuoteTheSubqueryAndTheText() {
        assertEquals(
                "GROUP BY in a subquery is not supported in a Quiver expression: (SELECT a FROM r GROUP BY a) "
                        + "(in \"x > (SELECT a FROM r GROUP BY a)\")",
                assertThrows(PlanningException.class, () -> Expr.parse("x > (SELECT a FROM r GROUP BY a)"))
                        .getMessage());
        assertEquals(
                "LIMIT out of range (Int64): 9223372036854775808 (in \"(SELECT a FROM r LIMIT 9223372036854775808)\")",
                assertThrows(PlanningException.class, () -> Expr.parse("(SELECT a FROM r LIMIT 9223372036854775808)"))
                        .getMessage());
    }

    @Test
    void aSelectWithoutParenthesesIsASyntaxError() {
        String m = assertThrows(PlanningException.class, () -> Expr.parse("SELECT a FROM r"))
                .getMessage();
        assertTrue(m.startsWith("syntax error at column 1 in \"SELECT a FROM r\""), m);
    }
}
