package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.SCHEMA;
import static dev.quiver.tests.ProbeFixtures.assertZeroLeftAfter;
import static dev.quiver.tests.ProbeFixtures.await;
import static dev.quiver.tests.ProbeFixtures.longs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.Placement;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.stream.AsyncOptions;
import dev.quiver.stream.BatchStream;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.stream.RetryPolicy;
import dev.quiver.tests.ProbeFixtures.Call;
import dev.quiver.tests.ProbeFixtures.CountingSource;
import dev.quiver.tests.ProbeFixtures.Probe;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An async operator with batches read ahead (AsyncOptions.batchesInFlight): order, limits, failures, whenReleased and leaks under random closes. */
class ReadAheadTest extends QuiverTestBase {
    private QueryRuntime runtime;

    @BeforeEach
    void openRuntime() {
        runtime = QueryRuntime.create(2);
    }

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static AsyncOptions batchOf(int rows) {
        return AsyncOptions.defaults().withBatchSize(rows);
    }

    /**
     * LIMIT 10 over a filter over LIMIT 20000 over the async projection: the outer limit cannot reach the
     * operator (a filter in between), but the inner one gives it a fetch, so it is marked readAhead and
     * the second batch's calls go out before anyone asked, for rows the outer limit may never need.
     */
    @Test
    void anOuterLimitBeyondAFilterStillReadsAheadWhenAnInnerLimitIsPushed() throws Exception {
        Probe f = new Probe("f", 0, 4);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "v", "f(v) AS y")
                .limit(20000)
                .filter("v >= 0")
                .limit(10)
                .options(batchOf(1000))
                .placement(Placement.CPU)
                .plan(quiver);
        CountingSource source = CountingSource.unbounded(allocator, 1000);
        QueryExecution q = plan.execute(runtime, source.stream(runtime.executor()));
        try {
            BatchStream s = q.stream();
            CompletableFuture<VectorSchemaRoot> first = s.next();
            Call one = f.takeWired();
            Call two = f.poll(500);
            List<Call> calls = new ArrayList<>(List.of(one));
            if (two != null) {
                calls.add(two);
            }
            calls.sort(Comparator.comparingDouble(Call::first));
            calls.forEach(c -> c.complete(v -> v));
            try (VectorSchemaRoot b = await(first, "first batch")) {
                assertEquals(10, b.getRowCount());
                assertEquals(0L, longs(b, "id").getFirst());
            }
            assertNull(
                    two,
                    "a call for rows " + (two == null ? "" : calls.getLast().first())
                            + "+ went out ahead of the consumer, under LIMIT 10" + " beyond a filter");
        } finally {
            q.close();
            assertZeroLeftAfter(allocator, q.whenReleased());
        }
    }

    /** Source: batch 0, then a failing read, then batches again; counts reads. */
    private static final class FailingOnceSource implements Iterator<VectorSchemaRoot>, AutoCloseable {
        final BufferAllocator allocator;
        final AtomicInteger reads = new AtomicInteger();

        FailingOnceSource(BufferAllocator allocator) {
            this.allocator = allocator;
        }

        @Override
        public boolean hasNext() {
            return true;
        }

        @Override
        public VectorSchemaRoot next() {
            int i = reads.getAndIncrement();
            if (i == 1) {
                throw new IllegalStateException("read failed");
            }
            return ProbeFixtures.batch(allocator, i * 1000L, 1000);
        }

        @Override
        public void close() {}
    }

    /**
     * The input fails while the second batch is read ahead. The consumer's next() that takes that failed
     * slot also starts a slot after it, which reads the failed input again and sends calls for rows past
     * the failure before anyone has asked, the consumer only learning of the failure meanwhile.
     */
    @Test
    void aFailedInputIsNotReadAgainAhead() throws Exception {
        Probe f = new Probe("f", 0, 4).answering(v -> v);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "f(v) AS y")
                .options(batchOf(1000))
                .placement(Placement.CPU)
                .plan(quiver);
        FailingOnceSource source = new FailingOnceSource(allocator);
        QueryExecution q = plan.execute(runtime, BatchStreams.fromIterator(SCHEMA, source, runtime.executor()));
        try {
            BatchStream s = q.stream();
            try (VectorSchemaRoot b = await(s.next(), "first batch")) {
                assertEquals(1000, b.getRowCount());
            }
            Throwable t = ProbeFixtures.failure(s.next(), "second batch");
            assertTrue(String.valueOf(t.getMessage()).contains("read failed"), String.valueOf(t));
            Thread.sleep(300); // the wait is the test: an operator reading on after the failure fills it
            assertEquals(
                    2, source.reads.get(), "reads of the source (the third is after its failure, nobody asked for it)");
            assertEquals(1000, f.totalRows(), "rows sent to the function (beyond 1000: rows after the failure)");
        } finally {
            q.close();
            assertZeroLeftAfter(allocator, q.whenReleased());
        }
    }

    /** A consumer that reads to the end, closing every batch but not (yet) the stream. */
    private void drainWithoutClosing(BatchStream s) throws Exception {
        while (true) {
            VectorSchemaRoot b = await(s.next(), "batch");
            if (b == null) {
                return;
            }
            b.close();
        }
    }

    /** Before the change, whenReleased() completed once the stream had ended: nothing is in flight then. */
    @Test
    void whenReleasedCompletesOnceTheStreamHasEndedWithoutClosing() throws Exception {
        for (int inFlight : new int[] {1, 2}) {
            Probe f = new Probe("f" + inFlight, 0, 4).answering(v -> v);
            quiver.functions().register(f);
            PipelinePlan plan = Pipeline.from(SCHEMA)
                    .project("id", "f" + inFlight + "(v) AS y")
                    .options(batchOf(1000).withBatchesInFlight(inFlight))
                    .placement(Placement.CPU)
                    .plan(quiver);
            QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 3, 1000, runtime.executor()));
            try {
                drainWithoutClosing(q.stream());
                try {
                    q.whenReleased().get(2, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    fail("batchesInFlight=" + inFlight
                            + ": the stream has ended, nothing runs, yet whenReleased() does not complete");
                }
            } finally {
                q.close();
                assertZeroLeftAfter(allocator, q.whenReleased());
            }
        }
    }

    // ------------------------------------------------------------------ stress

    /** Answers v * 10 after a random delay (or fails on row {@code failAt}); honours cancellation. */
    private static final class Delayed implements AsyncScalarFunction {
        volatile long failAt;
        final Random random = new Random(1);
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public String name() {
            return "d";
        }

        @Override
        public Signature signature() {
            return Signature.exact(List.of(DataType.FLOAT64), Volatility.IMMUTABLE);
        }

        @Override
        public DataType returnType(List<DataType> argTypes) {
            return DataType.FLOAT64;
        }

        @Override
        public OptionalInt idealBatchSize() {
            return OptionalInt.of(100);
        }

        @Override
        public int maxConcurrentCalls() {
            return 8;
        }

        @Override
        public CompletableFuture<ColumnarValue> invokeAsync(ScalarFunctionArgs args) {
            calls.incrementAndGet();
            List<Double> values = ProbeFixtures.values(args.arg(0), args.numberRows());
            CompletableFuture<ColumnarValue> out = new CompletableFuture<>();
            int delay;
            synchronized (random) {
                delay = random.nextInt(3);
            }
            // The result is made now, inside invokeAsync (while the pipeline counts the call). The future's outcome
            // alone decides who frees it: completed, the pipeline owns it; cancelled, the callback below frees it,
            // synchronously with the cancellation (so before whenReleased() can complete). No flag may decide it
            // ahead of the completion: a completer that claimed the result and then lost the race to complete the
            // future would free it after whenReleased() (the rare "EARLY" failure of closeRightAfterFirstNext).
            boolean failIt =
                    values.stream().anyMatch(v -> v != null && v.longValue() <= failAt && failAt < v.longValue() + 1);
            Float8Vector r = failIt
                    ? null
                    : ProbeFixtures.vector(args.returnField(), args.config().allocator(), values, v -> v * 10);
            out.whenComplete((v, e) -> {
                if (e != null && r != null) {
                    r.close(); // cancelled: nobody else will ever see it
                }
            });
            CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS).execute(() -> {
                if (failIt) {
                    out.completeExceptionally(new IllegalStateException("boom"));
                    return;
                }
                out.complete(new ColumnarValue.Array(r)); // false when cancelled: the callback has freed it
            });
            return out;
        }
    }

    /** Random batch sizes, random stopping points, random failures; 2-3 batches in flight. Order, no leak, released. */
    @Test
    void stress() throws Exception {
        Random rnd = new Random(Long.getLong("seed", 42));
        Delayed d = new Delayed();
        quiver.functions().register(d);
        for (int iter = 0; iter < Integer.getInteger("quiver.readAheadIterations", 100); iter++) {
            long seed = rnd.nextLong();
            Random r = new Random(seed);
            int inFlight = 2 + r.nextInt(2);
            long failAt = r.nextInt(4) == 0 ? r.nextInt(3000) : Long.MAX_VALUE;
            int stopAfter = r.nextInt(6); // batches read before closing; 5: read to the end (and once more)
            boolean closeWhilePending = r.nextBoolean();
            boolean withLimit = r.nextInt(3) == 0;
            long limit = r.nextInt(3500);
            d.failAt = failAt;
            int shape = r.nextInt(4);
            Pipeline p = switch (shape) {
                case 0 -> Pipeline.from(SCHEMA).project("id", "d(v) AS y");
                case 1 ->
                    Pipeline.from(SCHEMA)
                            .project("id", "v", "d(v) AS y")
                            .limit(5000)
                            .project("id", "d(v) + y AS y");
                case 2 ->
                    Pipeline.from(SCHEMA)
                            .filter("v >= 0")
                            .project("id", "v", "d(v) AS w")
                            .filter("w >= 0")
                            .project("id", "d(w / 10) AS y");
                default -> Pipeline.from(SCHEMA).project("id", "d(d(v) / 10) AS y");
            };
            if (withLimit) {
                p = p.limit(limit);
            }
            PipelinePlan plan = p.options(batchOf(300 + r.nextInt(800)).withBatchesInFlight(inFlight))
                    .placement(Placement.CPU)
                    .plan(quiver);
            int batches = 1 + r.nextInt(8);
            int[] sizes = new int[batches];
            long[] starts = new long[batches];
            long total = 0;
            for (int i = 0; i < batches; i++) {
                sizes[i] = r.nextInt(600);
                starts[i] = total;
                total += sizes[i];
            }
            long expectTotal = withLimit ? Math.min(total, limit) : total;
            QueryExecution q = plan.execute(
                    runtime,
                    BatchStreams.generate(
                            SCHEMA,
                            batches,
                            i -> ProbeFixtures.batch(allocator, starts[i], sizes[i]),
                            runtime.executor()));
            String what = "iteration " + iter + " seed " + seed + " inFlight=" + inFlight + " failAt=" + failAt
                    + " stopAfter=" + stopAfter
                    + " closeWhilePending=" + closeWhilePending + " limit=" + (withLimit ? limit : -1) + " total="
                    + total + " batches=" + batches
                    + " plan=" + plan.explain();
            try {
                BatchStream s = q.stream();
                long row = 0;
                boolean failed = false;
                boolean closedEarly = false;
                for (int k = 0; stopAfter == 5 || k < stopAfter; k++) {
                    CompletableFuture<VectorSchemaRoot> n = s.next();
                    if (closeWhilePending && k == stopAfter - 1) {
                        Thread.sleep(r.nextInt(3));
                        s.close();
                        closedEarly = true;
                    }
                    VectorSchemaRoot b;
                    try {
                        b = n.get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException | CancellationException e) {
                        failed = true;
                        break;
                    }
                    if (b == null) {
                        // once more after the end
                        if (!closedEarly) assertNull(await(s.next(), what + ": after the end"), what);
                        break;
                    }
                    try (b) {
                        for (long id : longs(b, "id")) {
                            assertEquals(row++, id, what + ": row order");
                        }
                    }
                }
                if (stopAfter == 5 && !failed) {
                    assertEquals(expectTotal, row, what + ": rows");
                }
            } finally {
                q.close();
                await(q.whenReleased(), what + ": whenReleased");
                assertEquals(
                        0,
                        allocator.getAllocatedMemory(),
                        what + ": bytes still allocated when whenReleased() completed");
            }
        }
    }

    /** Close right after the first next(), at a random moment: compare 1 and 2 batches in flight. */
    @Test
    void closeRightAfterFirstNext() throws Exception {
        int inFlight = Integer.getInteger("inFlight", 2);
        Delayed d = new Delayed();
        d.failAt = Long.MAX_VALUE;
        quiver.functions().register(d);
        Random r = new Random(3);
        int early = 0;
        for (int iter = 0; iter < Integer.getInteger("quiver.readAheadIterations", 100) * 5; iter++) {
            PipelinePlan plan = Pipeline.from(SCHEMA)
                    .project("id", "d(v) AS y")
                    .options(batchOf(400).withBatchesInFlight(inFlight))
                    .placement(Placement.CPU)
                    .plan(quiver);
            QueryExecution q = plan.execute(
                    runtime,
                    BatchStreams.generate(
                            SCHEMA, 8, i -> ProbeFixtures.batch(allocator, i * 300L, 300), runtime.executor()));
            BatchStream s = q.stream();
            CompletableFuture<VectorSchemaRoot> n = s.next();
            int sleep = r.nextInt(3);
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
            s.close();
            try {
                VectorSchemaRoot b = n.get(10, TimeUnit.SECONDS);
                if (b != null) {
                    b.close();
                }
            } catch (ExecutionException | CancellationException e) {
                // closed
            }
            q.close();
            q.whenReleased().get(10, TimeUnit.SECONDS);
            long atRelease = allocator.getAllocatedMemory();
            if (atRelease != 0) {
                Thread.sleep(300);
                long after = allocator.getAllocatedMemory();
                if (after == 0) {
                    early++;
                    System.out.println("EARLY sleep=" + sleep + " atRelease=" + atRelease + " asyncMetricsEmpty="
                            + q.asyncMetrics().isEmpty());
                } else {
                    System.out.println(
                            "iteration " + iter + ": leaked " + after + " bytes; " + allocator.toVerboseString());
                    fail("inFlight=" + inFlight + " iteration " + iter + ": " + after + " bytes never freed ("
                            + atRelease + " at whenReleased)");
                }
            }
        }
        assertEquals(
                0, early, "inFlight=" + inFlight + ": times whenReleased() completed before every buffer was freed");
    }

    /** PipelineRobustnessTest.randomCancellationStress with a function that never drops a value it made. */
    @Test
    void randomCancellationStressWithATidyFunction() throws Exception {
        Random rnd = new Random(Long.getLong("seed", 42));
        AsyncScalarFunction g = new AsyncScalarFunction() {
            public String name() {
                return "jit";
            }

            public Signature signature() {
                return Signature.exact(List.of(DataType.FLOAT64), Volatility.IMMUTABLE);
            }

            public DataType returnType(List<DataType> a) {
                return DataType.FLOAT64;
            }

            public OptionalInt idealBatchSize() {
                return OptionalInt.of(10);
            }

            public int maxConcurrentCalls() {
                return 3;
            }

            public CompletableFuture<ColumnarValue> invokeAsync(ScalarFunctionArgs args) {
                int n = args.numberRows();
                List<Double> vals = ProbeFixtures.values(args.arg(0), n);
                long d = ThreadLocalRandom.current().nextInt(3);
                boolean failIt = ThreadLocalRandom.current().nextInt(200) == 0;
                CompletableFuture<ColumnarValue> out = new CompletableFuture<>();
                CompletableFuture.delayedExecutor(d, TimeUnit.MILLISECONDS).execute(() -> {
                    if (out.isDone()) {
                        return;
                    }
                    if (failIt) {
                        out.completeExceptionally(new RuntimeException("boom"));
                        return;
                    }
                    Float8Vector v = ProbeFixtures.vector(
                            args.returnField(), args.config().allocator(), vals, x -> x * 2);
                    if (!out.complete(new ColumnarValue.Array(v))) {
                        v.close(); // cancelled meanwhile: the value is ours to free
                    }
                });
                return out;
            }
        };
        quiver.functions().register(g);
        int inFlight = Integer.getInteger("inFlight", 2);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .filter("id % 5 <> 0 AND jit(v) > 3")
                .project("id", "jit(v) + jit(x) AS y")
                .limit(500)
                .options(AsyncOptions.defaults()
                        .withBatchSize(64)
                        .withBatchesInFlight(inFlight)
                        .withRetry(RetryPolicy.attempts(2)
                                .retryingOn(t -> true)
                                .withBackoff(Duration.ofMillis(1), 1, Duration.ofMillis(1))))
                .placement(Placement.CPU)
                .plan(quiver);
        for (int iter = 0; iter < Integer.getInteger("quiver.readAheadIterations", 100); iter++) {
            List<BatchStream> parts = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                parts.add(ProbeFixtures.source(allocator, 20, 37, runtime.executor()));
            }
            QueryExecution q = plan.execute(runtime, parts, allocator);
            int stopAfter = rnd.nextInt(6);
            List<CompletableFuture<Long>> runs = new ArrayList<>();
            for (BatchStream s : q.streams()) {
                AtomicInteger seen = new AtomicInteger();
                runs.add(BatchStreams.forEach(s, b -> {
                    if (seen.incrementAndGet() > stopAfter) {
                        throw new RuntimeException("consumer stops");
                    }
                }));
            }
            boolean cancel = rnd.nextBoolean();
            if (cancel) {
                Thread.sleep(rnd.nextInt(3));
                q.cancel();
            }
            for (CompletableFuture<Long> r : runs) {
                try {
                    r.get(10, TimeUnit.SECONDS);
                } catch (ExecutionException | CancellationException e) {
                    // fine
                } catch (TimeoutException e) {
                    fail("iteration " + iter + ": a partition hung");
                }
            }
            q.close();
            await(q.whenReleased(), "whenReleased " + iter);
            long t0 = System.nanoTime();
            long deadline = t0 + TimeUnit.SECONDS.toNanos(2);
            boolean dumped = false;
            while (allocator.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
                if (!dumped
                        && System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(300)
                        && allocator.getAllocatedMemory() != 0) {
                    dumped = true;
                    System.out.println("HELD 300ms after whenReleased, iteration " + iter + " stopAfter=" + stopAfter
                            + " cancel=" + cancel + "\n" + allocator.toVerboseString());
                }
            }
            if (dumped) {
                System.out.println("HELD-END iteration " + iter + " freed after " + (System.nanoTime() - t0) / 1_000_000
                        + " ms: " + (allocator.getAllocatedMemory() == 0));
            }
            if (allocator.getAllocatedMemory() != 0) {
                System.out.println("LEAK iteration " + iter + " stopAfter=" + stopAfter + " cancel=" + cancel + "\n"
                        + allocator.toVerboseString());
            }
            assertEquals(
                    0,
                    allocator.getAllocatedMemory(),
                    "iteration " + iter + " leaked (stopAfter=" + stopAfter + ", cancel=" + cancel + ")");
        }
    }

    /**
     * After a call fails, before close: with one batch in flight nothing is held and
     * whenReleased() completes; with two, the batch read ahead holds its output until the
     * consumer closes the stream (as documented: after a failure, close it), and then it does.
     */
    @Test
    void afterAFailureWhenReleasedWaitsOnlyForWhatIsHeld() throws Exception {
        for (int inFlight : new int[] {1, 2}) {
            Probe f = new Probe("g" + inFlight, 0, 4);
            f.respond = c -> {
                if (c.first() < 1000) {
                    c.fail(new IllegalStateException("bad rows"));
                } else {
                    c.complete(v -> v);
                }
                return c.future;
            };
            quiver.functions().register(f);
            PipelinePlan plan = Pipeline.from(SCHEMA)
                    .project("id", "g" + inFlight + "(v) AS y")
                    .options(batchOf(1000).withBatchesInFlight(inFlight))
                    .placement(Placement.CPU)
                    .plan(quiver);
            QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 3, 1000, runtime.executor()));
            try {
                ProbeFixtures.failure(q.stream().next(), "first batch");
                if (inFlight == 1) {
                    await(q.whenReleased(), "whenReleased with nothing read ahead");
                    assertEquals(0, allocator.getAllocatedMemory());
                }
            } finally {
                q.close();
                assertZeroLeftAfter(allocator, q.whenReleased());
            }
        }
    }
}
