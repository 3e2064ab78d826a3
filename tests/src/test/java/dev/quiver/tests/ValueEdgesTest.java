package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.expr.Expr;
import dev.quiver.types.DataType;
import dev.quiver.types.DataType.TimeUnit;
import dev.quiver.types.SqlTypes;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Values at the edges of their types, end to end, against hand-computed tables: round and trunc
 * of decimals at precision 38 with positive, zero and negative digits (PostgreSQL's values,
 * DataFusion's result types), decimal casts narrowing and widening, and timestamps of every
 * unit at the ends of the long range cast to text and back, shown in EXPLAIN and read back.
 * The errors at these edges are the golden cases of {@code bad-input/edges.txt}.
 */
class ValueEdgesTest extends QuiverTestBase {
    private static final String NINES_38 = "9".repeat(38);

    private record Case(String sql, DataType type, Object value) {}

    private static Case c(String sql, DataType type, String value) {
        return new Case(sql, type, value == null ? null : new BigDecimal(value));
    }

    private static DataType.Decimal dec(int p, int s) {
        return new DataType.Decimal(p, s);
    }

    private ScalarValue one(String sql) {
        Schema none = new Schema(List.of(DataType.INT32.toField("x", true)));
        try (FieldVector x = Values.of(DataType.INT32, "x", List.of(1), allocator);
                VectorSchemaRoot b = TestColumns.batch(1, x)) {
            try (FieldVector out = quiver.compile(none, sql).evaluate(b, Placement.CPU, allocator)) {
                return Values.get(out, 0);
            }
        }
    }

    @Test
    void roundAndTruncOfDecimalsAtTheEdgesOfPrecision() {
        String big = "CAST('" + NINES_38 + "' AS DECIMAL(38, 0))";
        String frac = "CAST('9999999999999999999999999999999999.9999' AS DECIMAL(38, 4))";
        List<Case> cases = List.of(
                c("round(" + frac + ", 2)", dec(38, 2), "10000000000000000000000000000000000.00"),
                c("round(" + frac + ")", dec(38, 0), "10000000000000000000000000000000000"),
                c("round(" + frac + ", -3)", dec(38, 0), "10000000000000000000000000000000000"),
                c("round(" + frac + ", 9)", dec(38, 4), "9999999999999999999999999999999999.9999"),
                c("trunc(" + frac + ", 2)", dec(38, 2), "9999999999999999999999999999999999.99"),
                c("trunc(" + frac + ", -3)", dec(38, 0), "9999999999999999999999999999999000"),
                c("trunc(" + big + ", -1)", dec(38, 0), "9".repeat(37) + "0"),
                c("round(" + big + ", 0)", dec(38, 0), NINES_38),
                c("round(" + big + ", -39)", dec(38, 0), "0"),
                c("round(CAST(555 AS DECIMAL(3, 0)), -3)", dec(4, 0), "1000"),
                c("round(CAST(-555 AS DECIMAL(3, 0)), -2)", dec(4, 0), "-600"),
                c("round(CAST(-99.99 AS DECIMAL(4, 2)), -2)", dec(4, 0), "-100"),
                c("round(CAST(-0.5 AS DECIMAL(2, 1)))", dec(2, 0), "-1"),
                c("trunc(CAST(-0.5 AS DECIMAL(2, 1)))", dec(2, 0), "0"),
                c("round(CAST(1.25 AS DECIMAL(3, 2)), 1)", dec(3, 1), "1.3"),
                c("round(CAST(1.25 AS DECIMAL(3, 2)), CAST(NULL AS INT))", dec(3, 0), null),
                c("round(CAST(1.5 AS DECIMAL(2, 1)), 2147483647)", dec(2, 1), "1.5"),
                c("trunc(CAST(1.5 AS DECIMAL(2, 1)), -2147483648)", dec(2, 0), "0"));
        for (Case k : cases) {
            ScalarValue v = one(k.sql);
            assertEquals(k.type, v.type(), k.sql);
            assertEquals(k.value, v.value(), k.sql);
        }
        // 38 nines rounded to tens (or to 10^38) carry into a 39th digit: no Decimal128 holds it.
        for (int digits : new int[] {-1, -38}) {
            KernelArithmeticException e =
                    assertThrows(KernelArithmeticException.class, () -> one("round(" + big + ", " + digits + ")"));
            assertTrue(
                    e.getMessage().contains(NINES_38) && e.getMessage().contains("Decimal128(38, 0)") && e.row() == 0,
                    e.getMessage());
        }
    }

    @Test
    void decimalCastsNarrowWidenAndCrossToOtherTypes() {
        List<Case> cases = List.of(
                c("CAST(CAST('" + NINES_38 + "' AS DECIMAL(38, 0)) AS DECIMAL(38, 0))", dec(38, 0), NINES_38),
                c(
                        "CAST(CAST('0.99999999999999999999999999999999999999' AS DECIMAL(38, 38)) AS DECIMAL(38, 37))",
                        dec(38, 37),
                        "1.0000000000000000000000000000000000000"),
                c("CAST(CAST('12345.678' AS DECIMAL(10, 3)) AS DECIMAL(6, 1))", dec(6, 1), "12345.7"),
                c(
                        "CAST(CAST('1.5' AS DECIMAL(2, 1)) AS DECIMAL(38, 37))",
                        dec(38, 37),
                        "1.5000000000000000000000000000000000000"),
                c("CAST(CAST(9223372036854775807 AS BIGINT) AS DECIMAL(19, 0))", dec(19, 0), "9223372036854775807"),
                c("CAST(CAST(-2.5 AS DOUBLE) AS DECIMAL(2, 0))", dec(2, 0), "-3"),
                c("CAST(1e37 AS DECIMAL(38, 0))", dec(38, 0), "10000000000000000000000000000000000000"),
                c("CAST(5e-324 AS DECIMAL(38, 38))", dec(38, 38), "0E-38"),
                c("CAST('  -1.5E+1 ' AS DECIMAL(5, 1))", dec(5, 1), "-15.0"),
                c("CAST('" + "0".repeat(100_000) + "1' AS DECIMAL(3, 0))", dec(3, 0), "1"),
                c("TRY_CAST('1e999999999' AS DECIMAL(38, 0))", dec(38, 0), null));
        for (Case k : cases) {
            ScalarValue v = one(k.sql);
            assertEquals(k.type, v.type(), k.sql);
            assertEquals(k.value, v.value(), k.sql);
        }
        assertEquals(
                -3L, one("CAST(CAST(-2.5 AS DECIMAL(2, 1)) AS BIGINT)").value(), "half away from zero, as PostgreSQL");
        assertEquals(
                1.0E38,
                one("CAST(CAST('" + NINES_38 + "' AS DECIMAL(38, 0)) AS DOUBLE)")
                        .value());
        assertEquals(
                NINES_38,
                one("CAST(CAST('" + NINES_38 + "' AS DECIMAL(38, 0)) AS VARCHAR)")
                        .value());
        assertEquals(
                "-0.00000000000000000000000000000000000001",
                one("CAST(CAST('-1e-38' AS DECIMAL(38, 38)) AS VARCHAR)").value(),
                "plain text, never an exponent");
    }

    /** Per unit: {Long.MIN_VALUE text, Long.MAX_VALUE text}. */
    private static final Object[][] ENDS = {
        {TimeUnit.SECOND, "-292277022657-01-27 08:29:52", "+292277026596-12-04 15:30:07"},
        {TimeUnit.MILLISECOND, "-292275055-05-16 16:47:04.192", "+292278994-08-17 07:12:55.807"},
        {TimeUnit.MICROSECOND, "-290308-12-21 19:59:05.224192", "+294247-01-10 04:00:54.775807"},
        {TimeUnit.NANOSECOND, "1677-09-21 00:12:43.145224192", "2262-04-11 23:47:16.854775807"}
    };

    @Test
    void timestampsOfEveryUnitCastToTextAndBackAtTheEndsOfTheirRange() {
        for (Object[] end : ENDS) {
            TimeUnit unit = (TimeUnit) end[0];
            for (String zone : new String[] {null, "UTC", "Asia/Kolkata"}) {
                DataType.Timestamp type = new DataType.Timestamp(unit, zone);
                List<Long> values = Arrays.asList(Long.MIN_VALUE, -1L, null, 0L, Long.MAX_VALUE);
                try (FieldVector t = Values.of(type, "t", values, allocator);
                        VectorSchemaRoot b = TestColumns.batch(5, t)) {
                    String name = SqlTypes.sqlName(type);
                    CompiledExpression text = quiver.compile(b.getSchema(), "CAST(t AS VARCHAR)");
                    List<Object> texts = TestColumns.valuesAndClose(text.evaluate(b, Placement.CPU, allocator));
                    assertEquals(end[1], texts.get(0), type + " at Long.MIN_VALUE");
                    assertEquals(end[2], texts.get(4), type + " at Long.MAX_VALUE");
                    assertEquals(TemporalTextOf.minusOneTick(unit), texts.get(1), type + " at -1");
                    CompiledExpression back =
                            quiver.compile(b.getSchema(), "CAST(CAST(t AS VARCHAR) AS " + name + ") = t");
                    assertEquals(
                            Arrays.asList(true, true, null, true, true),
                            TestColumns.valuesAndClose(back.evaluate(b, Placement.CPU, allocator)),
                            type + ": text and back");
                }
            }
            // A literal at the end shows in EXPLAIN as SQL that reads back as the same literal.
            DataType.Timestamp type = new DataType.Timestamp(unit, null);
            ScalarValue max = new ScalarValue(type, Long.MAX_VALUE);
            String sql = max.toSql();
            assertEquals(SqlTypes.sqlName(type) + " '" + end[2] + "'", sql);
            assertEquals(Expr.lit(max), Expr.parse(sql), sql);
            Schema none = new Schema(List.of(DataType.INT32.toField("x", true)));
            String explain = quiver.compile(none, Expr.lit(max).isNull()).explain();
            assertTrue(explain.contains(sql), explain);
        }
    }

    /** The text of -1 tick, per unit, computed by hand. */
    private static final class TemporalTextOf {
        static String minusOneTick(TimeUnit unit) {
            return switch (unit) {
                case SECOND -> "1969-12-31 23:59:59";
                case MILLISECOND -> "1969-12-31 23:59:59.999";
                case MICROSECOND -> "1969-12-31 23:59:59.999999";
                case NANOSECOND -> "1969-12-31 23:59:59.999999999";
            };
        }
    }
}
