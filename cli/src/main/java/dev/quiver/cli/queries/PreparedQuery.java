package dev.quiver.cli.queries;

import java.util.function.Consumer;
import org.apache.arrow.vector.VectorSchemaRoot;

/** A query an {@link Engine} has planned for one table. */
@FunctionalInterface
public interface PreparedQuery {
    /**
     * Runs the query once over every batch of the table, materialising its result as Arrow
     * batches: each is passed to {@code sink}, then freed (a sink that keeps one transfers its
     * buffers). Returns the rows of all result batches.
     */
    long run(Consumer<VectorSchemaRoot> sink);
}
