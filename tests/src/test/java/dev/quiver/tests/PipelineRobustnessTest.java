package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.SCHEMA;
import static dev.quiver.tests.ProbeFixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.Placement;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.stream.AsyncFunctionException;
import dev.quiver.stream.AsyncOptions;
import dev.quiver.stream.BatchStream;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.stream.RetryPolicy;
import dev.quiver.tests.ProbeFixtures.Call;
import dev.quiver.tests.ProbeFixtures.Probe;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Pipelines at their edges (schema metadata, close failures, long streams, stuck calls, shared call limits): regressions found in review, each asserting the documented behaviour. */
class PipelineRobustnessTest extends QuiverTestBase {
    private QueryRuntime runtime;

    @BeforeEach
    void openRuntime() {
        runtime = QueryRuntime.create(2);
    }

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    /**
     * Regression (found in review): FilterOperator builds its output with new VectorSchemaRoot(vectors), which drops the
     * schema's custom metadata; the async operator above it checks Schema.equals (metadata
     * included) in BatchCoalescer.push, so the query fails on its first batch.
     */
    @Test
    void inputSchemaWithMetadataAndCheapConjunctBeforeAsyncCall() throws Exception {
        Schema withMeta = new Schema(SCHEMA.getFields(), Map.of("origin", "file.arrow"));
        Probe f = new Probe("times_ten", 0, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(withMeta)
                .filter("id % 2 = 0 AND times_ten(v) > 10")
                .placement(Placement.CPU)
                .plan(quiver);
        BatchStream source = BatchStreams.generate(
                withMeta,
                2,
                i -> {
                    VectorSchemaRoot b = ProbeFixtures.batch(allocator, i * 100L, 100);
                    VectorSchemaRoot m = new VectorSchemaRoot(withMeta, b.getFieldVectors(), b.getRowCount());
                    return m;
                },
                runtime.executor());
        try (QueryExecution q = plan.execute(runtime, source)) {
            long rows = await(BatchStreams.forEach(q.stream(), b -> {}), "the query");
            assertEquals(99, rows); // even ids in [0, 200) with v*10 > 10: 0 fails, 2..198 pass
        }
    }

    /** Regression (found in review): the async operator's output keeps the input's metadata but its declared schema does not. */
    @Test
    void asyncOperatorOutputSchemaMatchesDeclaredSchema() throws Exception {
        Schema withMeta = new Schema(SCHEMA.getFields(), Map.of("origin", "file.arrow"));
        Probe f = new Probe("times_ten", 0, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        // Nested call: two async operators, the second's coalescer checks the first's output schema.
        PipelinePlan plan = Pipeline.from(withMeta)
                .project("id", "times_ten(times_ten(v)) AS y")
                .placement(Placement.CPU)
                .plan(quiver);
        BatchStream source = BatchStreams.generate(
                withMeta,
                1,
                i -> {
                    VectorSchemaRoot b = ProbeFixtures.batch(allocator, 0, 100);
                    return new VectorSchemaRoot(withMeta, b.getFieldVectors(), b.getRowCount());
                },
                runtime.executor());
        try (QueryExecution q = plan.execute(runtime, source)) {
            long rows = await(BatchStreams.forEach(q.stream(), b -> {}), "the query");
            assertEquals(100, rows);
        }
    }

    /** An iterator source whose close() throws (as an ArrowReader whose channel fails to close). */
    static final class ThrowingCloseSource implements Iterator<VectorSchemaRoot>, AutoCloseable {
        final BufferAllocator allocator;
        final int count;
        int i;

        ThrowingCloseSource(BufferAllocator allocator, int count) {
            this.allocator = allocator;
            this.count = count;
        }

        @Override
        public boolean hasNext() {
            return i < count;
        }

        @Override
        public VectorSchemaRoot next() {
            return ProbeFixtures.batch(allocator, 100L * i++, 100);
        }

        @Override
        public void close() throws Exception {
            throw new IOException("close failed");
        }
    }

    /** Regression (found in review): BatchStreams.pull calls stream.close() before completing `done`; a close that throws loses the completion. */
    @Test
    void forEachCompletesEvenWhenClosingTheStreamThrows() throws Exception {
        PipelinePlan plan =
                Pipeline.from(SCHEMA).project("id").placement(Placement.CPU).plan(quiver);
        QueryExecution q = plan.execute(
                runtime, BatchStreams.fromIterator(SCHEMA, new ThrowingCloseSource(allocator, 3), runtime.executor()));
        CompletableFuture<Long> done = BatchStreams.forEach(q.stream(), b -> {});
        try {
            done.get(5, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            fail("forEach never completed: the end of the stream was lost when close() threw");
        } catch (ExecutionException e) {
            // failing is fine; hanging is not
        }
    }

    /** Regression (found in review): LimitOperator closes its input before handing the batch on; a close that throws leaks the batch. */
    @Test
    void limitLeaksItsBatchWhenClosingTheInputThrows() throws Exception {
        PipelinePlan plan =
                Pipeline.from(SCHEMA).limit(100).placement(Placement.CPU).plan(quiver);
        QueryExecution q = plan.execute(
                runtime, BatchStreams.fromIterator(SCHEMA, new ThrowingCloseSource(allocator, 3), runtime.executor()));
        CompletableFuture<VectorSchemaRoot> next = q.stream().next();
        try {
            VectorSchemaRoot b = next.get(5, TimeUnit.SECONDS);
            b.close();
        } catch (ExecutionException e) {
            // the close failure surfaces as the batch's failure; the batch itself must not leak
        }
        q.close();
        assertEquals(0, allocator.getAllocatedMemory(), "the limit's batch leaked when input.close() threw");
    }

    /** A synchronous function that blocks the worker until released (a slow CPU step). */
    static final class Blocking implements ScalarFunction {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String name() {
            return "slow_cpu";
        }

        @Override
        public Signature signature() {
            return Signature.exact(List.of(DataType.FLOAT64), Volatility.VOLATILE);
        }

        @Override
        public DataType returnType(List<DataType> argTypes) {
            return DataType.FLOAT64;
        }

        @Override
        public ColumnarValue invoke(ScalarFunctionArgs args) {
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int n = args.numberRows();
            Float8Vector out =
                    new Float8Vector(args.returnField(), args.config().allocator());
            out.allocateNew(n);
            for (int i = 0; i < n; i++) {
                out.set(i, i);
            }
            out.setValueCount(n);
            return new ColumnarValue.Array(out);
        }
    }

    /**
     * Regression (found in review): whenReleased() counts async calls only; a projection (or filter, or assembly) that
     * is running on a worker when the query is closed still holds buffers after whenReleased()
     * completed, although its javadoc promises every buffer freed.
     */
    @Test
    void whenReleasedWaitsForCpuWorkInFlight() throws Exception {
        Blocking slow = new Blocking();
        quiver.functions().register(slow);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("x + 1 AS a", "slow_cpu(v) AS b")
                .placement(Placement.CPU)
                .plan(quiver);
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 1, 1000, runtime.executor()));
        CompletableFuture<VectorSchemaRoot> next = q.stream().next();
        assertTrue(slow.entered.await(10, TimeUnit.SECONDS));
        q.close();
        CompletableFuture<Void> released = q.whenReleased();
        assertFalse(released.isDone(), "whenReleased() completed while a projection was still running");
        // The moment whenReleased() completes, nothing may be left.
        CompletableFuture<Long> left = released.thenApply(v -> allocator.getAllocatedMemory());
        slow.release.countDown();
        try {
            next.get(5, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // cancelled
        }
        await(released, "whenReleased");
        assertEquals(0L, left.get(5, TimeUnit.SECONDS), "bytes still allocated when whenReleased() completed");
    }

    /**
     * Regression (found in review): the runtime's limiter is keyed by (function, permits): queries that set different
     * AsyncOptions.maxConcurrentCalls get separate limiters, so the function sees the sum.
     */
    @Test
    void theCallBoundHoldsAcrossQueriesOfTheRuntime() throws Exception {
        Probe f = new Probe("held", 10, 2); // its own bound: 2 in flight
        quiver.functions().register(f);
        PipelinePlan a = Pipeline.from(SCHEMA)
                .project("held(v) AS y")
                .placement(Placement.CPU)
                .plan(quiver);
        PipelinePlan b = Pipeline.from(SCHEMA)
                .project("held(v) AS y")
                .options(AsyncOptions.defaults().withMaxConcurrentCalls(2)) // the same bound, spelled out...
                .placement(Placement.CPU)
                .plan(quiver);
        PipelinePlan c = Pipeline.from(SCHEMA)
                .project("held(v) AS y")
                .options(AsyncOptions.defaults().withMaxConcurrentCalls(3)) // ...and a query that asks for 3
                .placement(Placement.CPU)
                .plan(quiver);
        List<QueryExecution> qs = new ArrayList<>();
        List<CompletableFuture<Long>> runs = new ArrayList<>();
        for (PipelinePlan p : List.of(a, b, c)) {
            QueryExecution q = p.execute(runtime, ProbeFixtures.source(allocator, 1, 100, runtime.executor()));
            qs.add(q);
            runs.add(BatchStreams.forEach(q.stream(), x -> {}));
        }
        List<Call> held = new ArrayList<>();
        Call call;
        while ((call = f.poll(1000)) != null) {
            held.add(call);
        }
        int inFlight = held.size();
        for (QueryExecution q : qs) {
            q.close();
        }
        for (Call h : held) {
            h.fail(new RuntimeException("done"));
        }
        for (QueryExecution q : qs) {
            await(q.whenReleased(), "whenReleased");
        }
        assertTrue(inFlight <= 3, "calls of 'held' in flight at once across the runtime: " + inFlight);
    }

    /**
     * Regression (found in review): forEach recurses through whenComplete; over a stream whose next() completes at once
     * (a synchronous source, a user BatchStream) the stack overflows inside a completion callback,
     * the error is swallowed, and the future never completes.
     */
    @Test
    void forEachOverASynchronousStreamDoesNotHang() throws Exception {
        AtomicInteger made = new AtomicInteger();
        int count = 200_000;
        Schema s = SCHEMA;
        VectorSchemaRoot empty = VectorSchemaRoot.create(s, allocator);
        empty.close();
        BatchStream sync = BatchStreams.fromIterator(
                s,
                new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return made.get() < count;
                    }

                    @Override
                    public VectorSchemaRoot next() {
                        made.incrementAndGet();
                        VectorSchemaRoot b = VectorSchemaRoot.create(s, allocator);
                        b.setRowCount(0);
                        return b;
                    }
                },
                Runnable::run);
        CompletableFuture<Long> done = BatchStreams.forEach(sync, b -> {});
        try {
            assertEquals(0L, done.get(20, TimeUnit.SECONDS));
        } catch (TimeoutException e) {
            fail("forEach hung after " + made.get() + " of " + count + " batches");
        }
    }

    /** Regression (found in review): a filter whose predicate is not Boolean passes plan() and fails only on the first batch. */
    @Test
    void aNonBooleanFilterIsAPlanningError() {
        try {
            Pipeline.from(SCHEMA).filter("x + 1").placement(Placement.CPU).plan(quiver);
        } catch (PlanningException expected) {
            return;
        }
        fail("plan() accepted filter(\"x + 1\")");
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            Runtime r = Runtime.getRuntime();
            best = Math.min(best, r.totalMemory() - r.freeMemory());
        }
        return best;
    }

    /**
     * Regression (found in review): FilterOperator answers an empty batch with `return produce()` inside thenComposeAsync;
     * every empty batch adds a future (and a relay) to a chain that lives until a row survives, so
     * a long run of batches with no surviving row grows the heap without bound.
     */
    @Test
    void aLongRunOfEmptyFilterOutputsKeepsTheHeapBounded() throws Exception {
        int n1 = 10_000;
        int n2 = 130_000;
        CountDownLatch at1 = new CountDownLatch(1);
        CountDownLatch go1 = new CountDownLatch(1);
        CountDownLatch at2 = new CountDownLatch(1);
        CountDownLatch go2 = new CountDownLatch(1);
        AtomicInteger made = new AtomicInteger();
        Iterator<VectorSchemaRoot> it = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return made.get() <= n2;
            }

            @Override
            public VectorSchemaRoot next() {
                int i = made.getAndIncrement();
                try {
                    if (i == n1) {
                        at1.countDown();
                        go1.await();
                    } else if (i == n2) {
                        at2.countDown();
                        go2.await();
                    }
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                // id = -1 (filtered out) except the very last batch
                return ProbeFixtures.batch(allocator, i == n2 ? 0 : -1000, 1);
            }
        };
        PipelinePlan plan =
                Pipeline.from(SCHEMA).filter("id >= 0").placement(Placement.CPU).plan(quiver);
        QueryExecution q = plan.execute(runtime, BatchStreams.fromIterator(SCHEMA, it, runtime.executor()));
        CompletableFuture<Long> done = BatchStreams.forEach(q.stream(), b -> {});
        assertTrue(at1.await(60, TimeUnit.SECONDS));
        long h1 = usedHeapAfterGc();
        go1.countDown();
        assertTrue(at2.await(120, TimeUnit.SECONDS));
        long h2 = usedHeapAfterGc();
        go2.countDown();
        assertEquals(1L, done.get(60, TimeUnit.SECONDS));
        q.close();
        long grown = h2 - h1;
        System.out.println("heap grown over " + (n2 - n1) + " empty filter outputs: " + grown + " bytes ("
                + (grown / (double) (n2 - n1)) + " per batch)");
        assertTrue(
                grown < 4_000_000,
                "heap grew by " + grown + " bytes over " + (n2 - n1) + " batches with no surviving row");
    }

    @Test
    void outputBatchesHaveTheDeclaredSchema() throws Exception {
        Schema nn = new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                SCHEMA.getFields().get(1),
                SCHEMA.getFields().get(2)));
        Probe f = new Probe("times_ten", 0, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        for (String[] cols :
                List.of(new String[] {"id", "v"}, new String[] {"id", "v", "times_ten(v) AS y"}, new String[] {
                    "id + 1 AS z", "v"
                })) {
            PipelinePlan plan = Pipeline.from(nn)
                    .project(cols)
                    .project("times_ten(v) AS w", cols[0].contains(" AS ") ? "z" : "id")
                    .placement(Placement.CPU)
                    .plan(quiver);
            BatchStream source = BatchStreams.generate(
                    nn,
                    1,
                    i -> {
                        VectorSchemaRoot b = ProbeFixtures.batch(allocator, 0, 10);
                        BigIntVector id = new BigIntVector(nn.getFields().get(0), allocator);
                        b.getVector(0).makeTransferPair(id).transfer();
                        b.getVector(0).close();
                        return new VectorSchemaRoot(nn.getFields(), List.of(id, b.getVector(1), b.getVector(2)), 10);
                    },
                    runtime.executor());
            try (QueryExecution q = plan.execute(runtime, source)) {
                List<Schema> seen = new ArrayList<>();
                await(
                        BatchStreams.forEach(q.stream(), b -> seen.add(b.getSchema())),
                        "the query " + String.join(",", cols));
                for (Schema got : seen) {
                    assertEquals(q.schema(), got, "for " + String.join(", ", cols));
                }
            }
        }
    }

    /**
     * Regression (found in review): BatchRun.fail treats any CancellationException as the query's own cancellation, so a
     * call whose future the remote client cancels (its own timeout, a dropped exchange) fails the
     * query with a bare CancellationException that names neither the function nor the rows.
     */
    @Test
    void aCallCancelledByTheClientFailsTheQueryNamingTheFunction() throws Exception {
        Probe f = new Probe("remote", 100, 4);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "remote(v) AS y")
                .placement(Placement.CPU)
                .plan(quiver);
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 1, 200, runtime.executor()));
        try {
            CompletableFuture<VectorSchemaRoot> next = q.stream().next();
            List<Call> calls = f.takeWired(2);
            calls.get(0).complete(v -> v);
            calls.get(1).future.cancel(false); // the client library gave up on this exchange
            Throwable t = ProbeFixtures.failure(next, "the batch");
            ProbeFixtures.causeOf(t, AsyncFunctionException.class);
        } finally {
            q.close();
        }
        ProbeFixtures.assertZeroLeftAfter(allocator, q.whenReleased());
    }

    private List<List<Object>> rows(PipelinePlan plan, BatchStream source) throws Exception {
        List<List<Object>> out = new ArrayList<>();
        try (QueryExecution q = plan.execute(runtime, source)) {
            await(
                    BatchStreams.forEach(q.stream(), b -> {
                        for (int r = 0; r < b.getRowCount(); r++) {
                            List<Object> row = new ArrayList<>();
                            for (var v : b.getFieldVectors()) {
                                row.add(v.getObject(r));
                            }
                            out.add(row);
                        }
                    }),
                    "the query");
            q.close();
            ProbeFixtures.assertZeroLeftAfter(allocator, q.whenReleased());
        }
        return out;
    }

    @Test
    void planningEdgeCasesGiveTheRightRows() throws Exception {
        Probe t10 = new Probe("times_ten", 7, 3).answering(v -> v * 10);
        Probe p1 = new Probe("plus_one", 5, 2).answering(v -> v + 1);
        quiver.functions().register(t10);
        quiver.functions().register(p1);
        // an input column that looks like a lifted column
        Schema clash = new Schema(List.of(
                SCHEMA.getFields().get(0),
                SCHEMA.getFields().get(1),
                new Field("__quiver_async_0", SCHEMA.getFields().get(2).getFieldType(), null)));
        PipelinePlan plan = Pipeline.from(clash)
                .filter(
                        "id % 3 <> 1 AND plus_one(times_ten(__quiver_async_0)) > 20 AND times_ten(__quiver_async_0) < 900")
                .project(
                        "id",
                        "__quiver_async_0 AS raw",
                        "plus_one(times_ten(__quiver_async_0)) + times_ten(__quiver_async_0) AS s")
                .limit(17)
                .project("id", "raw", "s", "plus_one(s) AS t")
                .options(AsyncOptions.defaults().withBatchSize(11))
                .placement(Placement.CPU)
                .plan(quiver);
        BatchStream src = BatchStreams.generate(
                clash,
                13,
                i -> {
                    VectorSchemaRoot b = ProbeFixtures.batch(allocator, i * 9L, 9);
                    VectorSchemaRoot c = VectorSchemaRoot.create(clash, allocator);
                    for (int k = 0; k < 3; k++) {
                        b.getVector(k).makeTransferPair(c.getVector(k)).transfer();
                    }
                    c.setRowCount(9);
                    b.close();
                    return c;
                },
                runtime.executor());
        List<List<Object>> got = rows(plan, src);
        List<List<Object>> want = new ArrayList<>();
        for (long r = 0; r < 13 * 9 && want.size() < 17; r++) {
            double v = r;
            if (r % 3 != 1 && v * 10 + 1 > 20 && v * 10 < 900) {
                double sv = v * 10 + 1 + v * 10;
                want.add(List.of(r, v, sv, sv + 1));
            }
        }
        assertEquals(want, got);
    }

    @Test
    void limitZeroAndEmptySourceBatches() throws Exception {
        Probe t10 = new Probe("times_ten", 0, 3).answering(v -> v * 10);
        quiver.functions().register(t10);
        PipelinePlan zero = Pipeline.from(SCHEMA)
                .project("id", "times_ten(v) AS y")
                .limit(0)
                .placement(Placement.CPU)
                .plan(quiver);
        assertEquals(List.of(), rows(zero, ProbeFixtures.source(allocator, 3, 10, runtime.executor())));
        assertEquals(0, t10.calls.size());
        PipelinePlan p = Pipeline.from(SCHEMA)
                .project("id", "times_ten(v) AS y")
                .limit(5)
                .placement(Placement.CPU)
                .plan(quiver);
        BatchStream src = BatchStreams.generate(
                SCHEMA, 6, i -> ProbeFixtures.batch(allocator, i, i % 2 == 0 ? 0 : 1), runtime.executor());
        assertEquals(List.of(List.of(1L, 10.0), List.of(3L, 30.0), List.of(5L, 50.0)), rows(p, src));
    }

    @Test
    void randomCancellationStress() throws Exception {
        Random rnd = new Random(42);
        // random delay per call, sometimes failing
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
                // Not supplyAsync: it drops (leaks) its value when the future is cancelled while the supplier runs.
                CompletableFuture<ColumnarValue> out = new CompletableFuture<>();
                CompletableFuture.delayedExecutor(d, TimeUnit.MILLISECONDS).execute(() -> {
                    if (out.isDone()) {
                        return;
                    }
                    if (failIt) {
                        out.completeExceptionally(new RuntimeException("boom"));
                        return;
                    }
                    ColumnarValue v = new ColumnarValue.Array(ProbeFixtures.vector(
                            args.returnField(), args.config().allocator(), vals, x -> x * 2));
                    if (!out.complete(v)) {
                        v.close();
                    }
                });
                return out;
            }
        };
        quiver.functions().register(g);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .filter("id % 5 <> 0 AND jit(v) > 3")
                .project("id", "jit(v) + jit(x) AS y")
                .limit(500)
                .options(AsyncOptions.defaults()
                        .withBatchSize(64)
                        .withRetry(RetryPolicy.attempts(2)
                                .retryingOn(t -> true)
                                .withBackoff(Duration.ofMillis(1), 1, Duration.ofMillis(1))))
                .placement(Placement.CPU)
                .plan(quiver);
        for (int iter = 0; iter < 300; iter++) {
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
            if (rnd.nextBoolean()) {
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
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (allocator.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(0, allocator.getAllocatedMemory(), "iteration " + iter + " leaked");
        }
    }

    /**
     * Regression (found in review): a timed-out call keeps its permit until its future completes; the permit wait has no
     * timeout, so with a call that ignores cancellation the retry (or any other query's call) waits
     * for ever and the query neither finishes nor fails.
     */
    @Test
    void aRetryAfterATimeoutDoesNotWaitForEverForThePermit() throws Exception {
        Probe f = new Probe("stuck", 0, 1);
        f.futures = ProbeFixtures.StubbornFuture::new;
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("stuck(v) AS y")
                .options(AsyncOptions.defaults()
                        .withCallTimeout(Duration.ofMillis(100))
                        .withRetry(
                                RetryPolicy.attempts(2).withBackoff(Duration.ofMillis(10), 1, Duration.ofMillis(10))))
                .placement(Placement.CPU)
                .plan(quiver);
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 1, 10, runtime.executor()));
        try {
            CompletableFuture<VectorSchemaRoot> next = q.stream().next();
            f.takeWired();
            try {
                next.get(5, TimeUnit.SECONDS);
                fail("expected a failure");
            } catch (ExecutionException expected) {
                // the retry ran or the query failed: fine
            } catch (TimeoutException e) {
                fail(
                        "neither the retry nor a failure within 5 s of a 100 ms timeout: the retry waits for the stuck call's permit ("
                                + f.calls.size() + " call(s) made)");
            }
        } finally {
            q.close();
            for (Call c : f.calls) {
                c.fail(new RuntimeException("finally"));
            }
            q.whenReleased().get(5, TimeUnit.SECONDS);
        }
    }

    /**
     * Regression (found in review): fromReader rebuilds each batch with new VectorSchemaRoot(fields, ...), dropping the
     * schema metadata the reader's schema (the stream's declared schema) has, and IteratorStream then
     * rejects the batch. Files written by pyarrow/pandas always carry schema metadata.
     */
    @Test
    void fromReaderReadsAFileWhoseSchemaHasMetadata() throws Exception {
        Schema withMeta = new Schema(SCHEMA.getFields(), Map.of("pandas", "{}"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(withMeta, allocator);
                var writer = new ArrowStreamWriter(root, null, bytes)) {
            writer.start();
            VectorSchemaRoot b = ProbeFixtures.batch(allocator, 0, 10);
            for (int k = 0; k < 3; k++) {
                b.getVector(k).makeTransferPair(root.getVector(k)).transfer();
            }
            root.setRowCount(10);
            b.close();
            writer.writeBatch();
            writer.end();
        }
        var reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
        PipelinePlan plan =
                Pipeline.from(withMeta).project("id").placement(Placement.CPU).plan(quiver);
        try (QueryExecution q = plan.execute(runtime, BatchStreams.fromReader(reader, runtime.executor()))) {
            assertEquals(10L, await(BatchStreams.forEach(q.stream(), b -> {}), "the query"));
        }
    }
}
