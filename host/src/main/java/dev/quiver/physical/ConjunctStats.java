package dev.quiver.physical;

import java.util.ArrayList;
import java.util.List;

/**
 * What the terms of one AND/OR chain have cost and decided, measured on sampled batches. The
 * share of rows decided is an exponentially decayed mean (a new sample weighs as much as about
 * the last {@code 1 / (1 - DECAY)} together, by rows), so it follows data whose character drifts;
 * the cost per row is a mean that trusts faster samples more ({@link Cost}).
 *
 * <p>Cost is kept apart for the two ways a term runs: on the whole batch, and on the undecided
 * rows gathered first (which costs more per row: the gather and the scatter back). The whole-batch
 * figure is the term's own cost wherever it stands, so it is the one ranked by when known.
 * Thread-safe: batches evaluated at once record here one at a time.
 */
public final class ConjunctStats {
    /** The weight the older samples of the decided share keep at each new one. */
    static final double DECAY = 0.75;
    /** How far a cost estimate moves toward a lower sample, and toward a higher one. */
    static final double DOWN = 0.5, UP = 0.15;

    private final Cost[] whole;
    private final Cost[] selected;
    private final double[] rowsIn;
    private final double[] rowsDecided;
    private final long[] samples;

    /**
     * One term's figures.
     *
     * @param nanosPerRow         what it costs per row it runs on: on the whole batch where that was
     *                            measured, else on gathered rows; NaN when never measured
     * @param selectedNanosPerRow per row when it ran on gathered rows; NaN when it never did
     * @param decidedFraction     the share of the rows it saw that it decided (FALSE for AND, TRUE for OR)
     * @param samples             the batches it was measured on
     */
    public record Term(double nanosPerRow, double selectedNanosPerRow, double decidedFraction, long samples) {
        /** The share of the rows it saw that it left undecided: the term's selectivity. */
        public double passFraction() {
            return 1 - decidedFraction;
        }
    }

    /**
     * Nanoseconds per row, as a mean that follows a lower sample at once (half way) and a higher
     * one slowly ({@link #UP}): what slows a batch down beyond the term's own work (another thread
     * on the core, code not yet compiled by the JIT, as on the first batches and on a path only
     * exploration takes) only ever adds time, so an estimate that trusts fast samples more finds
     * the term's cost sooner, while a lasting change of the data still moves it up.
     */
    private static final class Cost {
        double perRow = Double.NaN;
        long samples;

        void add(double nanos, double rows) {
            double x = nanos / rows;
            perRow = samples == 0 ? x : perRow + (x < perRow ? DOWN : UP) * (x - perRow);
            samples++;
        }
    }

    public ConjunctStats(int terms) {
        if (terms < 1) {
            throw new IllegalArgumentException("a chain has terms, not " + terms);
        }
        whole = new Cost[terms];
        selected = new Cost[terms];
        for (int t = 0; t < terms; t++) {
            whole[t] = new Cost();
            selected[t] = new Cost();
        }
        rowsIn = new double[terms];
        rowsDecided = new double[terms];
        samples = new long[terms];
    }

    public int terms() {
        return samples.length;
    }

    /** Adds a batch's figures: only the terms that ran in it change. */
    synchronized void record(ConjunctSample s) {
        if (s.terms() != samples.length) {
            throw new IllegalArgumentException("a sample of " + s.terms() + " terms for " + samples.length);
        }
        for (int t = 0; t < samples.length; t++) {
            if (s.ran[t] && s.rowsEvaluated[t] > 0) {
                add(t, s.whole[t], s.nanos[t], s.rowsEvaluated[t], s.rowsIn[t], s.rowsDecided[t]);
            }
        }
    }

    /** Adds one measurement of term {@code t} (for tests, and for {@link #record}). */
    synchronized void add(
            int t, boolean onWholeBatch, double nanos, double rowsEvaluated, double rowsIn, double decided) {
        if (rowsEvaluated > 0) {
            (onWholeBatch ? whole[t] : selected[t]).add(nanos, rowsEvaluated);
        }
        double keep = samples[t] == 0 ? 0 : DECAY;
        this.rowsIn[t] = this.rowsIn[t] * keep + rowsIn;
        this.rowsDecided[t] = this.rowsDecided[t] * keep + Math.min(decided, rowsIn);
        samples[t]++;
    }

    /** Every term's figures now, in written order; a term never measured has zero samples (and NaN figures). */
    public synchronized List<Term> snapshot() {
        List<Term> out = new ArrayList<>(samples.length);
        for (int t = 0; t < samples.length; t++) {
            if (samples[t] == 0) {
                out.add(new Term(Double.NaN, Double.NaN, Double.NaN, 0));
                continue;
            }
            double w = whole[t].perRow;
            double s = selected[t].perRow;
            out.add(new Term(Double.isNaN(w) ? s : w, s, rowsIn[t] > 0 ? rowsDecided[t] / rowsIn[t] : 0, samples[t]));
        }
        return out;
    }
}
