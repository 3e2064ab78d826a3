package dev.quiver.cli.queries;

import static java.util.Objects.requireNonNull;

import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The hand-written per-row loops ({@link BenchQuery#rowLoop}): per batch, a result batch of the
 * query's output schema is allocated for as many rows as the batch has (Arrow's
 * {@code allocateNew}), the loop fills it, and its row count is set. One thread.
 */
final class JavaLoopEngine implements Engine {
    static final String NAME = "java-loop";

    private final BufferAllocator allocator;

    JavaLoopEngine(BufferAllocator allocator) {
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "a hand-written per-row Java loop over the Arrow vectors, writing Arrow vectors (1 thread)";
    }

    @Override
    public PreparedQuery prepare(BenchQuery query, BenchTable table) {
        return sink -> run(query, table, sink);
    }

    private long run(BenchQuery query, BenchTable table, Consumer<VectorSchemaRoot> sink) {
        long rows = 0;
        for (VectorSchemaRoot batch : table.batches()) {
            try (VectorSchemaRoot out = VectorSchemaRoot.create(query.output(), allocator)) {
                for (FieldVector v : out.getFieldVectors()) {
                    v.setInitialCapacity(batch.getRowCount());
                    v.allocateNew();
                }
                int kept = query.rowLoop().run(batch, table.dictionaries(), out);
                out.setRowCount(kept);
                rows += kept;
                sink.accept(out);
            }
        }
        return rows;
    }

    @Override
    public void close() {}
}
