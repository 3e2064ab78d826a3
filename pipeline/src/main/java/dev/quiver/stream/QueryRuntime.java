package dev.quiver.stream;

import dev.quiver.functions.AsyncScalarFunction;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where pipelines run: a fixed pool of platform worker threads for the CPU work (sources,
 * filters, projections, argument evaluation, reassembly), shared by every query started on it,
 * and the per-function limits on calls in flight. No worker waits for an async function: a
 * pending call is a future, and the work after it is scheduled on a worker when it completes.
 * So one slow remote service cannot stall the other queries of a runtime, even on a single
 * worker. Thread-safe; close it when done (pending work is abandoned).
 */
public final class QueryRuntime implements AutoCloseable {
    private static final AtomicInteger RUNTIMES = new AtomicInteger();
    private final ExecutorService workers;
    private final int threads;
    /** Per function (by identity, as functions do not override equals), dropped with the function. */
    private final Map<AsyncScalarFunction, AsyncLimiter> limiters = new WeakHashMap<>();

    private QueryRuntime(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("a runtime needs at least one worker thread, got " + threads);
        }
        this.threads = threads;
        int id = RUNTIMES.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        ThreadFactory f = r -> {
            Thread t = new Thread(r, "quiver-query-" + id + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        this.workers = Executors.newFixedThreadPool(threads, f);
    }

    /** A runtime with one worker per available processor. */
    public static QueryRuntime create() {
        return new QueryRuntime(Runtime.getRuntime().availableProcessors());
    }

    /** A runtime with {@code threads} platform worker threads. */
    public static QueryRuntime create(int threads) {
        return new QueryRuntime(threads);
    }

    /** The worker pool. */
    public Executor executor() {
        return workers;
    }

    public int threads() {
        return threads;
    }

    /** The limiter of {@code function}'s calls in flight on this runtime: its own {@code maxConcurrentCalls()}. */
    AsyncLimiter limiter(AsyncScalarFunction function) {
        synchronized (limiters) {
            return limiters.computeIfAbsent(function, f -> new AsyncLimiter(Math.max(1, f.maxConcurrentCalls())));
        }
    }

    @Override
    public void close() {
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
