package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a fuzz run saw: every outcome counted under a label (a result, a documented exception by
 * its kind, an exception Arrow's reader raised by its class), and every failure under its
 * category with the first {@link #REPORTS_PER_CATEGORY} reports (seed, case, what happened) kept
 * in full. {@link #summary} prints both.
 */
final class FuzzTally {
    static final int REPORTS_PER_CATEGORY = 3;

    /** One outcome of a case: its label when it is accepted, or its failure category and a report. */
    record Observation(String label, String failure, String report) {
        static Observation ok(String label) {
            return new Observation(label, null, null);
        }

        static Observation failed(String category, String report) {
            return new Observation(null, category, report);
        }
    }

    /** Counts {@code o} under its label, or records its failure with {@code what} (the case) before its report. */
    void add(Observation o, String what) {
        if (o.failure() != null) {
            fail(o.failure(), what + "\n" + o.report());
        } else {
            count(o.label());
        }
    }

    /** An exception and its first frames (and its cause), for a report. */
    static String stack(Throwable e) {
        StringBuilder sb = new StringBuilder(e.toString());
        StackTraceElement[] frames = e.getStackTrace();
        for (int i = 0; i < Math.min(12, frames.length); i++) {
            sb.append("\n      at ").append(frames[i]);
        }
        if (e.getCause() != null && e.getCause() != e) {
            sb.append("\n    caused by ").append(e.getCause());
        }
        return sb.toString();
    }

    private final Map<String, Long> outcomes = new TreeMap<>();
    private final Map<String, Long> failures = new TreeMap<>();
    private final Map<String, List<String>> reports = new TreeMap<>();
    long cases;
    long hangs;
    long leaks;

    void count(String outcome) {
        outcomes.merge(outcome, 1L, Long::sum);
    }

    /** A failure of {@code category}, described by {@code report}. */
    void fail(String category, String report) {
        failures.merge(category, 1L, Long::sum);
        List<String> kept = reports.computeIfAbsent(category, k -> new ArrayList<>());
        if (kept.size() < REPORTS_PER_CATEGORY) {
            kept.add(report);
        }
    }

    boolean failed() {
        return !failures.isEmpty();
    }

    long failureCount() {
        return failures.values().stream().mapToLong(Long::longValue).sum();
    }

    long count(String outcome, long otherwise) {
        return outcomes.getOrDefault(outcome, otherwise);
    }

    /** The counts, then the kept reports of each failure category. */
    String summary(String name, long seed, double seconds) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                "%s: %d cases, %d failures (%d hangs, %d leaks), %.1f s (seed %d)%n",
                name, cases, failureCount(), hangs, leaks, seconds, seed));
        outcomes.forEach((k, v) -> sb.append(String.format("  %9d  %s%n", v, k)));
        failures.forEach((k, v) -> sb.append(String.format("  %9d  FAILURE %s%n", v, k)));
        reports.forEach((k, list) -> {
            for (String r : list) {
                sb.append("FAILURE ").append(k).append(":\n").append(r.indent(2));
            }
        });
        return sb.toString();
    }
}
