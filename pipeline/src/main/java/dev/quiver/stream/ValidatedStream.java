package dev.quiver.stream;

import dev.quiver.errors.InputException;
import dev.quiver.validation.BatchValidation;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A pipeline's source with every batch checked before an operator reads it
 * ({@link BatchValidation#checkBatch}: row counts, buffer sizes, offsets): operators slice,
 * concatenate and pass columns through without computing on them, so a malformed batch is
 * stopped here, as an {@link InputException} naming the batch (counted from 0 in this source),
 * the column and the first bad row. The bad batch is closed; the stream fails as a source that
 * fails does.
 */
final class ValidatedStream implements BatchStream {
    private final BatchStream source;
    /** Batches taken from the source; {@link #next()} is not called again before its future completes. */
    private long batches;

    ValidatedStream(BatchStream source) {
        this.source = source;
    }

    @Override
    public Schema schema() {
        return source.schema();
    }

    @Override
    public CompletableFuture<VectorSchemaRoot> next() {
        return source.next().thenApply(batch -> {
            if (batch != null) {
                long index = batches++;
                try {
                    BatchValidation.checkBatch(batch);
                } catch (InputException e) {
                    batch.close();
                    e.fillBatch(index);
                    throw e;
                }
            }
            return batch;
        });
    }

    @Override
    public void close() {
        source.close();
    }
}
