package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.EvaluationException;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.kernels.Selection;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * {@link PhysicalExpr#evaluateSelection} against {@link PhysicalExpr#evaluate}: on the selected
 * rows the same values, NULL on the others, for every kind of node and every shape of selection
 * (empty, full, one row, alternating, random), on the 5-row batch and on seeded random batches
 * whose lengths are not multiples of 64; {@link EvalContext#select} filters the columns it is
 * asked for and frees them on close; the rows outside a selection are never computed.
 *
 * <p>Replay the random batches with {@code -Dquiver.seed=<seed>} (printed).
 */
class EvaluateSelectionTest extends PlanningTestBase {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20261203L);

    /** One of every kind of node: arithmetic, comparison, logic, CASE, strings, a column, a literal. */
    private static final List<String> EXPRESSIONS = List.of(
            "x + 1",
            "x * l",
            "y * 2.0 + 1",
            "-y",
            "-x",
            "dec + 1",
            "\"day\" + 1",
            "u32 + 1",
            "t8 * 2",
            "x > 0",
            "y <= 1.5",
            "name = 'ab'",
            "x IS NULL",
            "x IN (1, 5)",
            "x BETWEEN 0 AND 1",
            "y IS DISTINCT FROM 0.0",
            "flag AND x > 0",
            "flag OR y < 0",
            "NOT flag",
            "flag AND x > 0 AND y < 1",
            "CASE WHEN x > 0 THEN name ELSE 'neg' END",
            "CASE x WHEN 1 THEN 'one' WHEN 0 THEN 'zero' ELSE 'other' END",
            "CASE WHEN flag THEN y END",
            "CASE WHEN x > 0 THEN x * l WHEN y < 0 THEN l END",
            "upper(name)",
            "length(name)",
            "name LIKE 'a%'",
            "hypot(x, y)",
            "CAST(x AS DOUBLE)",
            "CAST(x AS VARCHAR)",
            "x",
            "name",
            "flag",
            "dec",
            "42",
            "'lit'",
            "NULL",
            "CAST(NULL AS INT)");

    /** The shapes of selection over {@code rows} rows. */
    private static Map<String, Selection> selections(int rows, Random random) {
        Map<String, Selection> out = new LinkedHashMap<>();
        out.put("none", Selection.none(rows));
        out.put("all", Selection.all(rows));
        if (rows > 0) {
            out.put("first row", Selection.ofRows(rows, 0));
            out.put("last row", Selection.ofRows(rows, rows - 1));
        }
        long[] even = new long[(rows + 63) / 64];
        Arrays.fill(even, 0x5555_5555_5555_5555L);
        out.put("even rows", Selection.ofWords(even, rows));
        out.put("odd rows", Selection.ofWords(even, rows).not());
        for (double p : new double[] {0.1, 0.5, 0.9}) {
            long[] w = new long[(rows + 63) / 64];
            for (int r = 0; r < rows; r++) {
                if (random.nextDouble() < p) {
                    w[r >>> 6] |= 1L << r;
                }
            }
            out.put("random " + p, Selection.ofWords(w, rows));
        }
        return out;
    }

    /** A random batch of the schema, about 15% NULLs in every column. */
    private List<FieldVector> randomBatch(int rows, Random random) {
        List<List<Object>> cols = new ArrayList<>();
        for (int c = 0; c < SCHEMA.getFields().size(); c++) {
            cols.add(new ArrayList<>());
        }
        List<String> names = List.of("ab", "Abc", "a_c", "%x", "", "zz", "5");
        for (int r = 0; r < rows; r++) {
            Object[] row = {
                random.nextInt(11) - 5,
                random.nextGaussian() * 3,
                (long) random.nextInt(2001) - 1000,
                names.get(random.nextInt(names.size())),
                random.nextBoolean(),
                (byte) (random.nextInt(256) - 128),
                (long) random.nextInt(1 << 20),
                BigDecimal.valueOf(random.nextInt(200_001) - 100_000, 2),
                random.nextInt(40_000) - 10_000
            };
            for (int c = 0; c < row.length; c++) {
                cols.get(c).add(random.nextInt(7) == 0 ? null : row[c]);
            }
        }
        List<FieldVector> batch = new ArrayList<>();
        for (int c = 0; c < cols.size(); c++) {
            batch.add(column(
                    DataType.fromField(SCHEMA.getFields().get(c)), cols.get(c).toArray()));
        }
        return batch;
    }

    private void checkSelections(List<FieldVector> batch, Random random, String what) {
        int rows = batch.getFirst().getValueCount();
        Map<String, Selection> shapes = selections(rows, random);
        for (String sql : EXPRESSIONS) {
            PhysicalPlan p = plan(sql);
            EvalContext ctx = context(p, batch);
            List<Object> full;
            try (ColumnarValue v = p.root().evaluate(ctx)) {
                full = values(v, rows);
            }
            for (Map.Entry<String, Selection> shape : shapes.entrySet()) {
                Selection sel = shape.getValue();
                String where = sql + " on " + shape.getKey() + " of " + what + "\n" + p.explain();
                try (ColumnarValue part = p.root().evaluateSelection(ctx, sel)) {
                    switch (part) {
                        case ColumnarValue.Array a -> {
                            assertEquals(rows, a.length(), where);
                            assertEquals(
                                    p.root().dataType().valueType(),
                                    a.dataType().valueType(),
                                    where);
                        }
                        case ColumnarValue.Scalar s ->
                            assertTrue(
                                    sel.isAll() || (sel.isNone() && s.isNull()),
                                    "a scalar only for a full selection, or a NULL one for an empty one: " + where);
                    }
                    List<Object> expected = new ArrayList<>(rows);
                    for (int r = 0; r < rows; r++) {
                        expected.add(sel.get(r) ? full.get(r) : null);
                    }
                    assertEquals(expected, values(part, rows), where);
                }
            }
        }
    }

    @Test
    void theSelectedRowsAreTheFullResultsAndTheOthersNull() {
        checkSelections(batch(), new Random(SEED), "the 5-row batch");
    }

    @Test
    void theSameOnRandomBatchesOfAwkwardLengths() {
        System.out.println("EvaluateSelectionTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        Random random = new Random(SEED);
        for (int rows : new int[] {0, 1, 63, 64, 65, 130, 1000}) {
            checkSelections(randomBatch(rows, random), random, rows + " random rows, seed " + SEED);
        }
    }

    @Test
    void aSelectionFiltersTheColumnsItReadsAndFreesThemOnClose() {
        Random random = new Random(SEED);
        List<FieldVector> batch = randomBatch(200, random);
        PhysicalPlan p = plan("CASE WHEN x > 0 THEN name END");
        EvalContext ctx = context(p, batch);
        long before = allocator.getAllocatedMemory();
        Selection sel = selections(200, random).get("random 0.5");
        EvalContext sub = ctx.select(sel);
        assertEquals(sel.count(), sub.rows());
        assertEquals(before, allocator.getAllocatedMemory(), "nothing is filtered before a column is read");
        int[] picked = sel.indices();
        for (int c = 0; c < ctx.columnCount(); c++) {
            FieldVector in = ctx.column(c).vector();
            FieldVector out = sub.column(c).vector();
            assertSame(out, sub.column(c).vector(), "a column is filtered once");
            assertEquals(in.getField(), out.getField());
            assertEquals(sel.count(), out.getValueCount());
            for (int k = 0; k < picked.length; k++) {
                assertEquals(Values.get(in, picked[k]), Values.get(out, k), "column " + c + ", row " + picked[k]);
            }
        }
        assertTrue(allocator.getAllocatedMemory() > before, "the filtered columns are new vectors");

        // A selection of a selection: rows of the first by rank.
        Selection inner = selections(sel.count(), random).get("even rows");
        EvalContext subSub = sub.select(inner);
        int[] twice = sel.within(inner).indices();
        assertEquals(twice.length, subSub.rows());
        for (int k = 0; k < twice.length; k++) {
            assertEquals(
                    Values.get(ctx.column(1).vector(), twice[k]),
                    Values.get(subSub.column(1).vector(), k));
        }
        subSub.close();
        sub.close();
        assertEquals(before, allocator.getAllocatedMemory(), "closing the selections frees what they filtered");
        assertThrows(IllegalStateException.class, () -> sub.column(0));

        // The full selection borrows the batch's own columns.
        try (EvalContext all = ctx.select(Selection.all(200))) {
            assertEquals(200, all.rows());
            assertSame(ctx.column(0).vector(), all.column(0).vector());
            assertEquals(before, allocator.getAllocatedMemory());
        }
        // The empty selection has no rows.
        try (EvalContext none = ctx.select(Selection.none(200))) {
            assertEquals(0, none.rows());
            assertEquals(0, none.column(0).vector().getValueCount());
        }
        assertEquals(before, allocator.getAllocatedMemory());
    }

    @Test
    void rowsOutsideTheSelectionAreNeverComputed() {
        // l / x divides by zero at rows 1 and 4, and CAST(name AS INT) fails at rows 0 and 3.
        List<FieldVector> batch = List.of(
                column(DataType.INT32, 2, 0, null, 3, 0, -4),
                column(DataType.FLOAT64, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
                column(DataType.INT64, 10L, 5L, 7L, null, 1L, 9L),
                column(DataType.UTF8, "x", "12", "-3", "y", null, " 7 "),
                column(DataType.BOOLEAN, true, true, true, true, true, true),
                column(DataType.INT8, null, null, null, null, null, null),
                column(DataType.UINT32, null, null, null, null, null, null),
                column(new DataType.Decimal(10, 2), null, null, null, null, null, null),
                column(DataType.DATE32, null, null, null, null, null, null));
        PhysicalPlan divide = plan("l / x");
        EvalContext ctx = context(divide, batch);
        assertThrows(
                KernelArithmeticException.class,
                () -> divide.root().evaluate(ctx).close());
        Selection nonZero = Selection.ofRows(6, 0, 2, 3, 5);
        try (ColumnarValue v = divide.root().evaluateSelection(ctx, nonZero)) {
            assertEquals(Arrays.asList(5L, null, null, null, null, -2L), values(v, 6));
        }
        assertThrows(
                KernelArithmeticException.class,
                () -> divide.root()
                        .evaluateSelection(ctx, Selection.ofRows(6, 0, 4))
                        .close());

        PhysicalPlan cast = plan("CAST(name AS INT)");
        EvalContext castCtx = context(cast, batch);
        assertThrows(
                EvaluationException.class, () -> cast.root().evaluate(castCtx).close());
        try (ColumnarValue v = cast.root().evaluateSelection(castCtx, Selection.ofRows(6, 1, 2, 4, 5))) {
            assertEquals(Arrays.asList(null, 12, -3, null, null, 7), values(v, 6));
        }
    }

    @Test
    void aSelectionOfAnotherRowCountIsRejected() {
        List<FieldVector> batch = batch();
        for (String sql : List.of("x + 1", "x", "42", "CASE WHEN x > 0 THEN 1 END")) {
            PhysicalPlan p = plan(sql);
            EvalContext ctx = context(p, batch);
            for (Selection wrong : List.of(Selection.all(6), Selection.none(4), Selection.ofRows(64, 3))) {
                IllegalArgumentException e = assertThrows(
                        IllegalArgumentException.class,
                        () -> p.root().evaluateSelection(ctx, wrong).close(),
                        sql + " " + wrong);
                assertTrue(
                        e.getMessage().contains(wrong.rows() + " rows")
                                && e.getMessage().contains("5"),
                        e.getMessage());
            }
            assertThrows(IllegalArgumentException.class, () -> ctx.select(Selection.all(4)));
            assertThrows(NullPointerException.class, () -> p.root().evaluateSelection(ctx, null));
        }
    }
}
