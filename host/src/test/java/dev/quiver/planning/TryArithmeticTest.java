package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.PlanningException;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * try_add, try_subtract, try_multiply, try_divide and try_mod end to end: typed as their
 * operators, NULL where the operator raises, the operator's value everywhere else.
 */
class TryArithmeticTest extends PlanningTestBase {
    private static List<Object> row(Object... v) {
        return Arrays.asList(v);
    }

    /** {try_ call, the operator form, result type, values of rows 0..4 of the default batch}. */
    private static final Object[][] TABLE = {
        {"try_divide(x, 0)", "x / 0", DataType.INT32, row(null, null, null, null, null)},
        {"try_mod(l, 0)", "l % 0", DataType.INT64, row(null, null, null, null, null)},
        {"try_add(x, 2147483647)", "x + 2147483647", DataType.INT32, row(null, 2147483645, null, 2147483647, null)},
        {
            "try_subtract(x, -2147483647)",
            "x - -2147483647",
            DataType.INT32,
            row(null, 2147483645, null, 2147483647, null)
        },
        {"try_multiply(x, 1073741824)", "x * 1073741824", DataType.INT32, row(1073741824, -2147483648, null, 0, null)},
        {"try_divide(10, x)", "10 / x", DataType.INT32, row(10, -5, null, null, 2)},
        {"try_mod(x, x)", "x % x", DataType.INT32, row(0, 0, null, null, 0)},
        {"try_add(t8, t8)", "t8 + t8", DataType.INT8, row(null, null, null, (byte) 10, (byte) -2)},
        {"try_add(u32, u32)", "u32 + u32", DataType.UINT32, row(null, 0L, null, 14L, 2L)},
        {"try_multiply(l, x)", "l * x", DataType.INT64, row(10L, null, null, 0L, 0L)},
        {"try_divide(dec, 0)", "dec / 0", new DataType.Decimal(21, 13), row(null, null, null, null, null)},
        {
            "try_multiply(dec, dec)",
            "dec * dec",
            new DataType.Decimal(21, 4),
            row(
                    new BigDecimal("1.5625"),
                    new BigDecimal("0.2500"),
                    null,
                    new BigDecimal("100.0000"),
                    new BigDecimal("0.0001"))
        },
        {"try_add(\"day\", 1)", "\"day\" + 1", DataType.DATE32, row(19754, null, 1, 11017, 0)},
        {
            "try_add(\"day\", 2147483647)",
            "\"day\" + 2147483647",
            DataType.DATE32,
            row(null, null, 2147483647, null, 2147483646)
        },
        {"try_subtract(\"day\", \"day\")", "\"day\" - \"day\"", DataType.INT64, row(0L, null, 0L, 0L, 0L)},
        {
            "try_divide(y, 0.0)",
            "y / 0.0",
            DataType.FLOAT64,
            row(Double.POSITIVE_INFINITY, null, Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY)
        },
        {"try_add(x, y)", "x + y", DataType.FLOAT64, row(2.5, null, null, -4.0, 7.5)},
    };

    @Test
    void typedAsTheOperatorAndNullWhereTheOperatorRaises() {
        List<FieldVector> b = batch();
        for (Object[] r : TABLE) {
            String sql = (String) r[0];
            String operator = (String) r[1];
            PhysicalPlan p = plan(sql);
            PhysicalPlan q = plan(operator);
            assertEquals(r[2], p.outputType(), sql + "\n" + p.explain());
            assertEquals(q.outputType(), p.outputType(), sql + " is typed as " + operator);
            List<Object> values = evaluate(p, b);
            assertEquals(r[3], values, sql + "\n" + p.explain());
            // Rows the try_ form computes equal the operator's rows (which may raise or, when fused, wrap where try_ is
            // NULL).
            List<Object> operatorValues;
            try {
                operatorValues = evaluate(q, b);
            } catch (KernelArithmeticException e) {
                assertTrue(values.contains(null), sql + ": " + operator + " raised " + e.getMessage());
                continue;
            }
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i) != null) {
                    assertEquals(operatorValues.get(i), values.get(i), sql + " vs " + operator + ", row " + i);
                }
            }
        }
    }

    @Test
    void theOperatorsRaiseWhereTryGivesNull() {
        List<FieldVector> b = batch();
        // (Int32/Int64 + - * may run fused, where integers wrap; division by zero raises everywhere.)
        for (String sql : List.of("x / 0", "l % 0", "t8 + t8", "u32 + u32", "\"day\" + 2147483647", "dec / 0")) {
            assertThrows(KernelArithmeticException.class, () -> evaluate(plan(sql), b), sql);
        }
        assertThrows(KernelArithmeticException.class, () -> evaluate(plan("t8 * 2::TINYINT"), b));
    }

    @Test
    void literalCallsFold() {
        Object[][] table = {
            {"try_add(2147483647, 1)", ScalarValue.nullOf(DataType.INT32)},
            {"try_add(2147483646, 1)", new ScalarValue(DataType.INT32, 2147483647)},
            {"try_divide(7, 0)", ScalarValue.nullOf(DataType.INT32)},
            {"try_divide(7, 2)", new ScalarValue(DataType.INT32, 3)},
            {"try_mod(-7, 2)", new ScalarValue(DataType.INT32, -1)},
            {"try_multiply(CAST(9223372036854775807 AS BIGINT), 2)", ScalarValue.nullOf(DataType.INT64)},
            {"try_subtract(NULL, 1)", ScalarValue.nullOf(DataType.INT32)},
        };
        for (Object[] r : table) {
            PhysicalPlan p = plan((String) r[0]);
            LiteralExpr l = assertInstanceOf(LiteralExpr.class, p.root(), r[0] + "\n" + p.explain());
            assertEquals(r[1], l.value(), (String) r[0]);
        }
    }

    @Test
    void argumentsTheOperatorRejectsAreRejected() {
        PlanningException e = assertThrows(PlanningException.class, () -> plan("try_add(name, 1)"));
        assertTrue(e.getMessage().contains("try_add") && e.getMessage().contains("Utf8"), e.getMessage());
        assertThrows(PlanningException.class, () -> plan("try_divide(x)"));
        assertThrows(PlanningException.class, () -> plan("try_mod(x, 1, 2)"));
        assertEquals(DataType.INT32, plan("try_add(y => 1, x => x)").outputType());
    }
}
