package dev.quiver.cli.queries;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Geometric means over the suite, per engine: of its speedup over each baseline (the baseline's
 * median over the engine's, query by query, over the queries where both have a figure) and of its
 * medians (over the queries where every engine has one).
 *
 * @param engines   the engines, in order
 * @param baselines the baselines, in order ({@code java-loop}, {@code duckdb-1t})
 * @param speedups  per engine, per baseline, the geometric mean (null where no query has both)
 * @param queries   per engine, per baseline, how many queries the mean is over
 * @param medianMs  per engine, the geometric mean of its medians over the queries every engine ran
 * @param common    how many queries every engine ran
 */
public record SuiteSummary(
        List<String> engines,
        List<String> baselines,
        Map<String, Map<String, Double>> speedups,
        Map<String, Map<String, Integer>> queries,
        Map<String, Double> medianMs,
        int common) {

    public static final List<String> BASELINES = List.of(JavaLoopEngine.NAME, DuckDbEngine.NAME);

    public static SuiteSummary of(List<String> engines, List<QueryTiming> timings) {
        Map<String, Map<String, Double>> speedups = new LinkedHashMap<>();
        Map<String, Map<String, Integer>> counts = new LinkedHashMap<>();
        for (String e : engines) {
            Map<String, Double> s = new LinkedHashMap<>();
            Map<String, Integer> n = new LinkedHashMap<>();
            for (String b : BASELINES) {
                List<Double> values = new ArrayList<>();
                for (QueryTiming t : timings) {
                    Double v = t.speedup(e, b);
                    if (v != null) {
                        values.add(v);
                    }
                }
                s.put(b, geometricMean(values));
                n.put(b, values.size());
            }
            speedups.put(e, s);
            counts.put(e, n);
        }
        List<QueryTiming> complete = timings.stream()
                .filter(t -> t.medianMs().keySet().containsAll(engines))
                .toList();
        Map<String, Double> ms = new LinkedHashMap<>();
        for (String e : engines) {
            ms.put(
                    e,
                    geometricMean(
                            complete.stream().map(t -> t.medianMs().get(e)).toList()));
        }
        return new SuiteSummary(engines, BASELINES, speedups, counts, ms, complete.size());
    }

    /** The geometric mean, or null of nothing. */
    static Double geometricMean(List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        double logs = 0;
        for (double v : values) {
            logs += Math.log(v);
        }
        return Math.exp(logs / values.size());
    }
}
