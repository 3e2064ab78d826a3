package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.expr.ArithmeticCoercion;
import dev.quiver.expr.Operator;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.SignatureResolver;
import dev.quiver.kernels.Kernels;
import dev.quiver.physical.BetweenExpr;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.CaseExpr;
import dev.quiver.physical.CastExpr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.InListExpr;
import dev.quiver.physical.IsNullExpr;
import dev.quiver.physical.LikeExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.NegativeExpr;
import dev.quiver.physical.NotExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ArithmeticPlan;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** The planner inserts the casts the coercion rules choose, and the physical tree is type-consistent everywhere. */
class CoercionPlanningTest extends PlanningTestBase {

    /** Expressions over every column type; each plan must pass {@link #assertConsistent}. */
    private static final List<String> EXPRESSIONS = List.of(
            "x + y",
            "x + l",
            "t8 + x",
            "t8 + u32",
            "u32 * l",
            "dec + 1",
            "dec * y",
            "dec + x",
            "day + 1",
            "x % 3",
            "-t8",
            "-dec",
            "x = '5'",
            "y < '2.5'",
            "day = '2024-01-31'",
            "x = l",
            "t8 > u32",
            "dec >= x",
            "x IS DISTINCT FROM y",
            "x IN (1, 2.5, l)",
            "t8 IN (1, NULL, 300)",
            "name IN ('a', NULL)",
            "x BETWEEN t8 AND 2.5",
            "dec BETWEEN 0 AND y",
            "CASE WHEN flag THEN x ELSE l END",
            "CASE WHEN x > 0 THEN t8 WHEN flag THEN u32 END",
            "CASE x WHEN 1.5 THEN 'a' ELSE name END",
            "CASE l WHEN x THEN dec ELSE 0 END",
            "sqrt(x)",
            "sqrt(dec)",
            "hypot(x, y)",
            "hypot(t8, dec)",
            "fma(x, l, y)",
            "abs(t8)",
            "least(x, y)",
            "least(l, x)",
            "greatest(t8, u32)",
            "power(x, 2)",
            "round(x, 1)",
            "round(dec)",
            "upper(name) LIKE 'A%'",
            "length(name) + x",
            "NOT (flag AND x > 0) OR y IS NULL",
            "CAST(x AS BIGINT) + TRY_CAST(name AS INT)",
            "exp(x) + ln(l)",
            "sqrt(CAST(name AS DOUBLE))",
            "x + NULL",
            "NULL = x",
            "CASE WHEN flag THEN NULL ELSE x END",
            "x IN (NULL)");

    @Test
    void everyPlannedTreeIsTypeConsistent() {
        for (String sql : EXPRESSIONS) {
            PhysicalPlan p = plan(sql);
            for (PhysicalExpr n : nodes(p.root())) {
                assertConsistent(n, sql + "\n" + p.explain());
            }
        }
    }

    /** What a node expects of its children, checked against what they produce. */
    private static void assertConsistent(PhysicalExpr n, String where) {
        switch (n) {
            case BinaryExpr b
            when b.op().isLogical() -> {
                assertEquals(DataType.BOOLEAN, b.left().dataType(), where);
                assertEquals(DataType.BOOLEAN, b.right().dataType(), where);
                assertEquals(DataType.BOOLEAN, b.dataType(), where);
            }
            case BinaryExpr b
            when b.op().isComparison() -> {
                assertEquals(b.left().dataType(), b.right().dataType(), "comparison operands: " + where);
                assertEquals(DataType.BOOLEAN, b.dataType(), where);
            }
            case BinaryExpr b -> {
                // Re-planning the node's own operand types must need no further cast and give its type.
                Optional<ArithmeticPlan> a = ArithmeticCoercion.arithmetic(
                        b.op(), b.left().dataType(), b.right().dataType());
                assertTrue(a.isPresent(), where);
                assertEquals(b.left().dataType(), a.get().leftCast(), "left operand of " + b.op() + ": " + where);
                assertEquals(b.right().dataType(), a.get().rightCast(), "right operand of " + b.op() + ": " + where);
                assertEquals(a.get().result(), b.dataType(), where);
                if (!(b.left().dataType() instanceof DataType.Decimal)
                        && !b.left().dataType().isTemporal()) {
                    assertEquals(b.left().dataType(), b.right().dataType(), "arithmetic operands: " + where);
                }
            }
            case NotExpr x -> assertEquals(DataType.BOOLEAN, x.input().dataType(), where);
            case NegativeExpr x -> assertEquals(x.input().dataType(), x.dataType(), where);
            case IsNullExpr x -> assertEquals(DataType.BOOLEAN, x.dataType(), where);
            case CastExpr c -> {
                assertTrue(Kernels.canCast(c.input().dataType(), c.dataType()), where);
                assertTrue(!c.input().dataType().equals(c.dataType()), "a cast to the same type: " + where);
            }
            case InListExpr in ->
                in.list().forEach(e -> assertEquals(in.input().dataType(), e.dataType(), "IN element: " + where));
            case BetweenExpr b -> {
                assertEquals(b.input().dataType(), b.low().dataType(), where);
                assertEquals(b.input().dataType(), b.high().dataType(), where);
            }
            case LikeExpr l -> {
                assertTrue(l.input().dataType().isString(), where);
                assertEquals(l.input().dataType(), l.pattern().dataType(), where);
            }
            case CaseExpr c -> {
                c.thens().forEach(t -> assertEquals(c.dataType(), t.dataType(), "THEN: " + where));
                if (c.otherwise() != null) {
                    assertEquals(c.dataType(), c.otherwise().dataType(), "ELSE: " + where);
                }
                for (PhysicalExpr w : c.whens()) {
                    assertEquals(
                            c.operand() == null ? DataType.BOOLEAN : c.operand().dataType(),
                            w.dataType(),
                            "WHEN: " + where);
                }
            }
            case ScalarFunctionExpr f -> {
                List<DataType> given =
                        f.args().stream().map(PhysicalExpr::dataType).toList();
                assertEquals(
                        given,
                        SignatureResolver.resolve(f.function(), given),
                        "arguments need no more casts: " + where);
                assertEquals(f.function().returnType(given), f.dataType(), where);
            }
            case FusedKernelExpr f -> {
                for (int i = 0; i < f.inputs().size(); i++) {
                    assertEquals(
                            f.program().argTypes().get(i),
                            f.inputs().get(i).dataType().elementType().orElseThrow(),
                            "kernel argument " + i + ": " + where);
                }
                assertEquals(
                        f.program().resultType(), f.dataType().elementType().orElseThrow(), where);
            }
            default -> {}
        }
    }

    @Test
    void anIntColumnPlusAFloatColumnCastsTheIntSide() {
        PhysicalPlan p = plan("x + y");
        assertEquals(DataType.FLOAT64, p.outputType());
        FusedKernelExpr f = assertInstanceOf(FusedKernelExpr.class, p.root());
        assertEquals("(CAST(x AS DOUBLE) + y)", f.program().text());
        assertTrue(
                p.explain()
                        .contains(
                                "kernel segment (CAST(x AS DOUBLE) + y) as (cast($0 as Float64) + $1) [dense] -> Float64"),
                p.explain());
        // Unfused (Int8 and UInt32 have no kernel type): explicit CAST nodes on both sides, to Int64.
        PhysicalPlan q = plan("t8 + u32");
        assertEquals(DataType.INT64, q.outputType());
        List<CastExpr> casts = nodes(q.root()).stream()
                .filter(n -> n instanceof CastExpr)
                .map(n -> (CastExpr) n)
                .toList();
        assertEquals(
                List.of(DataType.INT64, DataType.INT64),
                casts.stream().map(CastExpr::dataType).toList(),
                q.explain());
        assertEquals(
                List.of(DataType.INT8, DataType.UINT32),
                casts.stream().map(c -> c.input().dataType()).toList(),
                q.explain());
    }

    @Test
    void aStringLiteralComparedWithANumberFoldsToANumber() {
        Object[][] table = {
            {"x = '5'", new ScalarValue(DataType.INT32, 5)},
            {"y < '2.5'", new ScalarValue(DataType.FLOAT64, 2.5)},
            {"l >= '7'", new ScalarValue(DataType.INT64, 7L)},
            {"dec <> '1.5'", new ScalarValue(new DataType.Decimal(10, 2), new BigDecimal("1.50"))},
            {
                "day = '2024-01-31'",
                new ScalarValue(DataType.DATE32, (int) LocalDate.of(2024, 1, 31).toEpochDay())
            },
        };
        for (Object[] row : table) {
            PhysicalPlan p = plan((String) row[0]);
            BinaryExpr b = assertInstanceOf(BinaryExpr.class, p.root(), p.explain());
            assertInstanceOf(ColumnExpr.class, b.left(), p.explain());
            assertEquals(
                    row[1],
                    assertInstanceOf(LiteralExpr.class, b.right(), p.explain()).value(),
                    (String) row[0]);
        }
        assertEquals(Arrays.asList(false, false, null, false, true), evaluate(plan("x = '5'"), batch()));
    }

    @Test
    void anInListWithMixedNumericTypesIsCoercedToOne() {
        PhysicalPlan p = plan("x IN (1, 2.5, l)");
        InListExpr in = assertInstanceOf(InListExpr.class, p.root());
        assertEquals(DataType.FLOAT64, in.input().dataType());
        assertEquals(
                List.of(
                        new LiteralExpr(new ScalarValue(DataType.FLOAT64, 1.0)),
                        new LiteralExpr(new ScalarValue(DataType.FLOAT64, 2.5))),
                in.list().subList(0, 2));
        assertEquals(DataType.FLOAT64, in.list().get(2).dataType());
        PhysicalPlan q = plan("t8 IN (1, 300)");
        InListExpr in2 = assertInstanceOf(InListExpr.class, q.root());
        assertEquals(DataType.INT32, in2.input().dataType(), q.explain());
        assertEquals(
                new ScalarValue(DataType.INT32, 300), ((LiteralExpr) in2.list().get(1)).value());
    }

    @Test
    void caseBranchesGetTheirCommonType() {
        // Both CASEs fuse into one segment (docs/evaluation.md): the casts are in its program.
        PhysicalPlan p = plan("CASE WHEN flag THEN x ELSE l END");
        FusedKernelExpr c = assertInstanceOf(FusedKernelExpr.class, p.root(), p.explain());
        assertEquals(DataType.INT64, c.dataType());
        assertEquals(
                "CASE WHEN flag THEN CAST(x AS BIGINT) ELSE l END", c.program().text());
        // $0 flag, $1 x, $2 l, then their validity: $3 flag's.
        assertEquals(
                "select(($3 & $0), cast($1 as Int64), $2)",
                KernelProgram.render(c.program().root()));
        PhysicalPlan q = plan("CASE WHEN flag THEN 1 WHEN x > 0 THEN 2.5 ELSE NULL END");
        FusedKernelExpr c2 = assertInstanceOf(FusedKernelExpr.class, q.root(), q.explain());
        assertEquals(DataType.FLOAT64, c2.dataType());
        // The literals are Float64 in the program; the NULL ELSE is a zero whose validity is false.
        assertEquals(
                "select(($2 & $0), 1.0, select(($3 & ($1 > 0)), 2.5, 0.0))",
                KernelProgram.render(c2.program().root()));
        // NULL where no WHEN takes the row.
        assertEquals(
                "!((($2 & $0) | ($3 & ($1 > 0))))",
                KernelProgram.render(c2.program().nullWhen().orElseThrow()));
    }

    @Test
    void functionArgumentsAreCastToTheSignature() {
        PhysicalPlan p = plan("sqrt(x)");
        assertEquals(
                "sqrt(CAST(x AS DOUBLE))",
                assertInstanceOf(FusedKernelExpr.class, p.root()).program().text());
        PhysicalPlan h = plan("hypot(x, y)");
        assertEquals(
                "hypot(CAST(x AS DOUBLE), y)",
                assertInstanceOf(FusedKernelExpr.class, h.root()).program().text());
        // An argument the kernels cannot take shows its cast as a node: round of an integer is round of a Float64 ...
        PhysicalPlan d = plan("round(u32, 1)");
        FusedKernelExpr f = assertInstanceOf(FusedKernelExpr.class, d.root());
        CastExpr c = assertInstanceOf(CastExpr.class, f.inputs().getFirst(), d.explain());
        assertEquals(DataType.FLOAT64, c.dataType());
        assertEquals(DataType.UINT32, c.input().dataType());
        // ... while a decimal matches round's decimal signature exactly: no cast, and the result stays a decimal,
        // of the scale the digits leave (DataFusion): Decimal(10, 2) to 1 place is Decimal(10, 1).
        PhysicalPlan r = plan("round(dec, 1)");
        ScalarFunctionExpr rf = assertInstanceOf(ScalarFunctionExpr.class, r.root());
        assertInstanceOf(ColumnExpr.class, rf.args().getFirst(), r.explain());
        assertEquals(new DataType.Decimal(10, 1), rf.dataType());
        // A string is never read as a number implicitly: that is a planning error, not a cast that fails on some batch.
        PlanningException ex = Assertions.assertThrows(PlanningException.class, () -> plan("sqrt(name)"));
        assertEquals("no signature of sqrt accepts (Utf8); signatures: sqrt(Float64), sqrt(Float32)", ex.getMessage());
    }

    @Test
    void aNodeWithAMismatchedChildIsCaught() {
        // The checker itself must be able to fail: a hand-built comparison of Int32 with Int64.
        PhysicalExpr bad = new BinaryExpr(
                new LiteralExpr(new ScalarValue(DataType.INT32, 1)),
                Operator.EQ,
                new LiteralExpr(new ScalarValue(DataType.INT64, 1L)),
                DataType.BOOLEAN);
        try {
            assertConsistent(bad, "hand-built");
        } catch (AssertionFailedError expected) {
            return;
        }
        fail("the consistency check accepted a comparison of Int32 with Int64");
    }
}
