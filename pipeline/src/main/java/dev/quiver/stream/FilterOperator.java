package dev.quiver.stream;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.cancel.Cancellation;
import dev.quiver.kernels.Selection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows where the predicate is TRUE, optionally keeping only the first {@code keep} columns
 * (an async operator below appended the others), and at most {@code fetch} rows in all when not
 * negative (a limit above). Batches with no row left are not passed on; a batch that keeps every
 * row is passed on as it is (its dropped columns freed), and otherwise each kept column's rows are
 * copied once (sliced, sharing the buffers, when they are consecutive). The columns were checked
 * where the pipeline's source handed them over ({@link ValidatedStream}).
 */
final class FilterOperator extends Operator {
    private final BatchStream input;
    private final CompiledExpression predicate;
    private final int keep;
    private final long fetch;
    private final Placement placement;
    private final BufferAllocator allocator;
    /** Rows still wanted under {@code fetch}; one call at a time reads and writes it. */
    private long remaining;

    FilterOperator(
            BatchStream input,
            CompiledExpression predicate,
            int keep,
            long fetch,
            Schema schema,
            Placement placement,
            BufferAllocator allocator,
            Executor executor,
            OperatorMetrics metrics) {
        super(schema, executor, metrics);
        this.input = input;
        this.predicate = predicate;
        this.keep = keep;
        this.fetch = fetch;
        this.remaining = fetch;
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
                    try {
                        ensureOpen();
                        long t0 = System.nanoTime();
                        metrics.rowsIn(batch.getRowCount());
                        kept = cancellation.call(() -> keptRows(batch));
                        metrics.cpu(System.nanoTime() - t0);
                    } catch (RuntimeException | Error e) {
                        batch.close();
                        result.completeExceptionally(e);
                        return;
                    }
                    if (fetch >= 0) {
                        remaining -= kept.getRowCount();
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

    /** The kept rows and columns of {@code batch}, which this consumes (on failure too). */
    private VectorSchemaRoot keptRows(VectorSchemaRoot batch) {
        Selection rows;
        try {
            rows = predicate.select(batch, placement, allocator);
            if (fetch >= 0 && remaining < rows.count()) {
                rows = rows.first((int) remaining);
            }
        } catch (RuntimeException | Error e) {
            batch.close();
            throw e;
        }
        if (rows.isAll()) {
            if (keep == batch.getFieldVectors().size()) {
                return batch;
            }
            try {
                return Batches.select(batch, firstColumns());
            } catch (RuntimeException | Error e) {
                batch.close(); // select leaves its input to the caller when it fails
                throw e;
            }
        }
        try (batch) {
            List<FieldVector> out = new ArrayList<>(keep);
            try {
                for (int i = 0; i < keep; i++) {
                    Cancellation.check(); // a boundary per column filtered
                    out.add(Batches.filter(batch.getVector(i), rows, allocator));
                }
                VectorSchemaRoot result = new VectorSchemaRoot(out);
                result.setRowCount(rows.count());
                return result;
            } catch (RuntimeException | Error e) {
                out.forEach(FieldVector::close);
                throw e;
            }
        }
    }

    private int[] firstColumns() {
        int[] cols = new int[keep];
        for (int i = 0; i < keep; i++) {
            cols[i] = i;
        }
        return cols;
    }

    @Override
    protected void release() {
        closeQuietly(input);
    }
}
