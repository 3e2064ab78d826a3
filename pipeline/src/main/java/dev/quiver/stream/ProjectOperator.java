package dev.quiver.stream;

import dev.quiver.CompiledProjection;
import dev.quiver.Placement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One new column per expression ({@link CompiledProjection#project}), for every row of each input
 * batch, or, with the filter below fused in, for the rows it keeps: the filter's selection goes
 * straight to the projection, which compacts only the columns it reads, and batches with no row
 * left are not passed on. A column projected as it is shares the input's buffers. Under a limit
 * ({@code fetch} rows in all), the rows past it are neither compacted nor computed.
 */
final class ProjectOperator extends Operator {
    private final BatchStream input;
    private final CompiledProjection projection;
    private final long fetch;
    /** Whether a filter is fused in; its metrics (null when they are not kept apart). */
    private final boolean filtered;

    private final OperatorMetrics filterMetrics;

    private final Placement placement;
    private final BufferAllocator allocator;
    /** Rows still wanted under {@code fetch}; one call at a time reads and writes it. */
    private long remaining;

    ProjectOperator(
            BatchStream input,
            CompiledProjection projection,
            long fetch,
            OperatorMetrics filterMetrics,
            Schema schema,
            Placement placement,
            BufferAllocator allocator,
            Executor executor,
            OperatorMetrics metrics) {
        super(schema, executor, metrics);
        this.input = input;
        this.projection = projection;
        this.fetch = fetch;
        this.remaining = fetch;
        this.filtered = projection.filter().isPresent();
        this.filterMetrics = filterMetrics;
        this.placement = placement;
        this.allocator = allocator;
    }

    @Override
    protected CompletableFuture<VectorSchemaRoot> produce() {
        if (fetch >= 0 && remaining <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<VectorSchemaRoot> result = new CompletableFuture<>();
        pull(result);
        return result;
    }

    /**
     * Asks for input until a batch keeps a row (every batch does without a filter). Each empty
     * batch starts a fresh task on a worker rather than chaining a future to the last, so a long
     * run of batches with no row left costs no memory and no stack.
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
                    VectorSchemaRoot out;
                    try (batch) {
                        ensureOpen();
                        long t0 = System.nanoTime();
                        int limit = fetch < 0 ? Integer.MAX_VALUE : (int) Math.min(remaining, Integer.MAX_VALUE);
                        out = cancellation.call(() -> projection.project(batch, limit, placement, allocator));
                        if (filtered && filterMetrics != null) {
                            filterMetrics.rowsIn(batch.getRowCount());
                            if (out.getRowCount() > 0) {
                                filterMetrics.batchOut(out.getRowCount());
                            }
                            metrics.rowsIn(out.getRowCount());
                        } else {
                            metrics.rowsIn(batch.getRowCount());
                        }
                        metrics.cpu(System.nanoTime() - t0);
                    } catch (RuntimeException | Error e) {
                        result.completeExceptionally(e);
                        return;
                    }
                    if (fetch >= 0) {
                        remaining -= out.getRowCount();
                    }
                    if (filtered && out.getRowCount() == 0) {
                        out.close();
                        pull(result); // nothing survived: ask for more
                    } else if (!result.complete(out)) {
                        out.close();
                    }
                },
                executor);
    }

    @Override
    protected void release() {
        closeQuietly(input);
    }
}
