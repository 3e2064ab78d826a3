package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.Names;
import dev.quiver.physical.PhysicalExpr;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The numeric terms of a mixed AND/OR chain as one segment at its head ({@link ChainFusion}),
 * BETWEEN, short IN lists and date comparisons inside segments, and the terms every disjunct of an
 * OR shares taken out of it ({@link DisjunctFactoring}); values computed by hand on the default
 * batch of {@link PlanningTestBase} (x: 1, -2, NULL, 0, 5; y: 1.5, NULL, 0.0, -4.0, 2.5; l: 10,
 * NULL, -3, 7, 0; name: 'ab', 'Abc', NULL, 'a_c', '%x'; day: 2024-01-31, NULL, 1970-01-01,
 * 2000-02-29, 1969-12-31).
 */
class ChainFusionTest extends PlanningTestBase {
    @Test
    void theNumericTermsOfAMixedChainAreOneSegmentAtItsHead() {
        PhysicalPlan and = plan("x > 0 AND name = 'ab' AND y > 1");
        List<PhysicalExpr> terms = chainTerms(and.root());
        assertEquals(2, terms.size(), and.explain());
        FusedKernelExpr head = assertInstanceOf(FusedKernelExpr.class, terms.get(0), and.explain());
        assertEquals("((x > 0) AND (y > 1.0))", head.program().text());
        assertEquals("(name = 'ab')", Names.sql(terms.get(1)));
        assertEquals(Arrays.asList(true, false, false, false, false), evaluate(and, batch()));
        // OR: row 1 is FALSE OR FALSE OR NULL, row 2 NULL OR NULL OR FALSE.
        PhysicalPlan or = plan("x > 0 OR name = 'ab' OR y > 1");
        assertInstanceOf(FusedKernelExpr.class, chainTerms(or.root()).get(0), or.explain());
        assertEquals(Arrays.asList(true, null, null, false, true), evaluate(or, batch()));
    }

    @Test
    void aTermThatCanRaiseStaysBehindItsGuard() {
        // The segment (x <> 0 AND y > 0) runs first; 10 / x only on the rows it left: never x = 0 (row 3).
        PhysicalPlan p = plan("x <> 0 AND name <> 'zz' AND 10 / x > 1 AND y > 0");
        List<PhysicalExpr> terms = chainTerms(p.root());
        assertEquals(3, terms.size(), p.explain());
        assertInstanceOf(FusedKernelExpr.class, terms.get(0), p.explain());
        assertEquals("((10 / x) > 1)", Names.sql(terms.get(2)));
        // Row 1: x = -2 gives 10 / -2 = -5; row 2: y = 0.0.
        assertEquals(Arrays.asList(true, false, false, false, true), evaluate(p, batch()));
    }

    @Test
    void betweenShortInListsAndDatesFuse() {
        PhysicalPlan p = plan("y BETWEEN 0 AND 2 AND x IN (1, 5, NULL) AND day >= DATE '1970-01-01'");
        FusedKernelExpr f = assertInstanceOf(FusedKernelExpr.class, p.root(), p.explain());
        assertTrue(
                f.program().text().contains("(y BETWEEN 0.0 AND 2.0)"),
                f.program().text());
        // Row 1: NULL AND NULL AND NULL; row 2: TRUE AND NULL (0 matches nothing, the list has a NULL) AND TRUE.
        assertEquals(Arrays.asList(true, null, null, false, false), evaluate(p, batch()));
        PhysicalPlan negated = plan("y NOT BETWEEN 0 AND 2 OR x NOT IN (1, 5)");
        assertInstanceOf(FusedKernelExpr.class, negated.root(), negated.explain());
        assertEquals(Arrays.asList(false, true, null, true, true), evaluate(negated, batch()));
        // The date against the days of its literal; a NULL date is NULL.
        PhysicalPlan days = plan("day < DATE '2000-03-01' AND x > -5");
        assertInstanceOf(FusedKernelExpr.class, days.root(), days.explain());
        assertEquals(Arrays.asList(false, null, null, true, true), evaluate(days, batch()));
    }

    @Test
    void theTermsEveryDisjunctSharesAreTakenOut() {
        PhysicalPlan p = plan("(name = 'ab' AND x > 0) OR (name = 'ab' AND y < 0)");
        List<PhysicalExpr> and = chainTerms(p.root());
        assertEquals(2, and.size(), p.explain());
        assertEquals("(name = 'ab')", Names.sql(and.get(0)));
        // The OR of what is left compares numbers only: one segment.
        assertEquals(
                "((x > 0) OR (y < 0.0))",
                assertInstanceOf(FusedKernelExpr.class, and.get(1), p.explain())
                        .program()
                        .text());
        assertTrue(Names.sql(p.root()).startsWith("((name = 'ab') AND "), p.explain());
        // Row 2: NULL AND (NULL OR FALSE), as (NULL AND NULL) OR (NULL AND FALSE) was.
        assertEquals(Arrays.asList(true, false, null, false, false), evaluate(p, batch()));
        // A disjunct that is the shared terms alone: the OR is those terms.
        PhysicalPlan alone = plan("(name = 'ab' AND x > 0) OR name = 'ab'");
        assertEquals("(name = 'ab')", Names.sql(alone.root()));
        assertEquals(Arrays.asList(true, false, null, false, false), evaluate(alone, batch()));
    }

    @Test
    void aSharedTermThatCanRaiseStaysInEachDisjunct() {
        // x <> 0 is taken out; 10 / x stays behind it: row 3 (x = 0) divides by nothing.
        PhysicalPlan guarded = plan("(x <> 0 AND 10 / x > 1) OR (x <> 0 AND 10 / x < -1)");
        assertEquals("(x <> 0)", Names.sql(chainTerms(guarded.root()).get(0)), guarded.explain());
        assertEquals(Arrays.asList(true, true, null, false, true), evaluate(guarded, batch()));
        // 10 / x is in both, but can raise: nothing is taken out.
        PhysicalPlan fallible = plan("(10 / x > 1 AND y > 0) OR (10 / x > 1 AND l > 0)");
        assertTrue(Names.sql(fallible.root()).contains(") OR ("), fallible.explain());
    }
}
