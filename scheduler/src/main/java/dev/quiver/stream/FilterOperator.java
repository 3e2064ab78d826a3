package dev.quiver.stream;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The rows where the predicate is TRUE, optionally keeping only the first {@code keep} columns
 * (an async operator below appended the others). Batches with no row left are not passed on.
 */
final class FilterOperator extends Operator {
    private final BatchStream input;
    private final CompiledExpression predicate;
    private final int keep;
    private final Placement placement;
    private final BufferAllocator allocator;

    FilterOperator(BatchStream input, CompiledExpression predicate, int keep, Schema schema, Placement placement,
                   BufferAllocator allocator, Executor executor, OperatorMetrics metrics) {
        super(schema, executor, metrics);
        this.input = input;
        this.predicate = predicate;
        this.keep = keep;
        this.placement = placement;
        this.allocator = allocator;
    }

    @Override
    protected CompletableFuture<VectorSchemaRoot> produce() {
        return input.next().thenComposeAsync(batch -> {
            if (batch == null) {
                return CompletableFuture.completedFuture(null);
            }
            VectorSchemaRoot kept;
            try (batch) {
                ensureOpen();
                long t0 = System.nanoTime();
                metrics.rowsIn(batch.getRowCount());
                kept = predicate.filter(batch, placement, allocator);
                if (keep < kept.getFieldVectors().size()) {
                    int[] cols = new int[keep];
                    for (int i = 0; i < keep; i++) {
                        cols[i] = i;
                    }
                    kept = Batches.select(kept, cols);
                }
                metrics.cpu(System.nanoTime() - t0);
            }
            if (kept.getRowCount() == 0) {
                kept.close();
                return produce(); // nothing survived: ask for more (a new stage, so no deep stack)
            }
            return CompletableFuture.completedFuture(kept);
        }, executor);
    }

    @Override
    protected void release() {
        input.close();
    }
}
