package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.CaseExpr;
import dev.quiver.physical.ConjunctionExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.IsNullExpr;
import dev.quiver.physical.PhysicalExpr;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which CASEs and AND/OR trees the planner fuses into one kernel segment ({@link CaseFusion}),
 * which it leaves to the host nodes, and the values both give on the default batch, computed by
 * hand (the fused programs run through {@link dev.quiver.rowfn.ir.RowInterpreter}, the IR's
 * reference). x: 1, -2, NULL, 0, 5; y: 1.5, NULL, 0.0, -4.0, 2.5; l: 10, NULL, -3, 7, 0; flag:
 * true, false, NULL, true, NULL; name: 'ab', 'Abc', NULL, 'a_c', '%x'.
 */
class CaseFusionPlanningTest extends PlanningTestBase {
    @Test
    void anInfallibleCaseIsOneSegment() {
        PhysicalPlan p = plan("CASE WHEN y > 1 THEN y * 2 WHEN flag THEN -y END");
        FusedKernelExpr f = assertInstanceOf(FusedKernelExpr.class, p.root(), p.explain());
        assertEquals(1, p.programs().size(), p.explain());
        assertTrue(p.explain().contains("[dense] [sees nulls]"), p.explain());
        assertEquals(
                "CASE WHEN (y > 1.0) THEN (y * 2.0) WHEN flag THEN (- y) END",
                f.program().text());
        // Row 1: y NULL (a NULL WHEN is false), flag false; row 2: flag NULL: no branch, NULL.
        assertEquals(Arrays.asList(3.0, null, null, 4.0, 5.0), evaluate(p, batch()));
    }

    @Test
    void aSimpleCaseComparesItsOperand() {
        PhysicalPlan p = plan("CASE x WHEN 1 THEN y WHEN 0 THEN l ELSE -1 END");
        assertInstanceOf(FusedKernelExpr.class, p.root(), p.explain());
        // l and -1 widened to Float64; a NULL operand takes the ELSE.
        assertEquals(Arrays.asList(1.5, -1.0, -1.0, 7.0, -1.0), evaluate(p, batch()));
    }

    @Test
    void aCheapHostConditionIsAnInput() {
        PhysicalPlan p = plan("CASE WHEN name = 'ab' THEN y ELSE 0.0 END");
        FusedKernelExpr f = assertInstanceOf(FusedKernelExpr.class, p.root(), p.explain());
        assertInstanceOf(BinaryExpr.class, f.inputs().getFirst(), p.explain());
        assertEquals(Arrays.asList(1.5, 0.0, 0.0, 0.0, 0.0), evaluate(p, batch()));
    }

    @Test
    void kleeneLogicOverNumbersIsOneSegment() {
        PhysicalPlan and = plan("y > 1 AND x > 0");
        assertInstanceOf(FusedKernelExpr.class, and.root(), and.explain());
        // Row 1: NULL AND FALSE is FALSE.
        assertEquals(Arrays.asList(true, false, false, false, true), evaluate(and, batch()));
        PhysicalPlan or = plan("y > 1 OR x > 0");
        assertInstanceOf(FusedKernelExpr.class, or.root(), or.explain());
        // Rows 1 and 2: NULL OR FALSE is NULL.
        assertEquals(Arrays.asList(true, null, null, false, true), evaluate(or, batch()));
    }

    @Test
    void whatCanFailOrCostsStaysOnTheHost() {
        // Checked integer division: runs only where x <> 0 took the row.
        PhysicalPlan div = plan("CASE WHEN x <> 0 THEN 10 / x ELSE 0 END");
        assertInstanceOf(CaseExpr.class, div.root(), div.explain());
        assertEquals(Arrays.asList(10, -5, 0, 0, 2), evaluate(div, batch()));
        // Wrapping integer division can fail too.
        PhysicalPlan wrapping = planWrapping("CASE WHEN x <> 0 THEN 10 / x ELSE 0 END");
        assertInstanceOf(CaseExpr.class, wrapping.root(), wrapping.explain());
        assertEquals(Arrays.asList(10, -5, 0, 0, 2), evaluate(wrapping, batch()));
        // Wrapping multiplication cannot: fused.
        assertInstanceOf(
                FusedKernelExpr.class,
                planWrapping("CASE WHEN x > 0 THEN x * 2 ELSE 0 END").root());
        // Volatile, a lookup table, a string result.
        assertInstanceOf(
                CaseExpr.class,
                plan("CASE WHEN y > 0 THEN random() ELSE 0.0 END").root());
        CaseExpr lookup = assertInstanceOf(
                CaseExpr.class, plan("CASE x WHEN 1 THEN 10 WHEN 2 THEN 20 END").root());
        assertTrue(lookup.lookup().isPresent());
        assertInstanceOf(
                CaseExpr.class, plan("CASE WHEN y > 0 THEN 'p' ELSE 'n' END").root());
        // An AND with a host term keeps its short circuit.
        assertTrue(hostChain(plan("y > 1 AND name = 'ab'").root()));
        assertTrue(hostChain(plan("flag AND flag").root()));
        // So does one with an IS NULL test (answered from the bitmaps); its chain of numbers is one segment.
        PhysicalPlan nullTest = plan("(y > 1 AND x > 0) OR l IS NULL");
        List<PhysicalExpr> or = PlanningTestBase.chainTerms(nullTest.root());
        assertInstanceOf(FusedKernelExpr.class, or.get(0), nullTest.explain());
        assertInstanceOf(IsNullExpr.class, or.get(1), nullTest.explain());
        // Row 1: NULL OR TRUE; row 2: FALSE (y = 0) AND NULL, OR FALSE.
        assertEquals(Arrays.asList(true, true, false, false, true), evaluate(nullTest, batch()));
    }

    @Test
    void aCaseWithAFallibleBranchStillFusesItsParts() {
        PhysicalPlan p = plan("CASE WHEN y * 2 > 1 THEN x / 2 ELSE 0 END");
        CaseExpr c = assertInstanceOf(CaseExpr.class, p.root(), p.explain());
        assertInstanceOf(FusedKernelExpr.class, c.whens().getFirst(), p.explain());
        // x / 2 is checked Int32 division (the host's); row 2: y * 2 = 0 is not > 1.
        assertEquals(Arrays.asList(0, 0, 0, 0, 2), evaluate(p, batch()));
    }

    @Test
    void segmentsNestedInTheHostTreeAreCases() {
        PhysicalPlan p = plan("upper(name) = 'AB' OR CASE WHEN y > 0 THEN flag ELSE NOT flag END");
        List<PhysicalExpr> fused = nodes(p.root()).stream()
                .filter(n -> n instanceof FusedKernelExpr)
                .toList();
        assertEquals(1, fused.size(), p.explain());
        // Row 0: 'AB'; row 1: y NULL: NOT false; row 2: y 0.0: NOT NULL; row 3: NOT true; row 4: flag NULL.
        assertEquals(Arrays.asList(true, true, null, false, null), evaluate(p, batch()));
    }

    /** An AND/OR chain evaluated on the host, in written order or an adaptive one. */
    private static boolean hostChain(PhysicalExpr e) {
        return e instanceof BinaryExpr || e instanceof ConjunctionExpr;
    }
}
