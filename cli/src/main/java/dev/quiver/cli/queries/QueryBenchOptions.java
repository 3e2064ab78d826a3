package dev.quiver.cli.queries;

import static java.util.Objects.requireNonNull;

import dev.quiver.Quiver;
import java.io.PrintStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * How {@link QueryBench} runs.
 *
 * @param rows       rows of each generated table
 * @param batchRows  rows per batch (the last batch may be shorter)
 * @param warmup     untimed passes per engine and query before timing, at least
 * @param warmupMs   keep warming up until this much time has passed (per engine and query)
 * @param iterations timed passes per engine and query, taken round-robin across the engines
 * @param seed       the data's seed
 * @param queries    the names of the queries to run, or null for all of {@link QuerySuite}
 * @param quiver     a new builder for each Quiver the engines use (the functions to register,
 *                   the transfer mode); the suite sets threads, OpenCL and the allocator
 * @param progress   where progress and errors go
 */
public record QueryBenchOptions(
        long rows,
        int batchRows,
        int warmup,
        int warmupMs,
        int iterations,
        long seed,
        List<String> queries,
        Supplier<Quiver.Builder> quiver,
        PrintStream progress) {

    public QueryBenchOptions {
        if (rows < 1 || batchRows < 1 || warmup < 0 || warmupMs < 0 || iterations < 1) {
            throw new IllegalArgumentException("rows, batchRows and iterations must be at least 1, warmup at least 0");
        }
        queries = queries == null ? null : List.copyOf(queries);
        requireNonNull(quiver, "quiver is null");
        requireNonNull(progress, "progress is null");
    }
}
