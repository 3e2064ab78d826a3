package dev.quiver.stream;

import java.time.Duration;
import java.util.Objects;

/**
 * How a pipeline runs its async functions.
 *
 * @param batchSize          rows the input is coalesced to before a call (the function's
 *                           ideal batch size then slices each batch into chunks); 8192 by
 *                           default. It is rounded down to a multiple of the ideal batch size
 *                           (1000 rows per call: batches of 8000), or up to the ideal size when
 *                           that is larger, so that only a stream's last call is short
 * @param callTimeout        the longest one call may take before it fails (and is retried if the
 *                           retry policy says so); 30 s by default
 * @param retry              how failed calls are retried; none by default
 * @param maxConcurrentCalls calls of one function this query may have in flight at once; 0
 *                           (the default): no bound of its own. The function's own
 *                           {@link dev.quiver.functions.AsyncScalarFunction#maxConcurrentCalls()}
 *                           bounds its calls across every query of a runtime in any case, so
 *                           this can only lower it
 * @param batchesInFlight    coalesced batches whose calls may be under way at once in one
 *                           async operator: 2 by default, so the next batch's calls start while
 *                           the consumer waits for (or works on) the current one; 1 overlaps
 *                           calls only within a batch. It bounds what the operator holds.
 */
public record AsyncOptions(
        int batchSize, Duration callTimeout, RetryPolicy retry, int maxConcurrentCalls, int batchesInFlight) {

    public static final int DEFAULT_BATCH_SIZE = 8192;
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);

    public AsyncOptions {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be >= 1, got " + batchSize);
        }
        Objects.requireNonNull(callTimeout, "callTimeout is null");
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("callTimeout must be positive, got " + callTimeout);
        }
        Objects.requireNonNull(retry, "retry is null");
        if (maxConcurrentCalls < 0) {
            throw new IllegalArgumentException(
                    "maxConcurrentCalls must be >= 0 (0: no bound of the query's own), got " + maxConcurrentCalls);
        }
        if (batchesInFlight < 1) {
            throw new IllegalArgumentException("batchesInFlight must be >= 1, got " + batchesInFlight);
        }
    }

    public static AsyncOptions defaults() {
        return new AsyncOptions(DEFAULT_BATCH_SIZE, DEFAULT_CALL_TIMEOUT, RetryPolicy.none(), 0, 2);
    }

    public AsyncOptions withBatchSize(int rows) {
        return new AsyncOptions(rows, callTimeout, retry, maxConcurrentCalls, batchesInFlight);
    }

    public AsyncOptions withCallTimeout(Duration timeout) {
        return new AsyncOptions(batchSize, timeout, retry, maxConcurrentCalls, batchesInFlight);
    }

    public AsyncOptions withRetry(RetryPolicy policy) {
        return new AsyncOptions(batchSize, callTimeout, policy, maxConcurrentCalls, batchesInFlight);
    }

    public AsyncOptions withMaxConcurrentCalls(int calls) {
        return new AsyncOptions(batchSize, callTimeout, retry, calls, batchesInFlight);
    }

    public AsyncOptions withBatchesInFlight(int batches) {
        return new AsyncOptions(batchSize, callTimeout, retry, maxConcurrentCalls, batches);
    }
}
