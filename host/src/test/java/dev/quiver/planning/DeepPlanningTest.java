package dev.quiver.planning;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.SmallStack;
import dev.quiver.errors.ResourceException;
import dev.quiver.expr.Expr;
import dev.quiver.expr.ExprText;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.PlanningException;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.Names;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.value.ScalarValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * The planner's limits, the shapes that are large but shallow, and constant folding that never
 * makes a huge value. Planning runs on a 256 KiB stack: the limits are checked, and long AND/OR
 * chains balanced, without recursion, and the recursive passes run on a thread of their own.
 * Values are checked against results computed here by hand; the allocator ends at zero bytes.
 */
class DeepPlanningTest extends PlanningTestBase {

    private static Expr notChain(int levels) {
        Expr e = col("flag");
        for (int i = 1; i < levels; i++) {
            e = e.not();
        }
        return e;
    }

    private static String depthError(Expr e, int depth, int limit) {
        return "the expression is nested " + depth + " levels deep, more than the limit of " + limit + ": raise it with"
                + " Quiver.builder().maxExpressionDepth(int), on threads with a stack to match (docs/expressions.md#limits),"
                + " or write a long sum or product in parenthesized groups; in " + ExprText.sql(e, 120);
    }

    @Test
    void theDefaultDepthLimitIsAPlanningErrorNamingIt() {
        SmallStack.run(() -> {
            assertEquals(ExpressionLimits.DEFAULT_MAX_DEPTH, 1_000);
            // 999 NOTs of flag (true, false, NULL, true, NULL): NOT flag.
            assertEquals(Arrays.asList(false, true, null, false, null), evaluate(plan(notChain(1_000)), batch()));
            for (int levels : new int[] {1_001, 10_000, 100_000}) {
                Expr deep = notChain(levels);
                PlanningException e = assertThrows(PlanningException.class, () -> plan(deep));
                assertEquals(depthError(deep, levels, 1_000), e.getMessage());
            }
        });
    }

    @Test
    void aHundredThousandTermSumFailsOnTheDepthLimit() {
        SmallStack.run(() -> {
            Expr sum = col("y");
            for (int i = 1; i < 100_000; i++) {
                sum = sum.add(col("y"));
            }
            Expr e = sum;
            PlanningException ex = assertThrows(PlanningException.class, () -> plan(e));
            assertEquals(depthError(e, 100_000, 1_000), ex.getMessage());
            // The same sum in parenthesized groups of 100 is three levels of sums: it plans and adds up.
            List<Expr> groups = new ArrayList<>();
            for (int g = 0; g < 1_000; g++) {
                Expr group = col("y");
                for (int i = 1; i < 100; i++) {
                    group = group.add(col("y"));
                }
                groups.add(group);
            }
            Expr grouped = balancedSum(groups);
            assertEquals(Arrays.asList(150_000.0, null, 0.0, -400_000.0, 250_000.0), evaluate(plan(grouped), batch()));
        });
    }

    private static Expr balancedSum(List<Expr> terms) {
        List<Expr> level = terms;
        while (level.size() > 1) {
            List<Expr> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 2) {
                next.add(i + 1 < level.size() ? level.get(i).add(level.get(i + 1)) : level.get(i));
            }
            level = next;
        }
        return level.getFirst();
    }

    @Test
    void theNodeLimitIsAPlanningErrorNamingIt() {
        ExpressionLimits small = ExpressionLimits.DEFAULT.withMaxNodes(1_000);
        Expr wide = col("x").in(Collections.nCopies(1_000, lit(1)).toArray(Expr[]::new));
        PlanningException e = assertThrows(
                PlanningException.class, () -> new ExpressionPlanner(registry, config, small).plan(SCHEMA, wide));
        assertEquals(
                "the expression has more than 1000 nodes, the limit: raise it with Quiver.builder().maxExpressionNodes(int)"
                        + " (docs/expressions.md#limits); in " + ExprText.sql(wide, 120),
                e.getMessage());
        // 1,002 nodes: the IN, x and the thousand values. x: 1, -2, NULL, 0, 5.
        assertEquals(
                Arrays.asList(true, false, null, false, false),
                evaluate(
                        new ExpressionPlanner(registry, config, small.withMaxNodes(1_002)).plan(SCHEMA, wide),
                        batch()));
    }

    /** 50,000 ORs, left-deep as written: planned balanced (17 levels), evaluated term by term as written. */
    @Test
    void aLongOrChainIsBalancedAndGivesItsValues() {
        SmallStack.run(() -> {
            Expr ors = col("x").eq(lit(0));
            for (int i = 1; i < 50_000; i++) {
                ors = ors.or(col("x").eq(lit(i * 7)));
            }
            PhysicalPlan p = plan(ors);
            assertTrue(PhysicalPlan.depth(p.root()) <= 18, "depth " + PhysicalPlan.depth(p.root()));
            assertEquals(50_000, ((BinaryExpr) p.root()).terms().size());
            // x: 1, -2, NULL, 0, 5; the terms are x = 0 and x = 7, 14, ...
            assertEquals(Arrays.asList(false, false, null, true, false), evaluate(p, batch()));
            // Short chains stay as written.
            Expr shortChain = col("flag").or(col("flag")).or(col("flag"));
            assertEquals("((flag OR flag) OR flag)", Names.sql(plan(shortChain).root()));
        });
    }

    @Test
    void aTwoThousandBranchCaseGivesItsValues() {
        SmallStack.run(() -> {
            Expr.CaseBuilder c = Expr.when(col("x").eq(lit(-2_000)), lit(-1));
            for (int i = -1_999; i < 1; i++) {
                c = c.when(col("x").eq(lit(i)), lit(i * 10));
            }
            Expr e = c.otherwise(lit(7));
            // x: 1 (no branch: ELSE), -2, NULL (no branch), 0, 5.
            assertEquals(List.of(7, -20, 7, 0, 7), evaluate(plan(e), batch()));
            Expr.CaseBuilder k = Expr.caseOf(col("x"));
            for (int i = 0; i < 2_000; i++) {
                k = k.when(lit(i - 1_000), col("x").mul(lit(i)));
            }
            // The operand form with computed THENs (no lookup table): x * (x + 1000).
            assertEquals(Arrays.asList(1_001, -1_996, null, 0, 5_025), evaluate(plan(k.end()), batch()));
        });
    }

    @Test
    void aThousandArgumentCallGivesItsValues() {
        SmallStack.run(() -> {
            List<Expr> names = new ArrayList<>();
            List<Expr> numbers = new ArrayList<>();
            List<Expr> items = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                names.add(i % 2 == 0 ? col("name") : lit("-"));
                numbers.add(col("x").add(lit(i % 10 == 0 ? i : 0)));
                items.add(col("x").mul(lit(i)));
            }
            String[] names0 = {"ab", "Abc", null, "a_c", "%x"};
            List<Object> expected = new ArrayList<>();
            for (String n : names0) {
                expected.add((n == null ? "" : n + "-")
                        .repeat(n == null ? 0 : 500)
                        .concat(n == null ? "-".repeat(500) : ""));
            }
            // concat skips NULLs: the third row is the 500 dashes alone.
            List<Object> concatenated = evaluate(plan(call("concat", names)), batch());
            assertEquals(expected, concatenated.stream().map(Object::toString).toList());
            // greatest over x + 0, x + 10, ..., x + 990: x + 990.
            assertEquals(Arrays.asList(991, 988, null, 990, 995), evaluate(plan(call("greatest", numbers)), batch()));
            List<Object> arrays = evaluate(plan(call("make_array", items)), batch());
            for (int r = 0; r < 5; r++) {
                Integer x = new Integer[] {1, -2, null, 0, 5}[r];
                List<Integer> want = new ArrayList<>();
                for (int i = 0; i < 1_000; i++) {
                    want.add(x == null ? null : x * i);
                }
                assertEquals(want, arrays.get(r), "row " + r);
            }
        });
    }

    /** Fused segments stop at a bounded depth, so the code generators never see a program as deep as the tree. */
    @Test
    void deepArithmeticIsCutIntoSegmentsOfBoundedDepth() {
        SmallStack.run(() -> {
            Expr e = col("y");
            for (int i = 1; i < 999; i++) {
                e = e.neg();
            }
            PhysicalPlan p = plan(e);
            List<KernelProgram> programs = p.programs();
            assertTrue(programs.size() >= 999 / Fusion.MAX_SEGMENT_DEPTH, programs.size() + " segments");
            for (KernelProgram k : programs) {
                assertTrue(KernelProgram.depth(k.root(), 1_000) <= Fusion.MAX_SEGMENT_DEPTH + 1, k.text());
            }
            // 998 negations: y itself.
            assertEquals(Arrays.asList(1.5, null, 0.0, -4.0, 2.5), evaluate(p, batch()));
            assertInstanceOf(FusedKernelExpr.class, p.root());
        });
    }

    @Test
    void foldingNeverMakesAValueLargerThanTheLimit() {
        // 2,000,000,000 bytes: left to the batches, not made at planning.
        PhysicalPlan huge = plan(call("repeat", lit("x"), lit(2_000_000_000L)));
        assertInstanceOf(ScalarFunctionExpr.class, huge.root());
        // Over a batch, the allocator's limit answers (64 MiB here), with nothing left allocated.
        try (BufferAllocator small = allocator.newChildAllocator("small", 0, 64L << 20)) {
            ExecutionConfig limited = config.withAllocator(small);
            var ctx = new EvalContext(List.of(), 5, limited, ROW_INTERPRETER);
            ResourceException e =
                    assertThrows(ResourceException.class, () -> huge.root().evaluate(ctx));
            assertTrue(
                    e.detail()
                            .startsWith(
                                    "repeat: row 0 would take 2000000000 bytes, more than the allocator's limit or the"
                                            + " machine's memory leaves ("),
                    e.getMessage());
            assertEquals(0, small.getAllocatedMemory());
        }
        // Past what a Utf8 column holds: the 2 GiB of its offsets.
        PhysicalPlan tooLong = plan(call("repeat", lit("x"), lit(3_000_000_000L)));
        var ctx = new EvalContext(List.of(), 5, config, ROW_INTERPRETER);
        ResourceException e =
                assertThrows(ResourceException.class, () -> tooLong.root().evaluate(ctx));
        assertEquals(
                "repeat: the result would hold more than 2 GiB of text by row 0 (this row alone 3000000000 bytes), beyond what"
                        + " a Utf8 column can hold (a LargeUtf8 argument gives a LargeUtf8 result)",
                e.detail());
        // Small values still fold.
        assertEquals(
                new LiteralExpr(ScalarValue.of("xyxyxy")),
                plan(call("repeat", lit("xy"), lit(3))).root());
    }

    /** Under a limit of 8 bytes, a 20-byte constant stays a call, evaluated per batch and copied to each row. */
    @Test
    void aValueOverTheLimitIsComputedPerBatchWithTheSameResult() {
        ExecutionConfig tight =
                new ExecutionConfig(allocator, QUERY_START, true, Map.of(ExecutionConfig.MAX_FOLDED_VALUE_BYTES, "8"));
        PhysicalPlan p = new ExpressionPlanner(registry, tight)
                .plan(SCHEMA, call("concat", call("repeat", lit("ab"), lit(10)), col("name")));
        assertFalse(p.root() instanceof LiteralExpr);
        List<FieldVector> batch = batch();
        List<FieldVector> cols = p.schemaIndexes().stream().map(batch::get).toList();
        var ctx = new EvalContext(cols, 5, tight, ROW_INTERPRETER);
        try (var v = p.root().evaluate(ctx)) {
            String ab = "ab".repeat(10);
            assertEquals(
                    List.of(ab + "ab", ab + "Abc", ab, ab + "a_c", ab + "%x"),
                    values(v, 5).stream().map(Object::toString).toList());
        }
        // The constant alone, over five rows: a copy per row.
        PhysicalPlan alone = new ExpressionPlanner(registry, tight).plan(SCHEMA, call("repeat", lit("ab"), lit(10)));
        assertInstanceOf(ScalarFunctionExpr.class, alone.root());
        try (var v = alone.root().evaluate(new EvalContext(List.of(), 5, tight, ROW_INTERPRETER))) {
            assertEquals(
                    Collections.nCopies(5, "ab".repeat(10)),
                    values(v, 5).stream().map(Object::toString).toList());
        }
        assertThrows(
                IllegalArgumentException.class,
                () -> new ExecutionConfig(
                                allocator, QUERY_START, true, Map.of(ExecutionConfig.MAX_FOLDED_VALUE_BYTES, "-1"))
                        .maxFoldedValueBytes());
    }
}
