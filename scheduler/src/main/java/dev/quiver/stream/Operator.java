package dev.quiver.stream;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The common part of the operators: one outstanding {@link #next()}, closing that cancels it,
 * and the hand-over of a batch that leaks nothing when the consumer has gone.
 */
abstract class Operator implements BatchStream {
    protected final Schema schema;
    protected final Executor executor;
    protected final OperatorMetrics metrics;
    protected volatile boolean closed;
    private final AtomicReference<CompletableFuture<VectorSchemaRoot>> pending = new AtomicReference<>();

    Operator(Schema schema, Executor executor, OperatorMetrics metrics) {
        this.schema = schema;
        this.executor = executor;
        this.metrics = metrics;
    }

    @Override
    public final Schema schema() {
        return schema;
    }

    @Override
    public final CompletableFuture<VectorSchemaRoot> next() {
        if (closed) {
            return CompletableFuture.failedFuture(new CancellationException("the stream is closed"));
        }
        CompletableFuture<VectorSchemaRoot> result = new CompletableFuture<>();
        if (!pending.compareAndSet(null, result)) {
            return CompletableFuture.failedFuture(new IllegalStateException("next() called again before the previous batch arrived"));
        }
        CompletableFuture<VectorSchemaRoot> inner;
        try {
            inner = produce();
        } catch (RuntimeException | Error e) {
            inner = CompletableFuture.failedFuture(e);
        }
        inner.whenComplete((batch, failure) -> {
            pending.compareAndSet(result, null);
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
            } else {
                if (batch != null) {
                    metrics.batchOut(batch.getRowCount());
                }
                if (!result.complete(batch) && batch != null) {
                    batch.close(); // the consumer closed the stream meanwhile
                }
            }
        });
        return result;
    }

    /** The next batch or null at the end; called only while no other call is outstanding. */
    protected abstract CompletableFuture<VectorSchemaRoot> produce();

    /** Frees what this operator holds and closes its input. */
    protected abstract void release();

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        CompletableFuture<VectorSchemaRoot> p = pending.getAndSet(null);
        if (p != null) {
            p.completeExceptionally(new CancellationException("the stream was closed"));
        }
        release();
    }

    /** Throws when the stream was closed: the batch in hand is then closed by the caller's stage. */
    protected final void ensureOpen() {
        if (closed) {
            throw new CancellationException("the stream was closed");
        }
    }

    static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
