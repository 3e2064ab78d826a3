package dev.quiver.planning;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.expr.Expr;
import dev.quiver.expr.Operator;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.CaseExpr;
import dev.quiver.physical.CastExpr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/** What the planner folds into literals, and what it must leave alone. */
class FoldingTest extends PlanningTestBase {
    private static final DataType TIMESTAMP_UTC = new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC");
    private static final long QUERY_START_MICROS =
            QUERY_START.getEpochSecond() * 1_000_000L + QUERY_START.getNano() / 1_000;

    /** Expressions over literals only that must become exactly this literal. */
    @Test
    void literalOnlyExpressionsFoldToOneLiteral() {
        Object[][] table = {
            {"1 + abs(-1)", new ScalarValue(DataType.INT32, 2)},
            {"upper('ab')", new ScalarValue(DataType.UTF8, "AB")},
            {"NULL + 1", ScalarValue.nullOf(DataType.INT32)},
            {"CAST('12' AS INT)", new ScalarValue(DataType.INT32, 12)},
            {"sqrt(16) * 2", new ScalarValue(DataType.FLOAT64, 8.0)},
            {"hypot(3, 4)", new ScalarValue(DataType.FLOAT64, 5.0)},
            {"round(2.345, 2)", new ScalarValue(DataType.FLOAT64, 2.35)},
            {"length('héllo') + 1", new ScalarValue(DataType.INT64, 6L)},
            {"CASE WHEN 1 > 2 THEN 'a' ELSE 'b' END", new ScalarValue(DataType.UTF8, "b")},
            {"3 IN (1, 2, 3)", new ScalarValue(DataType.BOOLEAN, true)},
            {"NOT (2 BETWEEN 1 AND 3)", new ScalarValue(DataType.BOOLEAN, false)},
            {"'abc' LIKE 'a%'", new ScalarValue(DataType.BOOLEAN, true)},
            {"-(5)", new ScalarValue(DataType.INT32, -5)},
            {"NULL IS NULL", new ScalarValue(DataType.BOOLEAN, true)},
            {"TRY_CAST('x' AS INT)", ScalarValue.nullOf(DataType.INT32)},
        };
        for (Object[] row : table) {
            String sql = (String) row[0];
            PhysicalPlan p = plan(sql);
            LiteralExpr l = assertInstanceOf(LiteralExpr.class, p.root(), sql + "\n" + p.explain());
            assertEquals(row[1], l.value(), sql);
            assertTrue(p.columns().isEmpty(), sql);
            assertTrue(
                    p.explain().contains("  literal " + l.value().toSql() + " -> " + l.dataType() + "\n"), p.explain());
        }
    }

    @Test
    void aConstantInsideAColumnExpressionIsFolded() {
        PhysicalPlan p = planWrapping(col("x").add(lit(1).add(lit(2))));
        FusedKernelExpr f = assertInstanceOf(FusedKernelExpr.class, p.root(), p.explain());
        assertEquals("(x + 3)", f.program().text());
        assertEquals("($0 + 3)", KernelProgram.render(f.program().root()));

        // Unfused (a comparison), the literal 3 sits in the tree as a node of its own.
        PhysicalPlan q = plan("t8 = (1 + 2)");
        BinaryExpr eq = assertInstanceOf(BinaryExpr.class, q.root(), q.explain());
        assertEquals(
                new ScalarValue(DataType.INT32, 3),
                assertInstanceOf(LiteralExpr.class, eq.right(), q.explain()).value());
    }

    @Test
    void aCastOfALiteralIsFoldedIntoTheLiteral() {
        PhysicalPlan p = planWrapping("CAST('12' AS INT) + x");
        assertEquals(
                "(12 + x)",
                assertInstanceOf(FusedKernelExpr.class, p.root()).program().text());
        assertTrue(nodes(p.root()).stream().noneMatch(n -> n instanceof CastExpr), p.explain());
        List<FieldVector> b = batch();
        assertEquals(Arrays.asList(13, 10, null, 12, 17), evaluate(p, b));
    }

    @Test
    void volatileCallsAndEverythingAboveThemAreKept() {
        for (String sql :
                List.of("1 + random()", "random() + x", "random()", "abs(random() - 0.5)", "CAST(random() AS REAL)")) {
            PhysicalPlan p = plan(sql);
            assertFalse(p.root() instanceof LiteralExpr, sql + "\n" + p.explain());
            long randoms = nodes(p.root()).stream()
                    .filter(n -> n instanceof ScalarFunctionExpr f
                            && f.function().name().equals("random"))
                    .count();
            assertEquals(1, randoms, sql + "\n" + p.explain());
            assertTrue(p.explain().contains("call random (volatile) -> Float64"), p.explain());
        }
    }

    @Test
    void aVolatileCallStaysDistinctPerRowAfterPlanning() {
        PhysicalPlan p = plan("1 + random()");
        List<Object> v = evaluate(p, batch());
        assertEquals(5, v.stream().distinct().count(), v.toString());
        for (Object o : v) {
            double d = (Double) o;
            assertTrue(d >= 1.0 && d < 2.0, v.toString());
        }
    }

    @Test
    void nowIsFoldedToTheQueryStart() {
        PhysicalPlan p = plan(call("now"));
        LiteralExpr l = assertInstanceOf(LiteralExpr.class, p.root(), p.explain());
        assertEquals(new ScalarValue(TIMESTAMP_UTC, QUERY_START_MICROS), l.value());
        assertEquals("""
                Logical plan (as written):
                  now()
                Physical plan (as it will run), result 'now()' Timestamp(us, UTC):
                  literal TIMESTAMPTZ '2024-05-06 07:08:09.123456' -> Timestamp(us, UTC)
                """, p.explain());
        // Stable: the same value on every evaluation and in every plan of the query, including the alias.
        List<FieldVector> b = batch();
        assertEquals(evaluate(p, b), evaluate(p, b));
        assertEquals(
                List.of(
                        QUERY_START_MICROS,
                        QUERY_START_MICROS,
                        QUERY_START_MICROS,
                        QUERY_START_MICROS,
                        QUERY_START_MICROS),
                evaluate(p, b));
        assertEquals(
                l.value(),
                assertInstanceOf(
                                LiteralExpr.class,
                                plan(call("current_timestamp")).root())
                        .value());
    }

    @Test
    void aDivisionByZeroIsKeptNotAnErrorAtPlanning() {
        PhysicalPlan p = plan("CASE WHEN x > 0 THEN 1/0 END");
        CaseExpr c = assertInstanceOf(CaseExpr.class, p.root(), p.explain());
        BinaryExpr div = assertInstanceOf(BinaryExpr.class, c.thens().getFirst(), p.explain());
        assertEquals(Operator.DIVIDE, div.op());
        assertEquals(new LiteralExpr(new ScalarValue(DataType.INT32, 0)), div.right());

        // No row takes the branch: no error, every row NULL (no ELSE).
        FieldVector x = column(DataType.INT32, -1, null, 0, Integer.MIN_VALUE);
        EvalContext none = new EvalContext(List.of(x), 4, config, ROW_INTERPRETER);
        try (ColumnarValue v = p.root().evaluate(none)) {
            assertEquals(Arrays.asList(null, null, null, null), values(v, 4));
        }
        // One row takes it: the batch fails on that row.
        FieldVector y = column(DataType.INT32, -1, 3);
        EvalContext one = new EvalContext(List.of(y), 2, config, ROW_INTERPRETER);
        KernelArithmeticException e = assertThrows(
                KernelArithmeticException.class, () -> p.root().evaluate(one).close());
        assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
    }

    @Test
    void aLiteralOnlyDivisionByZeroPlansAndFailsOnlyWhenEvaluated() {
        PhysicalPlan p = plan("1 / 0");
        assertInstanceOf(BinaryExpr.class, p.root(), p.explain());
        List<FieldVector> b = batch();
        assertThrows(KernelArithmeticException.class, () -> evaluate(p, b));
    }

    @Test
    void aNullArithmeticIsATypedNullLiteral() {
        PhysicalPlan p = plan(Expr.nullLit().add(lit(1)));
        assertEquals(new LiteralExpr(ScalarValue.nullOf(DataType.INT32)), p.root());
        assertEquals(DataType.INT32, p.outputType());
        assertTrue(p.explain().contains("literal NULL::INTEGER -> Int32"), p.explain());
        PhysicalPlan q = plan("NULL + 1.5");
        assertEquals(new LiteralExpr(ScalarValue.nullOf(DataType.FLOAT64)), q.root());
    }

    @Test
    void foldingAllocatesNothingThatOutlivesPlanning() {
        for (String sql : List.of(
                "1 + abs(-1)",
                "upper('ab') LIKE 'A%'",
                "CAST('12' AS INT) + x",
                "now()",
                "1 / 0",
                "CASE WHEN x > 0 THEN 1/0 END",
                "hypot(3, 4) + round(2.5)",
                "lower(upper('Ab'))",
                "'a' IN ('b', NULL)")) {
            plan(sql);
            assertEquals(0, allocator.getAllocatedMemory(), sql);
        }
    }

    @Test
    void foldingDoesNotTouchColumnsOrNonLiteralChildren() {
        PhysicalPlan p = plan("upper(name)");
        ScalarFunctionExpr f = assertInstanceOf(ScalarFunctionExpr.class, p.root(), p.explain());
        assertEquals("upper", f.function().name());
        PhysicalExpr arg = f.args().getFirst();
        assertInstanceOf(ColumnExpr.class, arg);
    }
}
