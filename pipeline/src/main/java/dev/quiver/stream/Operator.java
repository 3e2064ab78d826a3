package dev.quiver.stream;

import dev.quiver.cancel.CancelHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The common part of the operators: one outstanding {@link #next()}, closing that cancels it,
 * and the hand-over of a batch that leaks nothing when the consumer has gone. Each operator
 * evaluates its expressions inside {@link #cancellation}'s {@link CancelHandle#call call}, and
 * closing cancels it first: a batch being evaluated when the stream is closed (the query
 * cancelled, a limit reached above) stops at its next kernel boundary and frees what it held.
 */
abstract class Operator implements BatchStream {
    protected final Schema schema;
    protected final Executor executor;
    protected final OperatorMetrics metrics;
    protected volatile boolean closed;
    /** Watches every evaluation of this operator; cancelled when it is closed. */
    protected final CancelHandle cancellation = new CancelHandle();
    /** The execution's count of work in flight, when this operator belongs to one. */
    private volatile Outstanding tracker;

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
            return CompletableFuture.failedFuture(
                    new IllegalStateException("next() called again before the previous batch arrived"));
        }
        Outstanding t = tracker;
        if (t != null) {
            t.increment(); // until the batch has been handed over or freed
        }
        CompletableFuture<VectorSchemaRoot> inner;
        try {
            inner = produce();
        } catch (RuntimeException | Error e) {
            inner = CompletableFuture.failedFuture(e);
        }
        inner.whenComplete((batch, failure) -> {
            try {
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
            } finally {
                if (t != null) {
                    t.decrement();
                }
            }
        });
        return result;
    }

    /** Counts this operator's work in flight into {@code outstanding} (an execution's). */
    void track(Outstanding outstanding) {
        this.tracker = outstanding;
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
        cancellation.cancel(); // first: a batch being evaluated stops, and gives up what release() may wait for
        CompletableFuture<VectorSchemaRoot> p = pending.getAndSet(null);
        if (p != null) {
            p.completeExceptionally(new CancellationException("the stream was closed"));
        }
        try {
            release();
        } catch (RuntimeException e) {
            // Closing is cleanup: its failure (say, a reader that cannot close its file) must not
            // replace the outcome the caller is dealing with, nor stop the rest of the cleanup.
            LOG.log(System.Logger.Level.WARNING, "closing a stream failed: " + e, e);
        }
    }

    private static final System.Logger LOG = System.getLogger(Operator.class.getName());

    /** Closes {@code stream}, logging rather than throwing a failure to close. */
    static void closeQuietly(BatchStream stream) {
        try {
            stream.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing a stream failed: " + e, e);
        }
    }

    /** Whether two schemas have the same fields (names, types, nullability, children), metadata aside. */
    static boolean sameFields(Schema a, Schema b) {
        return a.getFields().equals(b.getFields());
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
