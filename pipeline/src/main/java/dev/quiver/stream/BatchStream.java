package dev.quiver.stream;

import java.util.concurrent.CompletableFuture;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A stream of Arrow batches, pulled one at a time: nothing is computed until {@link #next()}
 * asks, so a slow consumer slows every operator and source below it, and no operator buffers
 * more than a bounded number of batches (one, or an async operator's {@code batchesInFlight}):
 * back-pressure by construction.
 *
 * <p>{@link #next()} never blocks: it returns a future of the next batch, or of {@code null}
 * at the end. Ask for the next batch only after the previous future completed. The batch
 * belongs to the caller, who closes it. After a failure the stream is done: close it.
 * {@link #close()} cancels pending work (an outstanding {@code next()} then completes with a
 * {@link java.util.concurrent.CancellationException}) and frees every buffered batch;
 * it is idempotent.
 */
public interface BatchStream extends AutoCloseable {

    /** The schema of every batch. */
    Schema schema();

    /** The next batch (owned by the caller), or {@code null} when the stream has ended. */
    CompletableFuture<VectorSchemaRoot> next();

    @Override
    void close();
}
