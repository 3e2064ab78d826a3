package dev.quiver.stream;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.backend.ResidencyScope;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** One new column per expression, for every row of each input batch. */
final class ProjectOperator extends Operator {
    private final BatchStream input;
    private final List<CompiledExpression> columns;
    private final Placement placement;
    private final BufferAllocator allocator;

    ProjectOperator(
            BatchStream input,
            List<CompiledExpression> columns,
            Schema schema,
            Placement placement,
            BufferAllocator allocator,
            Executor executor,
            OperatorMetrics metrics) {
        super(schema, executor, metrics);
        this.input = input;
        this.columns = List.copyOf(columns);
        this.placement = placement;
        this.allocator = allocator;
    }

    @Override
    protected CompletableFuture<VectorSchemaRoot> produce() {
        return input.next()
                .thenApplyAsync(
                        batch -> {
                            if (batch == null) {
                                return null;
                            }
                            try (batch) {
                                ensureOpen();
                                long t0 = System.nanoTime();
                                metrics.rowsIn(batch.getRowCount());
                                List<FieldVector> out = new ArrayList<>(columns.size());
                                // One residency scope per batch: a column several expressions read goes to a copying
                                // device once.
                                try (ResidencyScope scope = new ResidencyScope()) {
                                    cancellation.run(() -> {
                                        for (CompiledExpression c : columns) {
                                            out.add(c.evaluate(batch, placement, allocator, scope));
                                        }
                                    });
                                    VectorSchemaRoot r = new VectorSchemaRoot(out);
                                    r.setRowCount(batch.getRowCount());
                                    metrics.cpu(System.nanoTime() - t0);
                                    return r;
                                } catch (RuntimeException | Error e) {
                                    out.forEach(FieldVector::close);
                                    throw e;
                                }
                            }
                        },
                        executor);
    }

    @Override
    protected void release() {
        closeQuietly(input);
    }
}
