package dev.quiver.stream;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Evaluates lifted async calls and appends their results as columns. Per output batch: the
 * input is coalesced to the batch size (or to the rows a limit above still needs), every call's
 * arguments are evaluated once over the batch, each call's rows are sliced into chunks of the
 * function's ideal size, all chunks go out at once (each waits, without a thread, for a permit
 * of its function's limiter), failed attempts are retried by the policy, and the results are
 * concatenated in row order. The first chunk that fails for good fails the batch: the other
 * chunks are cancelled, and every buffer is freed, the late results of cancelled calls when
 * they arrive.
 */
final class AsyncFunctionOperator extends Operator {
    private final BatchStream input;
    private final List<AsyncCallSite> sites;
    private final AsyncOptions options;
    private final Placement placement;
    private final BufferAllocator allocator;
    private final Outstanding outstanding;
    private final BatchCoalescer coalescer;
    private final int batchRows;
    private boolean inputDone;
    /** Rows a limit above still needs; negative: no limit. */
    private long fetch;

    private long rowsIn;
    /** Batches whose calls are under way (at most {@code batchesInFlight}). */
    private final Set<BatchRun> active = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Batches being read and started ahead of the consumer, oldest first; guarded by {@code this}. */
    private final ArrayDeque<Ahead> ahead = new ArrayDeque<>();
    /** Set once a batch read came back empty (the end) or failed: nothing more is read ahead. */
    private volatile boolean ended;
    /** The input's failure: it sticks, so the input is not read again after it. */
    private volatile Throwable inputFailure;
    /** The latest batch started: the next one is read after it (reading is sequential); guarded by {@code this}. */
    private CompletableFuture<BatchRun> last;

    AsyncFunctionOperator(
            BatchStream input,
            List<AsyncCallSite> sites,
            Schema schema,
            AsyncOptions options,
            long fetch,
            Placement placement,
            BufferAllocator allocator,
            Outstanding outstanding,
            Executor executor,
            OperatorMetrics metrics) {
        super(schema, executor, metrics);
        this.input = input;
        this.sites = List.copyOf(sites);
        this.options = options;
        this.fetch = fetch;
        this.placement = placement;
        this.allocator = allocator;
        this.outstanding = outstanding;
        this.batchRows = batchRows(sites.stream().map(c -> c.function).toList(), options.batchSize());
        this.coalescer = new BatchCoalescer(input.schema(), batchRows, allocator);
    }

    /**
     * The rows of a coalesced batch: the batch size rounded down to a multiple of the calls'
     * ideal batch sizes (their least common multiple), so that no call but the stream's last is
     * short; the ideal size itself when it is larger than the batch size (the function asked for
     * bigger calls); the batch size when the ideal sizes have no common multiple up to it.
     */
    static int batchRows(List<AsyncScalarFunction> functions, int batchSize) {
        long unit = 1;
        long largest = 0;
        for (var f : functions) {
            var ideal = f.idealBatchSize();
            if (ideal.isPresent() && ideal.getAsInt() > 0) {
                long i = ideal.getAsInt();
                largest = Math.max(largest, i);
                unit = unit / gcd(unit, i) * i;
                if (unit > Integer.MAX_VALUE) {
                    return batchSize;
                }
            }
        }
        if (unit <= batchSize) {
            return (int) (batchSize / unit * unit);
        }
        return unit == largest ? (int) unit : batchSize;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /**
     * The next output batch. With {@code batchesInFlight} above 1, the batches after it are read
     * and their calls started ahead, so calls overlap across batches as well as within one; the
     * consumer still sees the batches in order, and no more than that many are held.
     */
    @Override
    protected CompletableFuture<VectorSchemaRoot> produce() {
        CompletableFuture<BatchRun> mine;
        synchronized (this) {
            Ahead a = ahead.poll();
            if (a != null) {
                uncount(a); // the consumer's next() counts it from here
                mine = a.run;
            } else {
                mine = startAfter(last);
            }
            while (!closed && !ended && ahead.size() < options.batchesInFlight() - 1) {
                Ahead b = new Ahead(startAfter(last));
                outstanding
                        .increment(); // work no consumer has asked for yet: counted until taken, done with or cleaned
                // up
                ahead.add(b);
                // A read ahead that ends the stream, fails, or whose calls fail holds nothing: it stops counting at
                // once.
                b.run.whenComplete((r, e) -> {
                    if (r == null) {
                        uncount(b);
                    } else {
                        r.done.whenComplete((batch, e2) -> {
                            if (e2 != null) {
                                uncount(b);
                            }
                        });
                    }
                });
            }
        }
        return mine.thenCompose(run -> run == null ? CompletableFuture.completedFuture(null) : run.done);
    }

    /** A batch read ahead, and whether it still counts as work in flight. */
    private static final class Ahead {
        final CompletableFuture<BatchRun> run;
        boolean counted = true; // guarded by the operator

        Ahead(CompletableFuture<BatchRun> run) {
            this.run = run;
        }
    }

    private void uncount(Ahead a) {
        synchronized (this) {
            if (!a.counted) {
                return;
            }
            a.counted = false;
        }
        outstanding.decrement();
    }

    /** Reads the batch after {@code previous} (once that one has been read and started) and starts its calls. */
    private CompletableFuture<BatchRun> startAfter(CompletableFuture<BatchRun> previous) {
        CompletableFuture<?> after =
                previous == null ? CompletableFuture.completedFuture(null) : previous.handle((r, e) -> null);
        CompletableFuture<BatchRun> next = after.thenComposeAsync(x -> fill(), executor)
                .thenApplyAsync(batch -> batch == null ? null : run(batch), executor);
        next.whenComplete((r, e) -> {
            if (r == null) {
                ended = true; // the end of the input, or its failure: read nothing more ahead
            }
        });
        last = next;
        return next;
    }

    /** The next coalesced batch, or null at the end. */
    private CompletableFuture<VectorSchemaRoot> fill() {
        // The failure is recorded before anyone waiting on the batch hears of it: a dependent of the returned
        // future (the read of the next slot ahead, started on another worker) must find it, or it reads the failed
        // input again. (A whenComplete on the returned future itself would race with those dependents.)
        CompletableFuture<VectorSchemaRoot> read = new CompletableFuture<>();
        CompletableFuture<VectorSchemaRoot> result = new CompletableFuture<>();
        read.whenComplete((b, e) -> {
            if (e != null) {
                if (!(unwrap(e) instanceof CancellationException)) {
                    inputFailure = unwrap(e);
                }
                result.completeExceptionally(e);
            } else if (!result.complete(b) && b != null) {
                b.close();
            }
        });
        fillFrom(read);
        return result;
    }

    /**
     * Pulls input until a batch is ready, in a loop while the input answers at once and from a
     * new task on a worker when it does not: no chain of futures or stack frames grows with the
     * number of input batches (thousands of tiny or empty ones are read in constant memory).
     */
    private void fillFrom(CompletableFuture<VectorSchemaRoot> result) {
        Throwable failed = inputFailure;
        if (failed != null) {
            result.completeExceptionally(failed); // the input is done after a failure: never read it again
            return;
        }
        try {
            while (true) {
                int want = fetch < 0 ? batchRows : (int) Math.min(batchRows, fetch);
                if (want == 0) {
                    closeQuietly(input); // a limit above has all its rows: stop reading
                    result.complete(null);
                    return;
                }
                synchronized (coalescer) {
                    ensureOpen();
                    if (coalescer.bufferedRows() >= want || inputDone) {
                        VectorSchemaRoot b = coalescer.poll(want);
                        if (b != null && fetch >= 0) {
                            fetch -= b.getRowCount();
                        }
                        if (!result.complete(b) && b != null) {
                            b.close();
                        }
                        return;
                    }
                }
                CompletableFuture<VectorSchemaRoot> next = input.next();
                if (!next.isDone()) {
                    next.whenCompleteAsync(
                            (b, e) -> {
                                if (e != null) {
                                    result.completeExceptionally(unwrap(e));
                                    return;
                                }
                                try {
                                    accept(b);
                                } catch (RuntimeException | Error x) {
                                    result.completeExceptionally(x);
                                    return;
                                }
                                fillFrom(result);
                            },
                            executor);
                    return;
                }
                accept(next.join());
            }
        } catch (CompletionException e) {
            result.completeExceptionally(unwrap(e));
        } catch (RuntimeException | Error e) {
            result.completeExceptionally(e);
        }
    }

    private void accept(VectorSchemaRoot b) {
        synchronized (coalescer) {
            if (b == null) {
                inputDone = true;
            } else if (closed) {
                b.close();
                throw new CancellationException("the stream was closed");
            } else {
                coalescer.push(b);
            }
        }
    }

    private BatchRun run(VectorSchemaRoot batch) {
        long first = rowsIn;
        rowsIn += batch.getRowCount();
        metrics.rowsIn(batch.getRowCount());
        BatchRun r = new BatchRun(batch, first);
        synchronized (active) {
            active.add(r);
        }
        r.done.whenComplete((b, e) -> {
            synchronized (active) {
                active.remove(r);
            }
        });
        if (closed) {
            r.fail(null, new CancellationException("the stream was closed"));
        } else {
            r.start();
        }
        return r;
    }

    @Override
    protected void release() {
        List<BatchRun> runs;
        synchronized (active) {
            runs = new ArrayList<>(active);
        }
        for (BatchRun r : runs) {
            r.fail(null, new CancellationException("the query was cancelled"));
        }
        List<Ahead> unclaimed;
        synchronized (this) {
            unclaimed = new ArrayList<>(ahead);
            ahead.clear();
        }
        for (Ahead a : unclaimed) {
            // Read ahead for a consumer who has gone: cancel its calls, free its batch however it ends.
            a.run.whenComplete((r, e) -> {
                if (r == null) {
                    uncount(a);
                    return;
                }
                r.fail(null, new CancellationException("the query was cancelled"));
                r.done.whenComplete((b, e2) -> {
                    if (b != null) {
                        b.close();
                    }
                    uncount(a);
                });
            });
        }
        synchronized (coalescer) {
            coalescer.close();
        }
        closeQuietly(input);
    }

    /** One coalesced batch in flight. */
    private final class BatchRun {
        final VectorSchemaRoot batch;
        final long firstRow;
        final int rows;
        final CompletableFuture<VectorSchemaRoot> done = new CompletableFuture<>();
        final List<List<Chunk>> chunks = new ArrayList<>();
        final ColumnarValue.Array[][] results;
        int remaining;
        boolean failed;
        boolean assembling;
        boolean batchClosed;

        BatchRun(VectorSchemaRoot batch, long firstRow) {
            this.batch = batch;
            this.firstRow = firstRow;
            this.rows = batch.getRowCount();
            this.results = new ColumnarValue.Array[sites.size()][];
        }

        void start() {
            long t0 = System.nanoTime();
            RuntimeException failure = null;
            // Under the lock, so that a cancellation waits until the batch's arguments and chunks exist.
            synchronized (this) {
                if (failed) {
                    return;
                }
                try {
                    cancellation.run(this::evaluateArguments);
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            metrics.cpu(System.nanoTime() - t0);
            if (failure != null) {
                fail(null, failure);
                return;
            }
            for (List<Chunk> list : chunks) {
                for (Chunk c : list) {
                    c.attempt(1);
                }
            }
        }

        private void evaluateArguments() {
            {
                for (int s = 0; s < sites.size(); s++) {
                    AsyncCallSite site = sites.get(s);
                    List<ColumnarValue> whole = new ArrayList<>();
                    try {
                        for (CompiledExpression a : site.args) {
                            whole.add(a.evaluateValue(batch, placement, allocator));
                        }
                        int size = site.chunkRows(rows);
                        int n = (rows + size - 1) / size;
                        results[s] = new ColumnarValue.Array[n];
                        List<Chunk> list = new ArrayList<>(n);
                        chunks.add(list); // before any chunk exists, so a failure below cancels (and frees) those made
                        for (int c = 0; c < n; c++) {
                            int start = c * size;
                            int len = Math.min(size, rows - start);
                            // Each chunk owns slices (buffers shared, reference-counted), never a column of the batch
                            // itself: a failed batch closes the batch while other calls may still read their arguments.
                            list.add(new Chunk(site, s, c, n, start, len, slice(whole, start, len)));
                            remaining++;
                        }
                    } finally {
                        whole.forEach(ColumnarValue::close);
                    }
                }
            }
        }

        private List<ColumnarValue> slice(List<ColumnarValue> whole, int start, int len) {
            List<ColumnarValue> out = new ArrayList<>(whole.size());
            try {
                for (ColumnarValue v : whole) {
                    out.add(
                            v instanceof ColumnarValue.Array a
                                    ? new ColumnarValue.Array(Batches.slice(a.vector(), start, len, allocator))
                                    : v);
                }
                return out;
            } catch (RuntimeException | Error e) {
                out.forEach(ColumnarValue::close);
                throw e;
            }
        }

        /** A chunk's result arrived (owned here now). */
        void succeeded(Chunk chunk, ColumnarValue value) {
            ColumnarValue.Array array;
            try {
                array = checked(chunk, value);
            } catch (RuntimeException e) {
                if (value != null && !chunk.isArgument(value)) {
                    value.close();
                }
                chunk.site.metrics.failed();
                fail(chunk, e);
                return;
            }
            boolean last;
            synchronized (this) {
                if (failed) {
                    array.close();
                    chunk.finish();
                    return;
                }
                results[chunk.siteIndex][chunk.index] = array;
                last = --remaining == 0;
            }
            chunk.finish();
            if (last) {
                executor.execute(this::assemble);
            }
        }

        private ColumnarValue.Array checked(Chunk chunk, ColumnarValue value) {
            AsyncCallSite site = chunk.site;
            if (value == null) {
                throw new IllegalStateException("returned null instead of a value");
            }
            if (value instanceof ColumnarValue.Scalar s) {
                if (!s.dataType().toArrow().equals(site.returnType.toArrow())) {
                    throw new IllegalStateException(
                            "returned a scalar of " + s.dataType() + " but was planned to return " + site.returnType);
                }
                return new ColumnarValue.Array(Values.broadcast(s.value(), site.column, chunk.len, allocator));
            }
            ColumnarValue.Array a = (ColumnarValue.Array) value;
            if (a.length() != chunk.len) {
                throw new IllegalStateException(
                        "returned " + a.length() + " rows for a call of " + chunk.len + " rows");
            }
            if (!a.vector().getField().getType().equals(site.returnField.getType())) {
                throw new IllegalStateException(
                        "returned " + a.dataType() + " but was planned to return " + site.returnType);
            }
            if (!a.owned() || chunk.isArgument(a)) {
                // An argument handed back (or some other borrowed array): the chunk frees its arguments after the
                // call, so the result takes references of its own to the same buffers.
                FieldVector copy = Batches.slice(a.vector(), 0, a.length(), allocator);
                return new ColumnarValue.Array(copy);
            }
            return a;
        }

        private void assemble() {
            synchronized (this) {
                if (failed) {
                    return;
                }
                assembling = true; // from here a cancellation waits for the batch and closes it
            }
            List<FieldVector> extra = new ArrayList<>(sites.size());
            long t0 = System.nanoTime();
            try {
                ensureOpen();
                for (int s = 0; s < sites.size(); s++) {
                    List<FieldVector> parts = new ArrayList<>();
                    for (ColumnarValue.Array a : results[s]) {
                        parts.add(a.vector());
                    }
                    extra.add(Batches.concat(parts, sites.get(s).returnField, allocator));
                }
                closeResults();
                VectorSchemaRoot out = Batches.withColumns(batch, extra); // takes the extra vectors even when it fails
                extra = List.of();
                synchronized (this) {
                    batchClosed = true;
                }
                metrics.cpu(System.nanoTime() - t0);
                if (!done.complete(out)) {
                    out.close();
                }
            } catch (RuntimeException | Error e) {
                extra.forEach(FieldVector::close);
                synchronized (this) {
                    failed = true;
                }
                closeResults();
                closeBatch();
                done.completeExceptionally(e);
            }
        }

        private void closeResults() {
            for (ColumnarValue.Array[] rs : results) {
                if (rs != null) {
                    for (int i = 0; i < rs.length; i++) {
                        if (rs[i] != null) {
                            rs[i].close();
                            rs[i] = null;
                        }
                    }
                }
            }
        }

        private void closeBatch() {
            synchronized (this) {
                if (batchClosed) {
                    return;
                }
                batchClosed = true;
            }
            batch.close();
        }

        /** Fails the batch (once): cancels the other chunks and frees everything. {@code chunk} is null for a cancellation. */
        void fail(Chunk chunk, Throwable cause) {
            synchronized (this) {
                if (failed || assembling) {
                    if (chunk != null) {
                        chunk.finish();
                    }
                    return;
                }
                failed = true;
            }
            for (List<Chunk> list : chunks) {
                for (Chunk c : list) {
                    c.cancel();
                }
            }
            synchronized (this) {
                closeResults();
            }
            closeBatch();
            Throwable error = cause;
            if (chunk != null) { // a call's failure, even a cancellation by its client: the query did not ask for it
                String fn = chunk.site.function.name();
                long a = firstRow + chunk.start;
                long b = a + chunk.len;
                error = new AsyncFunctionException(
                        fn,
                        a,
                        b,
                        "async function '" + fn + "' failed on input rows [" + a + ", " + b + ") (call "
                                + (chunk.index + 1) + " of " + chunk.of + " for a batch of " + rows + " rows, after "
                                + chunk.attempts + " attempt"
                                + (chunk.attempts == 1 ? "" : "s") + ", in " + chunk.site.text + "): "
                                + describe(cause),
                        cause);
            }
            done.completeExceptionally(error);
        }

        private static String describe(Throwable t) {
            Throwable c = RetryPolicy.unwrap(t);
            return c.getMessage() == null
                    ? c.getClass().getName()
                    : c.getClass().getSimpleName() + ": " + c.getMessage();
        }

        /** One call's rows of one call site. */
        private final class Chunk {
            final AsyncCallSite site;
            final int siteIndex;
            final int index;
            final int of;
            final int start;
            final int len;
            final List<ColumnarValue> args;
            int refs = 1;
            int attempts;
            boolean finished;
            CompletableFuture<Void> waiter;
            CompletableFuture<ColumnarValue> raw;

            Chunk(AsyncCallSite site, int siteIndex, int index, int of, int start, int len, List<ColumnarValue> args) {
                this.site = site;
                this.siteIndex = siteIndex;
                this.index = index;
                this.of = of;
                this.start = start;
                this.len = len;
                this.args = args;
            }

            /** Whether {@code v} is (the vector of) one of this chunk's arguments. */
            boolean isArgument(ColumnarValue v) {
                if (v instanceof ColumnarValue.Array a) {
                    for (ColumnarValue arg : args) {
                        if (arg instanceof ColumnarValue.Array b && b.vector() == a.vector()) {
                            return true;
                        }
                    }
                }
                return false;
            }

            void attempt(int n) {
                CompletableFuture<Void> w = site.limiter.acquire(site.group);
                synchronized (this) {
                    waiter = w;
                }
                w.whenCompleteAsync(
                        (v, e) -> {
                            if (e != null) {
                                return; // cancelled while waiting: no permit was taken
                            }
                            call(n);
                        },
                        executor);
            }

            /** One attempt, holding a permit, which it gives back once the attempt's outcome is settled. */
            private void call(int n) {
                outstanding
                        .increment(); // the call; counted before the checks, so whenReleased() cannot slip in between
                boolean stop;
                synchronized (BatchRun.this) {
                    stop = failed || closed;
                }
                synchronized (this) {
                    // The chunk's own reference keeps the arguments alive until finish(), so while
                    // it is unfinished another reference is safe to take.
                    stop |= finished;
                    if (!stop) {
                        refs++;
                        attempts = n;
                    }
                }
                if (stop) {
                    site.limiter.release(site.group);
                    outstanding.decrement();
                    return;
                }
                site.metrics.started(len, System.nanoTime());
                CompletableFuture<ColumnarValue> r;
                try {
                    r = Objects.requireNonNull(
                            site.function.invokeAsync(
                                    new ScalarFunctionArgs(args, site.argFields, len, site.returnField, site.config)),
                            "invokeAsync returned null");
                } catch (RuntimeException | Error e) {
                    r = CompletableFuture.failedFuture(e);
                }
                CompletableFuture<ColumnarValue> fromFunction = r;
                synchronized (this) {
                    raw = fromFunction;
                }
                boolean late;
                synchronized (BatchRun.this) {
                    late = failed || closed; // failed while invokeAsync ran: cancel() found no call to cancel
                }
                if (late) {
                    fromFunction.cancel(true);
                }
                CompletableFuture<ColumnarValue> attempt = new CompletableFuture<>();
                Duration timeout = options.callTimeout();
                attempt.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
                outstanding.increment(); // the attempt's outcome
                // On a worker: a timeout completes the attempt on the JDK's shared timer thread, which must not run
                // the failure through the operators and into the consumer.
                attempt.whenCompleteAsync(
                        (value, failure) -> {
                            try {
                                settle(n, fromFunction, timeout, value, failure);
                            } finally {
                                // The permit goes on only now: a batch that failed is marked so first, and a call stuck
                                // past
                                // its timeout does not hold it (a retry, or another query, may go ahead).
                                site.limiter.release(site.group);
                                outstanding.decrement();
                            }
                        },
                        executor);
                fromFunction.whenComplete((value, failure) -> {
                    site.metrics.ended(System.nanoTime());
                    unref(); // this call reads the arguments no more: a finished chunk frees them before its result
                    // moves on
                    try {
                        if (failure != null) {
                            attempt.completeExceptionally(failure);
                        } else if (!attempt.complete(value) && value != null) {
                            value.close(); // too late: timed out or cancelled
                        }
                    } finally {
                        outstanding.decrement();
                    }
                });
            }

            private void settle(
                    int n,
                    CompletableFuture<ColumnarValue> fromFunction,
                    Duration timeout,
                    ColumnarValue value,
                    Throwable failure) {
                if (failure == null) {
                    succeeded(this, value);
                    return;
                }
                Throwable cause = RetryPolicy.unwrap(failure);
                if (!fromFunction.isDone()) {
                    if (cause instanceof TimeoutException) {
                        site.metrics.timedOut();
                        cause = new TimeoutException(
                                "the call took longer than the timeout of " + timeout.toMillis() + " ms");
                    }
                    fromFunction.cancel(true);
                }
                boolean halt;
                synchronized (BatchRun.this) {
                    halt = failed || closed;
                }
                if (halt) {
                    finish();
                    return;
                }
                if (options.retry().retries(n, cause)) {
                    site.metrics.retried();
                    CompletableFuture.delayedExecutor(
                                    options.retry().backoff(n).toNanos(), TimeUnit.NANOSECONDS, executor)
                            .execute(() -> attempt(n + 1));
                } else {
                    site.metrics.failed();
                    fail(this, cause);
                }
            }

            void cancel() {
                CompletableFuture<Void> w;
                CompletableFuture<ColumnarValue> r;
                synchronized (this) {
                    w = waiter;
                    r = raw;
                }
                if (w != null) {
                    w.cancel(false);
                }
                if (r != null) {
                    r.cancel(true);
                }
                finish();
            }

            /** The chunk is done with (result taken, failed or cancelled): its arguments go once no call reads them. */
            void finish() {
                synchronized (this) {
                    if (finished) {
                        return;
                    }
                    finished = true;
                }
                unref();
            }

            private void unref() {
                boolean free;
                synchronized (this) {
                    free = --refs == 0;
                }
                if (free) {
                    args.forEach(ColumnarValue::close);
                }
            }
        }
    }
}
