package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.InList;
import dev.quiver.kernels.LikePattern;
import dev.quiver.physical.InListExpr;
import dev.quiver.physical.LikeExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.types.DataType;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * Literal LIKE patterns and IN lists are prepared once, when the plan is built: the node holds
 * the compiled pattern or prepared list, every batch uses that same object, and EXPLAIN names
 * the strategy chosen.
 */
class PredicatePreparationTest extends PlanningTestBase {
    private static final Boolean T = true;
    private static final Boolean F = false;

    private static List<Object> row(Object... v) {
        return Arrays.asList(v);
    }

    @Test
    void aLiteralPatternIsCompiledWhenPlannedAndUsedByEveryBatch() {
        PhysicalPlan p = plan("name LIKE 'a%'");
        LikeExpr like = assertInstanceOf(LikeExpr.class, p.root());
        LikePattern compiled = like.compiled().orElseThrow();
        assertEquals(LikePattern.Strategy.PREFIX, compiled.strategy());
        assertTrue(p.explain().contains("LIKE (prefix) -> Boolean"), p.explain());
        List<FieldVector> batch = batch();
        assertEquals(row(T, F, null, T, F), evaluate(p, batch));
        assertEquals(row(T, F, null, T, F), evaluate(p, batch));
        assertSame(compiled, like.compiled().orElseThrow(), "the node keeps the pattern it compiled");
    }

    @Test
    void aLiteralListIsPreparedWhenPlannedAndUsedByEveryBatch() {
        String twelve = IntStream.range(0, 12).mapToObj(Integer::toString).collect(Collectors.joining(", "));
        PhysicalPlan p = plan("x IN (" + twelve + ")");
        InListExpr in = assertInstanceOf(InListExpr.class, p.root());
        InList prepared = in.prepared().orElseThrow();
        assertEquals(12, prepared.size());
        assertTrue(p.explain().contains("IN (bitmap of 12 values) -> Boolean"), p.explain());
        List<FieldVector> batch = batch();
        assertEquals(row(T, F, null, T, T), evaluate(p, batch));
        assertEquals(row(T, F, null, T, T), evaluate(p, batch));
        assertSame(prepared, in.prepared().orElseThrow(), "the node keeps the list it prepared");
    }

    @Test
    void explainNamesTheStrategy() {
        String spread = IntStream.range(0, 9)
                .mapToObj(k -> Long.toString(k * 1_000_000_007L))
                .collect(Collectors.joining(", "));
        String strings = IntStream.range(0, 12).mapToObj(k -> "'s" + k + "'").collect(Collectors.joining(", "));
        String[][] table = {
            {"name LIKE 'ab'", "LIKE (exact)"},
            {"name LIKE '%c'", "LIKE (suffix)"},
            {"name NOT LIKE '%b%'", "NOT LIKE (contains)"},
            {"name LIKE 'a_c'", "LIKE (general)"},
            {"name LIKE 'a%c'", "LIKE (general)"},
            {"name ILIKE '%'", "ILIKE (any)"},
            {"name ILIKE 'AB%'", "ILIKE (prefix)"},
            {"name ILIKE 'É%'", "ILIKE (general)"},
            {"name LIKE '!%%' ESCAPE '!'", "LIKE (prefix) ESCAPE '!'"},
            {"name LIKE upper(name)", "LIKE (pattern per row)"},
            {"x IN (1, 2, 3)", "IN (linear scan of 3 values)"},
            {"x NOT IN (1, 5)", "NOT IN (linear scan of 2 values)"},
            {"l IN (" + spread + ")", "IN (hash set of 9 values)"},
            {"name IN ('a', 'b', NULL)", "IN (linear scan of 2 values and NULL)"},
            {"name IN (" + strings + ")", "IN (hash set of 12 values)"},
            {"x IN (1, 2.5, l)", "IN (linear scan of 2 values + 1 expression)"},
            {"y IN (0.0, -0.0, 'NaN'::DOUBLE)", "IN (linear scan of 2 values)"},
        };
        for (String[] t : table) {
            PhysicalPlan p = plan(t[0]);
            assertEquals(
                    t[1] + " -> Boolean",
                    p.root().explainTree().lines().findFirst().orElseThrow(),
                    t[0]);
        }
    }

    @Test
    void aPatternEndingInALoneEscapeFailsWhenPlanned() {
        PlanningException e = assertThrows(PlanningException.class, () -> plan("name LIKE 'a!' ESCAPE '!'"));
        assertTrue(e.getMessage().contains("ends with the escape character"), e.getMessage());
        // Even where no batch would reach it.
        assertThrows(PlanningException.class, () -> plan("CASE WHEN x > 100 THEN name ILIKE 'a!' ESCAPE '!' END"));
    }

    @Test
    void preparedNodesEvaluateAsSqlSays() {
        String twenty = IntStream.range(0, 20)
                .mapToObj(k -> Integer.toString(k * 5 - 10))
                .collect(Collectors.joining(", "));
        Object[][] table = {
            {"x IN (" + twenty + ")", row(F, F, null, T, T)},
            {"x NOT IN (" + twenty + ", NULL)", row(null, null, null, F, F)},
            {"name IN ('ab', 'a_c', NULL)", row(T, null, null, T, null)},
            {"dec IN (1.25, 10, 0.010)", row(T, F, null, T, T)},
            {"day IN (DATE '2024-01-31', DATE '1969-12-31')", row(T, null, F, F, T)},
            {"y IN (0.0, 1.5)", row(T, null, T, F, F)},
            {"name ILIKE '%B%'", row(T, T, null, F, F)},
            {"name LIKE '%!_%' ESCAPE '!'", row(F, F, null, T, F)},
            {"name NOT ILIKE 'a_C'", row(T, F, null, F, T)},
            {"y BETWEEN -4 AND 1.5", row(T, null, T, T, F)},
            {"dec NOT BETWEEN 0 AND 1.25", row(F, T, null, T, F)},
        };
        List<FieldVector> batch = batch();
        for (Object[] t : table) {
            PhysicalPlan p = plan((String) t[0]);
            assertEquals(DataType.BOOLEAN, p.outputType());
            assertEquals(t[1], evaluate(p, batch), t[0] + "\n" + p.explain());
        }
    }

    @Test
    void rebuildingANodeKeepsItsMeaning() {
        PhysicalPlan p = plan("name NOT ILIKE 'a%' ESCAPE '!'");
        LikeExpr like = assertInstanceOf(LikeExpr.class, p.root());
        LikeExpr same =
                new LikeExpr(like.input(), like.pattern(), like.escape(), like.negated(), like.caseInsensitive());
        assertEquals(like, same);
        assertEquals(like.hashCode(), same.hashCode());
        PhysicalPlan q = plan("x NOT IN (1, 2, l)");
        InListExpr in = assertInstanceOf(InListExpr.class, q.root());
        PhysicalExpr rebuilt = new InListExpr(in.input(), in.list(), in.negated());
        assertEquals(in, rebuilt);
        assertEquals(in.describe(), rebuilt.describe());
    }
}
