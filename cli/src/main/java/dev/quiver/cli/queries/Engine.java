package dev.quiver.cli.queries;

/**
 * One way of running the suite's queries over a {@link BenchTable}'s batches: Quiver under a
 * placement, the hand-written loops, or DuckDB. Closing it frees what it holds (not the results
 * it handed out, which {@link PreparedQuery#run} frees itself).
 */
public interface Engine extends AutoCloseable {
    /** The engine's name in the table and the JSON, e.g. {@code quiver-cpu-1t}. */
    String name();

    /** What it runs and how, in one line, for the header. */
    String description();

    /** {@code query} planned once for {@code table}, to run as many times as needed. */
    PreparedQuery prepare(BenchQuery query, BenchTable table);

    @Override
    void close();
}
