package dev.quiver.physical;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.physical.ConjunctOrder.Mobility;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ranking and scheduling of adaptive AND/OR chains, from figures given by hand. */
class ConjunctOrderTest {
    private static final Mobility F = Mobility.FREE;
    private static final Mobility R = Mobility.NOT_EARLIER;
    private static final Mobility X = Mobility.FIXED;

    @Test
    void statsFollowTheSamples() {
        ConjunctStats s = new ConjunctStats(2);
        s.add(0, true, 1_000, 100, 100, 25); // 10 ns/row, decides 25%
        ConjunctStats.Term t = s.snapshot().get(0);
        assertEquals(10.0, t.nanosPerRow(), 1e-9);
        assertEquals(0.25, t.decidedFraction(), 1e-9);
        assertEquals(0.75, t.passFraction(), 1e-9);
        assertEquals(0, s.snapshot().get(1).samples());
        assertTrue(Double.isNaN(s.snapshot().get(1).nanosPerRow()));
        // A second sample at 30 ns/row deciding all: the cost moves up slowly, the share decided by decayed rows.
        s.add(0, true, 3_000, 100, 100, 100);
        t = s.snapshot().get(0);
        assertEquals(10 + ConjunctStats.UP * 20, t.nanosPerRow(), 1e-9);
        assertEquals((25 * ConjunctStats.DECAY + 100) / (100 * ConjunctStats.DECAY + 100), t.decidedFraction(), 1e-9);
        assertEquals(2, t.samples());
        // A faster sample moves it down half way: slowness from outside the term (a busy core, code
        // the JIT has not compiled yet) only ever adds time.
        s.add(0, true, 100, 100, 100, 100);
        assertEquals((10 + ConjunctStats.UP * 20 + 1) / 2, s.snapshot().get(0).nanosPerRow(), 1e-9);
        // Old figures fade: after many samples at 2 ns/row the estimate is near 2.
        for (int i = 0; i < 60; i++) {
            s.add(0, true, 200, 100, 100, 50);
        }
        assertEquals(2.0, s.snapshot().get(0).nanosPerRow(), 1e-6);
        assertEquals(0.5, s.snapshot().get(0).decidedFraction(), 1e-6);
    }

    @Test
    void theWholeBatchCostIsRankedByWhenKnown() {
        ConjunctStats s = new ConjunctStats(1);
        s.add(0, false, 3_000, 100, 100, 50); // on gathered rows: 30 ns/row
        assertEquals(30.0, s.snapshot().get(0).nanosPerRow(), 1e-9);
        s.add(0, true, 1_000, 1_000, 1_000, 500); // on the whole batch: 1 ns/row
        assertEquals(1.0, s.snapshot().get(0).nanosPerRow(), 1e-9);
        assertEquals(30.0, s.snapshot().get(0).selectedNanosPerRow(), 1e-9);
        assertEquals(0.5, s.snapshot().get(0).decidedFraction(), 1e-9);
    }

    @Test
    void theCheapestPerRowDecidedGoesFirst() {
        ConjunctStats s = new ConjunctStats(3);
        s.add(0, true, 100_000, 1_000, 1_000, 100); // 100 ns/row, decides 10%: rank 1000
        s.add(1, true, 1_000, 1_000, 1_000, 900); // 1 ns/row, decides 90%: rank 1.11
        s.add(2, true, 1_000, 1_000, 1_000, 100); // 1 ns/row, decides 10%: rank 10
        assertArrayEquals(
                new int[] {1, 2, 0}, ConjunctOrder.order(ConjunctOrder.ranks(s.snapshot()), List.of(F, F, F)));
        // Deciding nothing: the cheaper first, after every term that decides something.
        assertArrayEquals(
                new int[] {2, 0, 1}, ConjunctOrder.order(new double[] {3 / 1e-6, 5 / 1e-6, 7.0}, List.of(F, F, F)));
    }

    @Test
    void aTermThatCanRaiseNeverRunsBeforeATermWrittenBeforeIt() {
        // The fallible term 1 ranks best, but stays after term 0; the free term 2 may pass both.
        assertArrayEquals(new int[] {2, 0, 1}, ConjunctOrder.order(new double[] {5, 1, 0.5}, List.of(F, R, F)));
        assertArrayEquals(new int[] {0, 1, 2}, ConjunctOrder.order(new double[] {5, 1, 9}, List.of(F, R, F)));
        // It may move later.
        assertArrayEquals(new int[] {1, 2, 0}, ConjunctOrder.order(new double[] {9, 1, 2}, List.of(R, F, F)));
        // Two fallible terms keep their written order between them.
        assertArrayEquals(new int[] {2, 0, 1}, ConjunctOrder.order(new double[] {5, 1, 0.1}, List.of(R, R, F)));
    }

    @Test
    void nothingCrossesAFixedTerm() {
        assertArrayEquals(
                new int[] {0, 1, 3, 2}, ConjunctOrder.order(new double[] {5, 0, 1, 0.5}, List.of(F, X, F, F)));
        assertArrayEquals(new int[] {1, 0, 2, 3}, ConjunctOrder.order(new double[] {5, 1, 0, 0}, List.of(F, F, X, F)));
    }

    @Test
    void unmeasuredTermsKeepWrittenOrderAfterTheMeasured() {
        double inf = Double.POSITIVE_INFINITY;
        assertArrayEquals(
                new int[] {2, 0, 1, 3}, ConjunctOrder.order(new double[] {inf, inf, 1, inf}, List.of(F, F, F, F)));
    }

    @Test
    void theOrderFollowsTheMeasuredBatches() {
        ConjunctOrder o = new ConjunctOrder(List.of(F, F));
        // Written order first; term 0 costs 50 ns/row and decides 10%, term 1 costs 1 ns/row and decides 80%.
        ConjunctOrder.Batch b = o.next();
        assertArrayEquals(new int[] {0, 1}, b.order());
        assertTrue(b.sample() != null, "warm-up batches are measured");
        measure(b, 1_000);
        o.done(b);
        assertArrayEquals(new int[] {0, 1}, o.current(), "one sample is not enough");
        b = o.next();
        measure(b, 1_000);
        o.done(b);
        assertArrayEquals(new int[] {1, 0}, o.current(), "re-ranked after the second sample");
        // After warm-up, most batches are not measured.
        int measured = 0;
        int explored = 0;
        for (int i = 2; i < 600; i++) {
            b = o.next();
            if (b.sample() != null) {
                measured++;
                measure(b, 1_000);
                if (b.explored()) {
                    explored++;
                    assertArrayEquals(new int[] {0, 1}, b.order(), "the term not first is moved ahead");
                }
            }
            o.done(b);
        }
        assertTrue(measured < 90, measured + " measured");
        assertTrue(explored >= 2, explored + " explored");
        assertArrayEquals(new int[] {1, 0}, o.current());
        assertTrue(o.schedule().contains("of 600 batches measured"), o.schedule());
    }

    @Test
    void aChangeInTheDataChangesTheOrderBack() {
        ConjunctOrder o = new ConjunctOrder(List.of(F, F));
        ConjunctStats s = o.stats();
        for (int i = 0; i < 4; i++) {
            ConjunctOrder.Batch b = o.next();
            measure(b, 1_000);
            o.done(b);
        }
        assertArrayEquals(new int[] {1, 0}, o.current());
        // Now term 1 decides nothing: its figures move, and the next re-rank puts term 0 first.
        for (int i = 0; i < 20; i++) {
            s.add(1, true, 1_000, 1_000, 1_000, 0);
        }
        boolean back = false;
        for (int i = 0; i < 200 && !back; i++) {
            ConjunctOrder.Batch b = o.next();
            o.done(b);
            back = o.current()[0] == 0;
        }
        assertTrue(back, "re-ranked to written order: " + s.snapshot());
    }

    /** Term 0: 50 ns/row, decides 10%; term 1: 1 ns/row, decides 80% (only while its figures are not overridden). */
    private static void measure(ConjunctOrder.Batch b, int rows) {
        ConjunctSample s = b.sample();
        int in = rows;
        for (int t : b.order()) {
            s.ran(t, in, in, true, (t == 0 ? 50L : 1L) * in);
            int decided = t == 0 ? in / 10 : in * 8 / 10;
            s.decided(t, decided);
            in -= decided;
        }
    }
}
