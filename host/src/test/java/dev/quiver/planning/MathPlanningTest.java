package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.Test;

/**
 * The math library (docs/math.md) planned from SQL: types, fusion into kernel programs (run
 * here by the reference interpreter), folding, NULLs, and the decimal and string paths of abs,
 * round and greatest.
 */
class MathPlanningTest extends PlanningTestBase {

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    private static BigDecimal d(String s) {
        return new BigDecimal(s);
    }

    // x Int32 [1, -2, NULL, 0, 5], y Float64 [1.5, NULL, 0.0, -4.0, 2.5], l Int64 [10, NULL, -3, 7, 0],
    // t8 Int8 [127, -128, NULL, 5, -1], dec Decimal(10,2) [1.25, -0.50, NULL, 10.00, 0.01].
    private static final Object[][] TABLE = {
        {"sign(x)", DataType.INT32, row(1, -1, null, 0, 1)},
        {"sign(y)", DataType.FLOAT64, row(1.0, null, 0.0, -1.0, 1.0)},
        {"floor(y)", DataType.FLOAT64, row(1.0, null, 0.0, -4.0, 2.0)},
        {"ceil(x)", DataType.INT32, row(1, -2, null, 0, 5)},
        {"trunc(y * -1)", DataType.FLOAT64, row(-1.0, null, -0.0, 4.0, -2.0)},
        {"round(y)", DataType.FLOAT64, row(2.0, null, 0.0, -4.0, 3.0)},
        {"round(y * 0.3, 1)", DataType.FLOAT64, row(0.5, null, 0.0, -1.2, 0.8)},
        {"round(x, -1)", DataType.FLOAT64, row(0.0, -0.0, null, 0.0, 10.0)},
        {"round(dec, 1)", new DataType.Decimal(10, 1), row(d("1.3"), d("-0.5"), null, d("10.0"), d("0.0"))},
        {"round(dec)", new DataType.Decimal(10, 0), row(d("1"), d("-1"), null, d("10"), d("0"))},
        {"trunc(dec, 1)", new DataType.Decimal(10, 1), row(d("1.2"), d("-0.5"), null, d("10.0"), d("0.0"))},
        {"trunc(dec)", new DataType.Decimal(10, 0), row(d("1"), d("0"), null, d("10"), d("0"))},
        {"abs(dec)", new DataType.Decimal(10, 2), row(d("1.25"), d("0.50"), null, d("10.00"), d("0.01"))},
        {"abs(t8)", DataType.INT32, row(127, 128, null, 5, 1)},
        {"mod(l, 3)", DataType.INT64, row(1L, null, 0L, 1L, 0L)},
        {"mod(x, t8)", DataType.INT32, row(1, -2, null, 0, 0)},
        {"gcd(x, l)", DataType.INT64, row(1L, null, null, 7L, 5L)},
        {"gcd(t8, 6)", DataType.INT32, row(1, 2, null, 1, 1)},
        {"sqrt(x)", DataType.FLOAT64, row(1.0, Double.NaN, null, 0.0, StrictMath.sqrt(5))},
        {
            "ln(y)",
            DataType.FLOAT64,
            row(StrictMath.log(1.5), null, Double.NEGATIVE_INFINITY, Double.NaN, StrictMath.log(2.5))
        },
        {
            "log(2, l)",
            DataType.FLOAT64,
            row(
                    StrictMath.log10(10) / StrictMath.log10(2),
                    null,
                    Double.NaN,
                    StrictMath.log10(7) / StrictMath.log10(2),
                    Double.NEGATIVE_INFINITY)
        },
        {
            "log10(CAST(x AS REAL))",
            DataType.FLOAT32,
            row(0.0f, Float.NaN, null, Float.NEGATIVE_INFINITY, (float) StrictMath.log10(5))
        },
        {"pow(x, 2)", DataType.FLOAT64, row(1.0, 4.0, null, 0.0, 25.0)},
        {"power(2, x)", DataType.FLOAT64, row(2.0, 0.25, null, 1.0, 32.0)},
        {
            "sin(y) * 2",
            DataType.FLOAT64,
            row(StrictMath.sin(1.5) * 2, null, 0.0, StrictMath.sin(-4.0) * 2, StrictMath.sin(2.5) * 2)
        },
        {
            "atan2(y, x)",
            DataType.FLOAT64,
            row(StrictMath.atan2(1.5, 1), null, null, StrictMath.atan2(-4.0, 0), StrictMath.atan2(2.5, 5))
        },
        {"degrees(pi()) + x", DataType.FLOAT64, row(181.0, 178.0, null, 180.0, 185.0)},
        {"greatest(x, y)", DataType.FLOAT64, row(1.5, -2.0, 0.0, 0.0, 5.0)},
        {"least(t8, x)", DataType.INT32, row(1, -128, null, 0, -1)},
        {
            "least(t8, CAST(NULL AS SMALLINT))",
            DataType.INT16,
            row((short) 127, (short) -128, null, (short) 5, (short) -1)
        },
        {"greatest(name, 'b')", DataType.UTF8, row("b", "b", "b", "b", "b")},
    };

    @Test
    void table() {
        List<FieldVector> b = batch();
        for (Object[] r : TABLE) {
            String sql = (String) r[0];
            PhysicalPlan p = plan(sql);
            assertEquals(r[1], p.outputType(), sql + "\n" + p.explain());
            List<Object> got = evaluate(p, b);
            for (int i = 0; i < got.size(); i++) {
                if (got.get(i) instanceof Text t) {
                    got.set(i, t.toString());
                }
            }
            assertEquals(r[2], got, sql + "\n" + p.explain());
        }
    }

    @Test
    void numericCallsFuseAndLiteralCallsFold() {
        for (String sql : List.of(
                "sin(y) * 2", "gcd(x, l)", "round(y, 1)", "mod(l, 3) * 2.5", "log(2, l)", "sign(y)", "abs(x)")) {
            assertInstanceOf(
                    FusedKernelExpr.class,
                    plan(sql).root(),
                    sql + "\n" + plan(sql).explain());
        }
        // A decimal or string argument is not a kernel type: the other implementation runs.
        for (String sql : List.of("round(dec, 1)", "abs(dec)", "greatest(name, 'b')")) {
            assertInstanceOf(ScalarFunctionExpr.class, plan(sql).root(), sql);
        }
        assertEquals(
                new LiteralExpr(new ScalarValue(DataType.FLOAT64, Math.PI)),
                plan("pi()").root());
        assertEquals(
                new LiteralExpr(new ScalarValue(DataType.INT32, 6)),
                plan("gcd(12, -18)").root());
        assertEquals(
                new LiteralExpr(new ScalarValue(DataType.FLOAT64, 3.0)),
                plan("log(10, 1000)").root());
        assertEquals(
                new LiteralExpr(new ScalarValue(DataType.INT32, 3)),
                plan("greatest(1, NULL, 3)").root());
        // The digits of round fold into the kernel: no argument for them.
        assertEquals(
                1,
                assertInstanceOf(FusedKernelExpr.class, plan("round(y, 2)").root())
                        .program()
                        .arity());
    }

    @Test
    void aZeroDivisorFailsAndALiteralOneFailsOnlyWhereRowsReachIt() {
        List<FieldVector> b = batch();
        KernelArithmeticException e =
                assertThrows(KernelArithmeticException.class, () -> evaluate(plan("mod(l, x - x)"), b));
        assertTrue(e.getMessage().contains("mod: division by zero"), e.getMessage());
        // mod(1, 0) does not fold (it fails): planning succeeds, a batch that reaches it fails.
        PhysicalPlan p = plan("mod(1, 0) + x");
        assertThrows(KernelArithmeticException.class, () -> evaluate(p, b));
        KernelArithmeticException g = assertThrows(
                KernelArithmeticException.class,
                () -> evaluate(plan("gcd(CAST(l AS INT) * 0 - 2147483647 - 1, 0)"), b));
        assertTrue(g.getMessage().contains("gcd: integer overflow"), g.getMessage());
    }

    @Test
    void floatArgumentsKeepTheirTypeAndIntegersAreReadAsFloat64() {
        assertEquals(DataType.FLOAT32, plan("sqrt(CAST(y AS REAL))").outputType());
        assertEquals(DataType.FLOAT32, plan("round(CAST(y AS REAL), 1)").outputType());
        assertEquals(DataType.FLOAT64, plan("sin(x)").outputType());
        assertEquals(DataType.FLOAT64, plan("exp(t8)").outputType());
        assertEquals(DataType.FLOAT64, plan("pow(CAST(y AS REAL), 2)").outputType());
        assertEquals(DataType.FLOAT64, plan("cos(dec)").outputType());
        assertEquals(DataType.INT64, plan("mod(u32, 7)").outputType());
    }
}
