package dev.quiver.physical;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The order an adaptive AND/OR chain ({@link ConjunctionExpr}) evaluates its terms in, batch by
 * batch. Terms are ranked by nanoseconds per row over the share of the rows they decide (the
 * classic rank for ordering filters: the cheapest per row decided goes first), from the figures
 * {@link ConjunctStats} keeps, within what each term's {@link Mobility} allows.
 *
 * <p>The schedule: the first {@link #WARMUP} batches run in written order and are all measured;
 * the order is re-ranked after the 2nd, 4th and 8th of them; after that one batch in
 * {@link #SAMPLE_EVERY} is measured and the order re-ranked every {@link #RERANK_EVERY} samples.
 * Every {@link #EXPLORE_EVERY}th sample after warm-up moves one term (round robin, one whose move
 * changes the order) as early as it may go, so a term the others keep from running, or from
 * running on the whole batch, is measured again (and estimates gone stale are).
 * Thread-safe: batches evaluated at once read the current order; recording is serialized.
 */
public final class ConjunctOrder {
    static final int WARMUP = 8;
    static final int SAMPLE_EVERY = 8;
    static final int RERANK_EVERY = 4;
    static final int EXPLORE_EVERY = 16;
    /** A term that decides less than this share of its rows ranks as if it decided this much (cheapest first among them). */
    static final double MIN_DECIDED = 1e-6;

    /** How far a term may move from its written place. */
    public enum Mobility {
        /** Side-effect free and cannot raise: anywhere (but not across a {@link #FIXED} term). */
        FREE,
        /** Can raise: after every term written before it (it may move later, never earlier). */
        NOT_EARLIER,
        /** Volatile or with side effects: its written place, nothing crosses it. */
        FIXED
    }

    /** One batch's plan: the order to evaluate in and, when it is measured, where to write the figures. */
    public record Batch(int[] order, ConjunctSample sample, boolean explored) {}

    private final List<Mobility> mobility;
    private final ConjunctStats stats;
    private final AtomicLong batches = new AtomicLong();
    private volatile int[] current;
    private long samples;
    private long reRanks;
    private long explorations;
    private int exploreNext;

    public ConjunctOrder(List<Mobility> mobility) {
        this.mobility = List.copyOf(Objects.requireNonNull(mobility, "mobility is null"));
        this.stats = new ConjunctStats(this.mobility.size());
        this.current = written(this.mobility.size());
    }

    public ConjunctStats stats() {
        return stats;
    }

    public List<Mobility> mobility() {
        return mobility;
    }

    /** The order the next batch runs in (written-order positions), a copy. */
    public int[] current() {
        return current.clone();
    }

    /** The plan for the next batch. */
    public Batch next() {
        long b = batches.getAndIncrement();
        boolean warm = b < WARMUP;
        if (!warm && b % SAMPLE_EVERY != 0) {
            return new Batch(current, null, false);
        }
        int[] order = current;
        boolean explore = !warm && (b / SAMPLE_EVERY) % EXPLORE_EVERY == 0;
        if (explore) {
            synchronized (this) {
                // The next term (in turn) that moving ahead changes the order of.
                explore = false;
                for (int k = 0; k < mobility.size() && !explore; k++) {
                    int[] promoted = promote(exploreNext++ % mobility.size());
                    if (!Arrays.equals(promoted, order)) {
                        order = promoted;
                        explore = true;
                        explorations++;
                    }
                }
            }
        }
        return new Batch(order, new ConjunctSample(mobility.size()), explore);
    }

    /** Records a batch that ran to the end (a failed one says nothing about cost), re-ranking when due. */
    public void done(Batch batch) {
        if (batch.sample() == null) {
            return;
        }
        stats.record(batch.sample());
        synchronized (this) {
            samples++;
            boolean due = samples <= WARMUP ? Long.bitCount(samples) == 1 && samples > 1 : samples % RERANK_EVERY == 0;
            if (due) {
                current = order(ranks(stats.snapshot()), mobility);
                reRanks++;
            }
        }
    }

    /** The order with {@code term} as early as its mobility allows, the rest by rank. */
    private int[] promote(int term) {
        double[] r = ranks(stats.snapshot());
        r[term] = Double.NEGATIVE_INFINITY;
        return order(r, mobility);
    }

    /** Each term's rank from its figures: nanoseconds per row over the share decided; +infinity when never measured. */
    static double[] ranks(List<ConjunctStats.Term> terms) {
        double[] r = new double[terms.size()];
        for (int t = 0; t < r.length; t++) {
            r[t] = rank(terms.get(t));
        }
        return r;
    }

    /** A term's rank: nanoseconds per row over the share of rows decided (lower runs earlier); +infinity when never measured. */
    public static double rank(ConjunctStats.Term t) {
        if (t.samples() == 0) {
            return Double.POSITIVE_INFINITY;
        }
        return t.nanosPerRow() / Math.max(t.decidedFraction(), MIN_DECIDED);
    }

    /**
     * The order that puts the lowest rank first among the terms that may run next (ties in written
     * order): a {@link Mobility#NOT_EARLIER} or {@link Mobility#FIXED} term only once every term
     * written before it has run, any term only once every FIXED term written before it has.
     */
    static int[] order(double[] ranks, List<Mobility> mobility) {
        int n = ranks.length;
        boolean[] placed = new boolean[n];
        int[] out = new int[n];
        int prefix = 0; // every term before this one is placed
        for (int k = 0; k < n; k++) {
            int best = -1;
            for (int t = prefix; t < n; t++) {
                if (placed[t]) {
                    continue;
                }
                boolean ready = t == prefix || mobility.get(t) == Mobility.FREE;
                if (ready && (best < 0 || ranks[t] < ranks[best])) {
                    best = t;
                }
                if (mobility.get(t) == Mobility.FIXED) {
                    break; // nothing after a fixed term runs before it
                }
            }
            placed[best] = true;
            out[k] = best;
            while (prefix < n && placed[prefix]) {
                prefix++;
            }
        }
        return out;
    }

    private static int[] written(int n) {
        int[] o = new int[n];
        Arrays.setAll(o, i -> i);
        return o;
    }

    /** Batches planned so far. */
    public long batches() {
        return batches.get();
    }

    /** Batches measured, re-rankings and explorations so far, as one line. */
    public synchronized String schedule() {
        return samples + " of " + batches.get() + " batches measured, re-ranked " + reRanks + " times, " + explorations
                + " explored";
    }
}
