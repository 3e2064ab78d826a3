package dev.quiver.expr;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.callNamed;
import static dev.quiver.expr.Expr.caseOf;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static dev.quiver.expr.Expr.nullLit;
import static dev.quiver.expr.Expr.when;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExprTest {

    /** Builds the same tree twice from scratch, so equality cannot come from identity. */
    private static Expr sample() {
        return when(col("x").gt(lit(0)).and(col("s").like(lit("a%"))), call("sqrt", col("x")))
                .when(col("x").in(lit(1), lit(2)), lit(2.5).neg())
                .otherwise(nullLit(DataType.FLOAT64).cast(DataType.FLOAT64));
    }

    @Test
    void equalTreesAreEqualAndHashAlike() {
        Expr a = sample();
        Expr b = sample();
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(lit(new byte[] {1, 2}), lit(new byte[] {1, 2}));
        assertEquals(lit(new byte[] {1, 2}).hashCode(), lit(new byte[] {1, 2}).hashCode());
        assertEquals(lit(Double.NaN), lit(Double.NaN));
    }

    @Test
    void differentTreesDiffer() {
        assertNotEquals(lit(2), lit(2L));
        assertNotEquals(lit(0.0), lit(-0.0));
        assertNotEquals(col("x"), col("X"));
        assertNotEquals(col("t", "x"), col("t.x"));
        assertNotEquals(nullLit(), nullLit(DataType.INT32));
        assertNotEquals(nullLit().cast(DataType.INT32), nullLit(DataType.INT32));
        assertNotEquals(col("a").sub(col("b")), col("b").sub(col("a")));
        assertNotEquals(col("x").like(lit("a")), col("x").ilike(lit("a")));
    }

    @Test
    void listsAreCopied() {
        List<Expr> args = new ArrayList<>(List.of(col("x")));
        Expr.Call c = call("f", args);
        args.add(col("y"));
        assertEquals(1, c.args().size());
        assertThrows(UnsupportedOperationException.class, () -> c.args().add(col("z")));
        assertThrows(UnsupportedOperationException.class, () -> c.argNames().set(0, "n"));

        Expr[] values = {lit(1), lit(2)};
        Expr.InList in = (Expr.InList) col("x").in(values);
        values[0] = lit(9);
        assertEquals(List.of(lit(1), lit(2)), in.list());
        assertThrows(UnsupportedOperationException.class, () -> in.list().clear());

        List<Expr.WhenThen> branches = new ArrayList<>(List.of(new Expr.WhenThen(col("a"), lit(1))));
        Expr.Case k = new Expr.Case(null, branches, null);
        branches.clear();
        assertEquals(1, k.branches().size());
        assertThrows(UnsupportedOperationException.class, () -> k.branches().clear());

        List<String> names = new ArrayList<>(Arrays.asList(null, "y"));
        Expr.Call named = new Expr.Call("f", List.of(col("a"), col("b")), names);
        names.set(1, "z");
        assertEquals("y", named.argNames().get(1));
    }

    @Test
    void buildersMakeTheExpectedRecords() {
        assertEquals(new Expr.Column(null, "x"), col("x"));
        assertEquals(new Expr.Column("t", "x"), col("t", "x"));
        assertEquals(new Expr.Literal(new ScalarValue(DataType.INT32, 2)), lit(2));
        assertEquals(new Expr.Literal(new ScalarValue(DataType.INT64, 2L)), lit(2L));
        assertEquals(new Expr.Literal(new ScalarValue(DataType.UTF8, "a")), lit("a"));
        assertEquals(new Expr.Literal(ScalarValue.nullOf(DataType.NULL)), nullLit());
        assertEquals(new Expr.Binary(col("a"), Operator.PLUS, col("b")), col("a").add(col("b")));
        assertEquals(
                new Expr.Binary(col("a"), Operator.IS_NOT_DISTINCT_FROM, col("b")),
                col("a").isNotDistinctFrom(col("b")));
        assertEquals(new Expr.Not(col("a")), col("a").not());
        assertEquals(new Expr.IsNull(col("a"), true), col("a").isNotNull());
        assertEquals(new Expr.Negative(col("a")), col("a").neg());
        assertEquals(new Expr.Cast(col("a"), DataType.INT64), col("a").cast(DataType.INT64));
        assertEquals(new Expr.TryCast(col("a"), DataType.INT64), col("a").tryCast(DataType.INT64));
        assertEquals(new Expr.InList(col("a"), List.of(lit(1)), true), col("a").notIn(lit(1)));
        assertEquals(new Expr.Between(col("a"), lit(1), lit(2), true), col("a").notBetween(lit(1), lit(2)));
        assertEquals(new Expr.Like(col("a"), lit("x"), null, true, true), col("a").notIlike(lit("x")));
        assertEquals(
                new Expr.Case(col("x"), List.of(new Expr.WhenThen(lit(1), lit("one"))), null),
                caseOf(col("x")).when(lit(1), lit("one")).end());
        assertEquals(
                new Expr.Case(null, List.of(new Expr.WhenThen(col("c"), lit(1))), lit(2)),
                when(col("c"), lit(1)).otherwise(lit(2)));
        assertEquals(new Expr.Call("f", List.of(col("a")), Arrays.asList("n")), callNamed("f", List.of("n"), col("a")));
        assertEquals(new Expr.Alias(col("a"), "b"), col("a").alias("b"));
        assertFalse(call("f", col("a")).hasNamedArgs());
        assertTrue(callNamed("f", List.of("n"), col("a")).hasNamedArgs());
    }

    @Test
    void invalidTreesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new Expr.Case(null, List.of(), null));
        assertThrows(IllegalArgumentException.class, () -> new Expr.InList(col("x"), List.of(), false));
        assertThrows(
                IllegalArgumentException.class,
                () -> new Expr.Call("f", List.of(col("a"), col("b")), Arrays.asList("n", null)));
        assertThrows(IllegalArgumentException.class, () -> new Expr.Call("f", List.of(col("a")), List.of()));
        assertThrows(NullPointerException.class, () -> col(null));
        assertThrows(NullPointerException.class, () -> col("a").add(null));
    }

    @Test
    void children() {
        Expr x = col("x");
        Expr y = col("y");
        assertEquals(List.of(), x.children());
        assertEquals(List.of(), lit(1).children());
        assertEquals(List.of(x, y), x.add(y).children());
        assertEquals(List.of(x), x.not().children());
        assertEquals(List.of(x), x.isNull().children());
        assertEquals(List.of(x), x.neg().children());
        assertEquals(List.of(x), x.cast(DataType.INT64).children());
        assertEquals(List.of(x), x.tryCast(DataType.INT64).children());
        assertEquals(List.of(x, lit(1), lit(2)), x.in(lit(1), lit(2)).children());
        assertEquals(List.of(x, lit(1), lit(2)), x.between(lit(1), lit(2)).children());
        assertEquals(List.of(x, lit("a")), x.like(lit("a")).children());
        assertEquals(List.of(x, y), call("f", x, y).children());
        assertEquals(List.of(x), x.alias("z").children());
        assertEquals(
                List.of(x, lit(1), lit("one"), lit("other")),
                caseOf(x).when(lit(1), lit("one")).otherwise(lit("other")).children());
        assertEquals(List.of(x, lit(1)), when(x, lit(1)).end().children());
    }

    @Test
    void toStringIsSql() {
        assertEquals(
                "((x + 1) > \"Total\")", col("x").add(lit(1)).gt(col("Total")).toString());
        assertEquals("(- (-2))", lit(-2).neg().toString());
        assertEquals("(- x)", col("x").neg().toString());
        assertEquals(
                "CAST(x AS DECIMAL(10, 2))",
                col("x").cast(new DataType.Decimal(10, 2)).toString());
        assertEquals(
                "\"MyFn\"(x, scale => 2)",
                callNamed("MyFn", Arrays.asList(null, "scale"), col("x"), lit(2))
                        .toString());
        assertEquals("\"select\".\"from\"", col("select", "from").toString());
        assertEquals("NULL::BIGINT", nullLit(DataType.INT64).toString());
        assertEquals("BIGINT '5'", lit(5L).toString());
        assertEquals("3000000000", lit(3000000000L).toString());
        assertEquals(
                "TIMESTAMP_MS '2024-01-31 10:00:00.5'",
                lit(1706695200_500L, new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, null))
                        .toString());
        assertEquals("(x + 1) AS y", col("x").add(lit(1)).alias("y").toString());
    }
}
