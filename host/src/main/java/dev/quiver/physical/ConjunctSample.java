package dev.quiver.physical;

/**
 * One batch's measurements of the terms of an AND/OR chain, written as the chain is evaluated
 * (by one thread) and then recorded in {@link ConjunctStats}: per term, the time it took, the
 * undecided rows it saw, the rows it was evaluated on (the whole batch, or the undecided rows
 * only) and how many of the rows it saw it decided (FALSE for AND, TRUE for OR). A term the
 * chain did not reach has no figures.
 */
final class ConjunctSample {
    final long[] nanos;
    final long[] rowsIn;
    final long[] rowsEvaluated;
    final long[] rowsDecided;
    final boolean[] ran;
    /** Whether the term ran on every row of the batch (else on a gathered selection of it). */
    final boolean[] whole;

    ConjunctSample(int terms) {
        whole = new boolean[terms];
        nanos = new long[terms];
        rowsIn = new long[terms];
        rowsEvaluated = new long[terms];
        rowsDecided = new long[terms];
        ran = new boolean[terms];
    }

    /**
     * Term {@code term} ran: it saw {@code in} undecided rows and was evaluated on {@code evaluated}
     * rows, the whole batch or not ({@code whole}).
     */
    void ran(int term, int in, int evaluated, boolean whole, long nanos) {
        this.ran[term] = true;
        this.whole[term] = whole;
        this.rowsIn[term] = in;
        this.rowsEvaluated[term] = evaluated;
        this.nanos[term] = Math.max(0, nanos);
    }

    /** Of the rows term {@code term} saw, it decided {@code decided}. */
    void decided(int term, int decided) {
        this.rowsDecided[term] = Math.max(0, decided);
    }

    int terms() {
        return ran.length;
    }
}
