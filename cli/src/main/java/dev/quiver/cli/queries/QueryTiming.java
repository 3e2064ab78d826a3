package dev.quiver.cli.queries;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One query's figures: the rows in and out, and each engine's median ms per pass over all
 * batches (an engine whose result disagreed, or that failed, has none).
 *
 * @param query    the query
 * @param rowsIn   the table's rows
 * @param rowsOut  the rows of the result
 * @param medianMs by engine name, in the engines' order
 */
public record QueryTiming(BenchQuery query, long rowsIn, long rowsOut, Map<String, Double> medianMs) {
    public QueryTiming {
        requireNonNull(query, "query is null");
        medianMs = Collections.unmodifiableMap(new LinkedHashMap<>(medianMs));
    }

    /** {@code baseline}'s median over {@code engine}'s: above 1 where the engine is faster; null where either has none. */
    public Double speedup(String engine, String baseline) {
        Double e = medianMs.get(engine), b = medianMs.get(baseline);
        return e == null || b == null ? null : b / e;
    }
}
