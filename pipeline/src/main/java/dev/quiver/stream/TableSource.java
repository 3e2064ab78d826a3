package dev.quiver.stream;

import java.util.concurrent.Executor;

/** Opens a table a scalar subquery reads: a new stream of its batches per query. */
@FunctionalInterface
public interface TableSource {
    /** A new stream of the table's batches; work that produces them may run on {@code executor}. */
    BatchStream open(Executor executor);
}
