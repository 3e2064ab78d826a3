package dev.quiver.physical;

import java.util.ArrayList;
import java.util.List;

/**
 * What the terms of one AND/OR chain have cost and decided, measured on sampled batches and
 * kept as exponentially decayed sums (each new sample weighs as much as about the last
 * {@code 1 / (1 - DECAY)} together), so the figures follow data whose character drifts.
 * Thread-safe: batches evaluated at once record here one at a time.
 */
public final class ConjunctStats {
    /** The weight the older samples keep at each new one. */
    static final double DECAY = 0.75;

    private final double[] nanos;
    private final double[] rowsEvaluated;
    private final double[] rowsIn;
    private final double[] rowsDecided;
    private final long[] samples;

    /** One term's figures: nanoseconds per row it was evaluated on, and the share of the rows it saw that it decided. */
    public record Term(double nanosPerRow, double decidedFraction, long samples) {
        /** The share of the rows it saw that it left undecided: the term's selectivity. */
        public double passFraction() {
            return 1 - decidedFraction;
        }
    }

    public ConjunctStats(int terms) {
        if (terms < 1) {
            throw new IllegalArgumentException("a chain has terms, not " + terms);
        }
        nanos = new double[terms];
        rowsEvaluated = new double[terms];
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
                add(t, s.nanos[t], s.rowsEvaluated[t], s.rowsIn[t], s.rowsDecided[t]);
            }
        }
    }

    /** Adds one measurement of term {@code t} (for tests, and for {@link #record}). */
    synchronized void add(int t, double nanos, double rowsEvaluated, double rowsIn, double rowsDecided) {
        double keep = samples[t] == 0 ? 0 : DECAY;
        this.nanos[t] = this.nanos[t] * keep + nanos;
        this.rowsEvaluated[t] = this.rowsEvaluated[t] * keep + rowsEvaluated;
        this.rowsIn[t] = this.rowsIn[t] * keep + rowsIn;
        this.rowsDecided[t] = this.rowsDecided[t] * keep + Math.min(rowsDecided, rowsIn);
        samples[t]++;
    }

    /** Every term's figures now, in written order; a term never measured has zero samples (and NaN figures). */
    public synchronized List<Term> snapshot() {
        List<Term> out = new ArrayList<>(samples.length);
        for (int t = 0; t < samples.length; t++) {
            out.add(samples[t] == 0
                    ? new Term(Double.NaN, Double.NaN, 0)
                    : new Term(
                            nanos[t] / rowsEvaluated[t],
                            rowsIn[t] > 0 ? rowsDecided[t] / rowsIn[t] : 0,
                            samples[t]));
        }
        return out;
    }
}
