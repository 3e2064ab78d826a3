package dev.quiver.stream;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/** The first {@code limit} rows; once they have passed, the input is closed (cancelling what runs below). */
final class LimitOperator extends Operator {
    private final BatchStream input;
    private final BufferAllocator allocator;
    private long remaining;

    LimitOperator(
            BatchStream input, long limit, BufferAllocator allocator, Executor executor, OperatorMetrics metrics) {
        super(input.schema(), executor, metrics);
        this.input = input;
        this.remaining = limit;
        this.allocator = allocator;
    }

    @Override
    protected CompletableFuture<VectorSchemaRoot> produce() {
        if (remaining <= 0) {
            closeQuietly(input);
            return CompletableFuture.completedFuture(null);
        }
        return input.next().thenApply(batch -> {
            if (batch == null) {
                return null;
            }
            metrics.rowsIn(batch.getRowCount());
            if (batch.getRowCount() <= remaining) {
                remaining -= batch.getRowCount();
                if (remaining == 0) {
                    closeQuietly(input);
                }
                return batch;
            }
            try (batch) {
                VectorSchemaRoot head = Batches.slice(batch, 0, (int) remaining, allocator);
                remaining = 0;
                closeQuietly(input);
                return head;
            }
        });
    }

    @Override
    protected void release() {
        closeQuietly(input);
    }
}
