package dev.quiver.kernels;

/**
 * SQL's three-valued AND and OR, 64 rows per word: a Boolean column is a validity word
 * ({@code v}: bit set where the row is not NULL) and a value word ({@code d}: bit set where it
 * is TRUE, only among valid rows). The one place the rules are written, for every kernel that
 * combines a term into a running AND/OR result.
 */
final class Kleene {
    private Kleene() {}

    /**
     * The validity of {@code t AND c} ({@code and}) or {@code t OR c}, {@code td} and {@code cd}
     * already masked to their validity: AND is known where both are, or where either is FALSE;
     * OR where both are, or where either is TRUE.
     */
    static long valid(boolean and, long tv, long td, long cv, long cd) {
        return and ? (tv & cv) | (tv & ~td) | (cv & ~cd) : (tv & cv) | td | cd;
    }

    /** The value of {@code t AND c} ({@code and}) or {@code t OR c} where {@code valid} (from {@link #valid}). */
    static long value(boolean and, long td, long cd, long valid) {
        return (and ? td & cd : td | cd) & valid;
    }

    /**
     * The rows a running AND ({@code and}) or OR result {@code (tv, td)} has not decided: not
     * known FALSE for AND, not known TRUE for OR ({@code td} masked to {@code tv}). Only these can
     * still change, so a term need not be computed on the others.
     */
    static long undecided(boolean and, long tv, long td) {
        return and ? ~(tv & ~td) : ~(tv & td);
    }
}
