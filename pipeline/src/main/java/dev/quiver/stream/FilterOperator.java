package dev.quiver.stream;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

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

    FilterOperator(
            BatchStream input,
            CompiledExpression predicate,
            int keep,
            Schema schema,
            Placement placement,
            BufferAllocator allocator,
            Executor executor,
            OperatorMetrics metrics) {
        super(schema, executor, metrics);
        this.input = input;
        this.predicate = predicate;
        this.keep = keep;
        this.placement = placement;
        this.allocator = allocator;
    }

    @Override
    protected CompletableFuture<VectorSchemaRoot> produce() {
        CompletableFuture<VectorSchemaRoot> result = new CompletableFuture<>();
        pull(result);
        return result;
    }

    /**
     * Asks for input until a batch keeps a row. Each empty batch starts a fresh task on a worker
     * rather than chaining a future to the last, so a long run of batches with no row left costs
     * no memory and no stack.
     */
    private void pull(CompletableFuture<VectorSchemaRoot> result) {
        CompletableFuture<VectorSchemaRoot> next;
        try {
            next = input.next();
        } catch (RuntimeException | Error e) {
            result.completeExceptionally(e);
            return;
        }
        next.whenCompleteAsync(
                (batch, failure) -> {
                    if (failure != null) {
                        result.completeExceptionally(unwrap(failure));
                        return;
                    }
                    if (batch == null) {
                        result.complete(null);
                        return;
                    }
                    VectorSchemaRoot kept;
                    try (batch) {
                        ensureOpen();
                        long t0 = System.nanoTime();
                        metrics.rowsIn(batch.getRowCount());
                        kept = cancellation.call(() -> predicate.filter(batch, placement, allocator));
                        if (keep < kept.getFieldVectors().size()) {
                            int[] cols = new int[keep];
                            for (int i = 0; i < keep; i++) {
                                cols[i] = i;
                            }
                            try {
                                kept = Batches.select(kept, cols);
                            } catch (RuntimeException | Error e) {
                                kept.close(); // select leaves its input to the caller when it fails
                                throw e;
                            }
                        }
                        metrics.cpu(System.nanoTime() - t0);
                    } catch (RuntimeException | Error e) {
                        result.completeExceptionally(e);
                        return;
                    }
                    if (kept.getRowCount() == 0) {
                        kept.close();
                        pull(result); // nothing survived: ask for more
                    } else if (!result.complete(kept)) {
                        kept.close();
                    }
                },
                executor);
    }

    @Override
    protected void release() {
        closeQuietly(input);
    }
}
