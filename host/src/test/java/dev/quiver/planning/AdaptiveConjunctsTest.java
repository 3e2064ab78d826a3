package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.ConjunctOrder;
import dev.quiver.physical.ConjunctStats;
import dev.quiver.physical.ConjunctionExpr;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * Adaptive AND/OR chains ({@link ConjunctionExpr}) against the same chains planned in written
 * order ({@code -Dquiver.conjuncts.adaptive=false}): the same Kleene values on seeded random
 * batches with nulls, batch after batch while the order adapts; a badly written chain is
 * reordered and EXPLAIN ANALYZE's figures match the data; a term that can raise is never run
 * before its guard. Replay with {@code -Dquiver.seed=<seed>} (printed).
 */
class AdaptiveConjunctsTest extends PlanningTestBase {
    static final long SEED = Long.getLong("quiver.seed", 20261202L);

    /** Planned in written order: the reference. */
    private PhysicalPlan writtenOrder(String sql) {
        String before = System.getProperty(AdaptiveConjuncts.PROPERTY);
        System.setProperty(AdaptiveConjuncts.PROPERTY, "false");
        try {
            return plan(sql);
        } finally {
            if (before == null) {
                System.clearProperty(AdaptiveConjuncts.PROPERTY);
            } else {
                System.setProperty(AdaptiveConjuncts.PROPERTY, before);
            }
        }
    }

    /**
     * {@code rows} random rows in the schema's order: x in 1..99 or zero (one row in a hundred), y in
     * [0, 1), l in -50..49, name of 4 to 20 letters a-e, flag; each NULL one row in eight.
     */
    private List<FieldVector> randomBatch(Random r, int rows) {
        Object[] x = new Object[rows], y = new Object[rows], l = new Object[rows], name = new Object[rows];
        Object[] flag = new Object[rows], nulls = new Object[rows];
        for (int i = 0; i < rows; i++) {
            x[i] = r.nextInt(8) == 0 ? null : (r.nextInt(100) == 0 ? 0 : 1 + r.nextInt(99));
            y[i] = r.nextInt(8) == 0 ? null : r.nextDouble();
            l[i] = r.nextInt(8) == 0 ? null : (long) (r.nextInt(100) - 50);
            flag[i] = r.nextInt(8) == 0 ? null : r.nextBoolean();
            if (r.nextInt(8) != 0) {
                StringBuilder sb = new StringBuilder();
                for (int k = 4 + r.nextInt(17); k > 0; k--) {
                    sb.append((char) ('a' + r.nextInt(5)));
                }
                name[i] = sb.toString();
            }
        }
        return List.of(
                column(DataType.INT32, x),
                column(DataType.FLOAT64, y),
                column(DataType.INT64, l),
                column(DataType.UTF8, name),
                column(DataType.BOOLEAN, flag),
                column(DataType.INT8, nulls),
                column(DataType.UINT32, nulls),
                column(new DataType.Decimal(10, 2), nulls),
                column(DataType.DATE32, nulls));
    }

    @Test
    void theSameValuesAsWrittenOrderBatchAfterBatch() {
        System.out.println("AdaptiveConjunctsTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        List<String> chains = List.of(
                "name LIKE '%a%b%c%' AND x > 50 AND name <> 'zz'",
                "name LIKE '%ab%' OR x < 10 OR flag",
                "(x > 20 AND y > 0.3) OR (name LIKE 'a%' AND NOT flag) OR l IS NULL",
                "x <> 0 AND l / x > 2 AND y > 0.8",
                "TRY_CAST(name AS INT) IS NULL AND x > 90 AND name <> 'q'",
                "NOT (x > 50 AND y < 0.5) AND (name = 'abcd' OR flag) AND l > 40",
                "y > 0.2 AND x IS NOT NULL AND upper(name) LIKE '%E%' AND l BETWEEN -10 AND 10");
        Random r = new Random(SEED);
        int reordered = 0;
        for (String sql : chains) {
            PhysicalPlan adaptive = plan(sql);
            PhysicalPlan written = writtenOrder(sql);
            // A chain whose numeric terms are one segment at its head keeps the head first; with one other term,
            // or others that cannot move, it has one order only: compared, not counted.
            List<ConjunctionExpr> conjunctions = conjunctions(adaptive);
            assertTrue(
                    !conjunctions.isEmpty()
                            || AdaptiveConjuncts.isNumericHead(
                                    chainTerms(adaptive.root()).getFirst()),
                    sql + ":\n" + adaptive.explain());
            assertTrue(conjunctions(written).isEmpty(), written.explain());
            for (int batch = 0; batch < 80; batch++) {
                List<FieldVector> b = randomBatch(r, 1 + r.nextInt(batch % 10 == 0 ? 40 : 3000));
                assertEquals(evaluate(written, b), evaluate(adaptive, b), sql + ", batch " + batch);
                closeInputs(b);
            }
            for (ConjunctionExpr c : conjunctions) {
                int[] now = c.order().current();
                int[] asWritten = new int[now.length];
                Arrays.setAll(asWritten, i -> i);
                reordered += Arrays.equals(now, asWritten) ? 0 : 1;
            }
        }
        assertTrue(reordered >= 3, reordered + " chains reordered");
    }

    @Test
    void aBadlyWrittenChainIsReorderedAndExplainShowsItsFigures() {
        PhysicalPlan p = plan("name LIKE '%a%b%c%d%' AND x > 90");
        ConjunctionExpr c = assertInstanceOf(ConjunctionExpr.class, p.root(), p.explain());
        Random r = new Random(SEED + 1);
        long seen = 0, passed = 0;
        for (int batch = 0; batch < 12; batch++) {
            List<FieldVector> b = randomBatch(r, 4096);
            List<Object> got = evaluate(p, b);
            assertEquals(4096, got.size());
            for (int i = 0; i < 4096; i++) {
                Object x = b.get(0).getObject(i);
                seen++;
                passed += x == null || (Integer) x > 90 ? 1 : 0;
            }
            closeInputs(b);
        }
        assertArrayEquals(new int[] {1, 0}, c.order().current(), c.analyze());
        String text = c.analyze();
        assertTrue(text.startsWith("AND of 2 terms, order now #2, #1 ("), text);
        Matcher m = Pattern.compile("#2 \\(x > 90\\): selectivity (\\d\\.\\d{3}) \\(FALSE on ")
                .matcher(text);
        assertTrue(m.find(), text);
        double expected = (double) passed / seen;
        assertEquals(expected, Double.parseDouble(m.group(1)), 0.02, text);
        ConjunctStats.Term like = c.order().stats().snapshot().get(0);
        ConjunctStats.Term cmp = c.order().stats().snapshot().get(1);
        assertTrue(like.nanosPerRow() > cmp.nanosPerRow(), text);
        assertTrue(text.contains("#1 (name LIKE '%a%b%c%d%'): selectivity"), text);
        // The plan's tree names the node and its terms as written.
        assertTrue(p.explain().contains("AND (adaptive order: 2 terms"), p.explain());
    }

    @Test
    void aTermThatCanRaiseNeverRunsBeforeItsGuard() {
        // x is zero on one row in a hundred: the guard decides little, the division most rows (l < 50 mostly
        // gives l / x <= 2), so by rank the division would go first; it may not, and never divides by zero.
        String sql = "x <> 0 AND l / x < -1 AND name <> 'zz'";
        PhysicalPlan p = plan(sql);
        ConjunctionExpr c = assertInstanceOf(ConjunctionExpr.class, p.root(), p.explain());
        assertEquals(
                List.of(ConjunctOrder.Mobility.FREE, ConjunctOrder.Mobility.NOT_EARLIER, ConjunctOrder.Mobility.FREE),
                c.order().mobility());
        PhysicalPlan written = writtenOrder(sql);
        Random r = new Random(SEED + 2);
        for (int batch = 0; batch < 120; batch++) {
            List<FieldVector> b = randomBatch(r, 2048);
            assertEquals(evaluate(written, b), evaluate(p, b), "batch " + batch);
            closeInputs(b);
            List<Integer> order = Arrays.stream(c.order().current()).boxed().toList();
            assertTrue(order.indexOf(0) < order.indexOf(1), order + "\n" + c.analyze());
        }
        List<ConjunctStats.Term> f = c.order().stats().snapshot();
        // By its figures the division would rank before the guard: only its mobility keeps it after.
        assertTrue(
                ConjunctOrder.rank(f.get(1)) < ConjunctOrder.rank(f.get(0)),
                "the test needs a division that ranks first: " + c.analyze());
        assertTrue(c.analyze().contains("can raise: stays after the terms written before it"), c.analyze());
    }

    @Test
    void chainsWhoseTermsCannotMoveStayAsWritten() {
        // The cast can raise and its only predecessor is before it: one order only.
        assertInstanceOf(
                BinaryExpr.class, plan("x <> 0 AND CAST(name AS INT) > 1").root());
        // A volatile term pins its place; a free term next to another may still move.
        assertInstanceOf(BinaryExpr.class, plan("random() < 0.5 AND x > 1").root());
        assertInstanceOf(
                ConjunctionExpr.class,
                plan("random() < 0.5 AND x > 1 AND y > 0.5").root());
        assertEquals(
                List.of(ConjunctOrder.Mobility.FIXED, ConjunctOrder.Mobility.FREE, ConjunctOrder.Mobility.FREE),
                ((ConjunctionExpr) plan("random() < 0.5 AND x > 1 AND y > 0.5").root())
                        .order()
                        .mobility());
        // Off: written order.
        assertTrue(conjunctions(writtenOrder("x > 1 AND y > 0.5")).isEmpty());
    }

    private static List<ConjunctionExpr> conjunctions(PhysicalPlan p) {
        List<ConjunctionExpr> out = new ArrayList<>();
        for (var n : nodes(p.root())) {
            if (n instanceof ConjunctionExpr c) {
                out.add(c);
            }
        }
        return out;
    }
}
