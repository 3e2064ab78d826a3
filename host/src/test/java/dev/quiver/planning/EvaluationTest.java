package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.EvaluationException;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.types.DataType;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * Expressions planned and evaluated over the 5-row batch of {@link PlanningTestBase#batch()},
 * against values worked out by hand (SQL semantics as in DuckDB/Postgres).
 */
class EvaluationTest extends PlanningTestBase {
    private static final Boolean T = true;
    private static final Boolean F = false;

    private static List<Object> row(Object... v) {
        return Arrays.asList(v);
    }

    private static BigDecimal d(String s) {
        return new BigDecimal(s);
    }

    /** {sql, result type, values of rows 0..4}. */
    private static final Object[][] TABLE = {
        // three-valued logic
        {"flag AND x > 0", DataType.BOOLEAN, row(T, F, null, F, null)},
        {"flag OR x > 0", DataType.BOOLEAN, row(T, F, null, T, T)},
        {"NOT flag", DataType.BOOLEAN, row(F, T, null, F, null)},
        {"flag AND NULL", DataType.BOOLEAN, row(null, F, null, null, null)},
        {"flag OR NULL", DataType.BOOLEAN, row(T, null, null, T, null)},
        {"NOT (flag OR x > 0)", DataType.BOOLEAN, row(F, T, null, F, F)},
        // distinctness and null tests
        {"x IS DISTINCT FROM 0", DataType.BOOLEAN, row(T, T, T, F, T)},
        {"x IS NOT DISTINCT FROM NULL", DataType.BOOLEAN, row(F, F, T, F, F)},
        {"y IS DISTINCT FROM l", DataType.BOOLEAN, row(T, F, T, T, T)},
        {"x IS NULL", DataType.BOOLEAN, row(F, F, T, F, F)},
        {"name IS NOT NULL", DataType.BOOLEAN, row(T, T, F, T, T)},
        {"flag IS NULL", DataType.BOOLEAN, row(F, F, T, F, T)},
        // CASE
        {
            "CASE x WHEN 1 THEN 'one' WHEN 0 THEN 'zero' ELSE 'other' END",
            DataType.UTF8,
            row("one", "other", "other", "zero", "other")
        },
        {"CASE x WHEN 1 THEN 'one' END", DataType.UTF8, row("one", null, null, null, null)},
        {"CASE WHEN x > 0 THEN 'pos' WHEN x < 0 THEN 'neg' END", DataType.UTF8, row("pos", "neg", null, null, "pos")},
        {"CASE WHEN flag THEN x ELSE l END", DataType.INT64, row(1L, null, -3L, 0L, 0L)},
        {"CASE WHEN x <> 0 THEN 10 / x ELSE -1 END", DataType.INT32, row(10, -5, -1, -1, 2)},
        // IN with NULLs
        {"x IN (1, 5)", DataType.BOOLEAN, row(T, F, null, F, T)},
        {"x IN (1, NULL)", DataType.BOOLEAN, row(T, null, null, null, null)},
        {"x NOT IN (1, NULL)", DataType.BOOLEAN, row(F, null, null, null, null)},
        {"x NOT IN (1, 5)", DataType.BOOLEAN, row(F, T, null, T, F)},
        {"x IN (1, 2.5, l)", DataType.BOOLEAN, row(T, null, null, F, F)},
        // BETWEEN
        {"x BETWEEN 0 AND 1", DataType.BOOLEAN, row(T, F, null, T, F)},
        {"x NOT BETWEEN 0 AND 1", DataType.BOOLEAN, row(F, T, null, F, T)},
        {"y BETWEEN x AND l", DataType.BOOLEAN, row(T, null, F, F, F)}, // row 2: NULL AND FALSE is FALSE
        // LIKE / ILIKE / ESCAPE
        {"name LIKE 'a%'", DataType.BOOLEAN, row(T, F, null, T, F)},
        {"name NOT LIKE 'a%'", DataType.BOOLEAN, row(F, T, null, F, T)},
        {"name ILIKE 'A%'", DataType.BOOLEAN, row(T, T, null, T, F)},
        {"name LIKE 'a_c'", DataType.BOOLEAN, row(F, F, null, T, F)},
        {"name LIKE 'a!_c' ESCAPE '!'", DataType.BOOLEAN, row(F, F, null, T, F)},
        {"name LIKE '!%%' ESCAPE '!'", DataType.BOOLEAN, row(F, F, null, F, T)},
        {"name LIKE '_'", DataType.BOOLEAN, row(F, F, null, F, F)},
        // CAST / TRY_CAST
        {"CAST(x AS DOUBLE)", DataType.FLOAT64, row(1.0, -2.0, null, 0.0, 5.0)},
        {"CAST(l AS INT)", DataType.INT32, row(10, null, -3, 7, 0)},
        {"TRY_CAST(name AS INT)", DataType.INT32, row(null, null, null, null, null)},
        {"TRY_CAST(u32 AS INT)", DataType.INT32, row(null, 0, null, 7, 1)},
        {"CAST(t8 AS SMALLINT) * 2", DataType.INT32, row(254, -256, null, 10, -2)},
        // string functions
        {"upper(name)", DataType.UTF8, row("AB", "ABC", null, "A_C", "%X")},
        {"lower(name)", DataType.UTF8, row("ab", "abc", null, "a_c", "%x")},
        {"length(name)", DataType.INT64, row(2L, 3L, null, 3L, 2L)},
        {"upper(name) = 'ABC'", DataType.BOOLEAN, row(F, T, null, F, F)},
        // arithmetic on Int8 / UInt32 / Decimal / Date32
        {"t8 + 1", DataType.INT32, row(128, -127, null, 6, 0)},
        {"-CAST(t8 AS SMALLINT)", DataType.INT16, row((short) -127, (short) 128, null, (short) -5, (short) 1)},
        {"u32 + 1", DataType.INT64, row(4294967296L, 1L, null, 8L, 2L)},
        {"dec + 1", new DataType.Decimal(13, 2), row(d("2.25"), d("0.50"), null, d("11.00"), d("1.01"))},
        {"dec - dec", new DataType.Decimal(11, 2), row(d("0.00"), d("0.00"), null, d("0.00"), d("0.00"))},
        {"\"day\" + 1", DataType.DATE32, row(19754, null, 1, 11017, 0)},
        // %
        {"x % 3", DataType.INT32, row(1, -2, null, 0, 2)},
        {"l % 3", DataType.INT64, row(1L, null, 0L, 1L, 0L)},
        {"y % 2", DataType.FLOAT64, row(1.5, null, 0.0, -0.0, 0.5)},
        {"x / 2", DataType.INT32, row(0, -1, null, 0, 2)},
        // function calls mixed with columns
        {"hypot(x, y)", DataType.FLOAT64, row(Math.hypot(1, 1.5), null, null, 4.0, Math.hypot(5, 2.5))},
        {"round(y * 3, 0)", DataType.FLOAT64, row(5.0, null, 0.0, -12.0, 8.0)},
        // least/greatest skip NULL arguments (SQL); min/max are the kernels' strict two-argument forms
        {"greatest(x, l)", DataType.INT64, row(10L, -2L, -3L, 7L, 5L)},
        {"least(x, l, y)", DataType.FLOAT64, row(1.0, -2.0, -3.0, -4.0, 0.0)},
        {"least(NULL, NULL::BIGINT)", DataType.INT64, row(null, null, null, null, null)},
        {"max(x, l)", DataType.INT64, row(10L, null, null, 7L, 5L)},
    };

    @Test
    void table() {
        List<FieldVector> b = batch();
        for (Object[] r : TABLE) {
            String sql = (String) r[0];
            PhysicalPlan p = plan(sql);
            assertEquals(r[1], p.outputType(), sql + "\n" + p.explain());
            assertEquals(r[2], evaluate(p, b), sql + "\n" + p.explain());
        }
    }

    @Test
    void castFailuresNameTheValueAndTryCastDoesNot() {
        List<FieldVector> b = batch();
        EvaluationException e = assertThrows(EvaluationException.class, () -> evaluate(plan("CAST(name AS INT)"), b));
        assertEquals("cannot cast 'ab' (row 0) to Int32: not an integer", e.getMessage());
        RuntimeException overflow = assertThrows(RuntimeException.class, () -> evaluate(plan("CAST(u32 AS INT)"), b));
        assertTrue(overflow.getMessage().contains("4294967295"), overflow.getMessage());
    }

    @Test
    void anEmptyBatchGivesAnEmptyResult() {
        List<FieldVector> empty = List.of(
                column(DataType.INT32),
                column(DataType.FLOAT64),
                column(DataType.INT64),
                column(DataType.UTF8),
                column(DataType.BOOLEAN),
                column(DataType.INT8),
                column(DataType.UINT32),
                column(new DataType.Decimal(10, 2)),
                column(DataType.DATE32));
        for (Object[] r : TABLE) {
            assertEquals(List.of(), evaluate(plan((String) r[0]), empty), (String) r[0]);
        }
    }

    @Test
    void negatingMinValueIsCheckedUnlessWrapping() {
        List<FieldVector> b = batch();
        KernelArithmeticException e = assertThrows(KernelArithmeticException.class, () -> evaluate(plan("-t8"), b));
        assertEquals("integer overflow in (- t8) at row 1 (on cpu)", e.getMessage());
        assertEquals(row((byte) -127, (byte) -128, null, (byte) -5, (byte) 1), evaluate(planWrapping("-t8"), b));
    }
}
