package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.KernelExecutor;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * A deterministic subtree that stands in several places runs once per batch, with the same
 * results and errors as before: the values are compared with the same expression written so that
 * nothing repeats, and the kernels run are counted.
 */
class CommonSubexpressionsTest extends PlanningTestBase {
    /** The programs run, by text, in the order they ran. */
    private final List<String> ran = new ArrayList<>();

    private final KernelExecutor counting = (program, args, rows, allocator, mode) -> {
        ran.add(program.text());
        return ROW_INTERPRETER.run(program, args, rows, allocator, mode);
    };

    private List<Object> run(PhysicalPlan p) {
        List<FieldVector> batch = batch();
        List<FieldVector> cols = p.schemaIndexes().stream().map(batch::get).toList();
        try (EvalContext ctx = new EvalContext(cols, 5, config, counting);
                ColumnarValue v = ctx.release(p.root().evaluate(ctx))) {
            return values(v, 5);
        }
    }

    private long runsOf(String text) {
        return ran.stream().filter(t -> t.contains(text)).count();
    }

    @Test
    void aSubtreeTestedInTwoWhensRunsOnce() {
        String sql = "CASE WHEN sin(y) * 2 > 1 THEN 'high' WHEN sin(y) * 2 > 0 THEN 'low' ELSE 'none' END";
        PhysicalPlan p = plan(sql);
        assertEquals(1, CommonSubexpressions.sharedCount(p.root()), p.root().explainTree());
        assertTrue(p.root().explainTree().contains("shared #1"), p.root().explainTree());
        // sin(1.5) * 2 = 1.99 > 1; NULL; sin(0) * 2 = 0: neither; sin(-4) * 2 = 1.51 > 1; sin(2.5) * 2 = 1.20 > 1.
        assertEquals(Arrays.asList("high", "none", "none", "high", "high"), run(p));
        assertEquals(1, runsOf("sin"), "sin ran once: " + ran);
    }

    @Test
    void aSharedSubtreeKeepsTheLazinessOfWhereItStands() {
        // 10 / x (checked Int32 division) stands in a WHEN and two branches; x = 0 never reaches them.
        String sql = "CASE WHEN x = 0 OR x IS NULL THEN -1 WHEN 10 / x > 2 THEN 10 / x ELSE 10 / x + 100 END";
        PhysicalPlan p = plan(sql);
        assertEquals(1, CommonSubexpressions.sharedCount(p.root()), p.root().explainTree());
        // x = 1, -2, NULL, 0, 5: 10 > 2 -> 10; -5 -> -5 + 100; -1; -1; 2 -> 102.
        assertEquals(Arrays.asList(10, 95, -1, -1, 102), run(p));
        // Without the guard the division raises, shared or not.
        PhysicalPlan unguarded = plan("CASE WHEN 10 / x > 2 THEN 10 / x ELSE 0 END");
        assertThrows(KernelArithmeticException.class, () -> run(unguarded));
    }

    @Test
    void whatOneFusedLoopComputesOnceAlreadyIsNotCutApart() {
        // sqrt(y) twice in one fused segment: the loop computes it once in registers.
        PhysicalPlan p = plan("sqrt(y) + sqrt(y) * 2");
        assertEquals(0, CommonSubexpressions.sharedCount(p.root()), p.root().explainTree());
        assertEquals(
                1,
                PlanningTestBase.nodes(p.root()).stream()
                        .filter(n -> n instanceof FusedKernelExpr)
                        .count());
    }

    @Test
    void volatileCallsAreNeverShared() {
        PhysicalPlan p = plan("CASE WHEN random() > 2 THEN 0.0 WHEN random() > 2 THEN 1.0 ELSE 2.0 END");
        assertEquals(0, CommonSubexpressions.sharedCount(p.root()), p.root().explainTree());
    }

    @Test
    void theLargestRepeatedSubtreeIsSharedAndNotItsParts() {
        // (sin(y) + 1) stands in two WHENs; sin(y) only inside it: one shared subtree, the larger.
        String sql = "CASE WHEN (sin(y) + 1) * 3 > 4 THEN 1 WHEN (sin(y) + 1) * 3 > 2 THEN 2 ELSE 3 END";
        PhysicalPlan p = plan(sql);
        assertEquals(1, CommonSubexpressions.sharedCount(p.root()), p.root().explainTree());
        // (sin(y) + 1) * 3 for y = 1.5, NULL, 0, -4, 2.5: 5.99, NULL, 3, 5.27, 4.80.
        assertEquals(Arrays.asList(1, 3, 2, 1, 1), run(p));
        assertEquals(1, runsOf("sin"), "sin ran once: " + ran);
    }

    @Test
    void stringSubtreesAreSharedToo() {
        String sql = "CASE WHEN upper(name) = 'AB' THEN 1 WHEN upper(name) LIKE 'A%' THEN 2 ELSE 3 END";
        PhysicalPlan p = plan(sql);
        assertEquals(1, CommonSubexpressions.sharedCount(p.root()), p.root().explainTree());
        // 'ab', 'Abc', NULL, 'a_c', '%x'
        assertEquals(Arrays.asList(1, 2, 3, 2, 3), run(p));
    }
}
