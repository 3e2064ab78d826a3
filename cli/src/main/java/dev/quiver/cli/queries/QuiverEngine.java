package dev.quiver.cli.queries;

import static java.util.Objects.requireNonNull;

import dev.quiver.CompiledProjection;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Quiver as a user calls it: {@code quiver.compileProjection(schema, dictionaries, filter,
 * projections)} once per query, then {@code project(batch, placement, allocator)} per batch, each
 * result closed after the sink has seen it.
 */
final class QuiverEngine implements Engine {
    private final String name;
    private final String description;
    private final Quiver quiver;
    private final Placement placement;
    private final BufferAllocator allocator;

    /** An engine over {@code quiver}, which it closes. */
    QuiverEngine(String name, String description, Quiver quiver, Placement placement, BufferAllocator allocator) {
        this.name = requireNonNull(name, "name is null");
        this.description = requireNonNull(description, "description is null");
        this.quiver = requireNonNull(quiver, "quiver is null");
        this.placement = requireNonNull(placement, "placement is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public PreparedQuery prepare(BenchQuery query, BenchTable table) {
        CompiledProjection projection =
                quiver.compileProjection(table.schema(), table.dictionaries(), query.filter(), query.projections());
        return sink -> run(projection, table, sink);
    }

    private long run(CompiledProjection projection, BenchTable table, Consumer<VectorSchemaRoot> sink) {
        long rows = 0;
        for (VectorSchemaRoot batch : table.batches()) {
            try (VectorSchemaRoot result = projection.project(batch, placement, allocator)) {
                rows += result.getRowCount();
                sink.accept(result);
            }
        }
        return rows;
    }

    @Override
    public void close() {
        quiver.close();
    }
}
