package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.SCHEMA;
import static dev.quiver.tests.ProbeFixtures.assertContains;
import static dev.quiver.tests.ProbeFixtures.assertZeroLeftAfter;
import static dev.quiver.tests.ProbeFixtures.await;
import static dev.quiver.tests.ProbeFixtures.causeOf;
import static dev.quiver.tests.ProbeFixtures.doubles;
import static dev.quiver.tests.ProbeFixtures.failure;
import static dev.quiver.tests.ProbeFixtures.longs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Placement;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.stream.AsyncCallMetrics;
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
import dev.quiver.tests.ProbeFixtures.CountingSource;
import dev.quiver.tests.ProbeFixtures.Probe;
import dev.quiver.tests.ProbeFixtures.StubbornFuture;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.LongStream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Async functions that fail, misbehave, time out, are retried or are cancelled: the query fails
 * with a message that names the function and the rows, the other calls are cancelled, and no
 * buffer is left behind.
 */
class AsyncFailureTest extends QuiverTestBase {
    private QueryRuntime runtime;

    @BeforeEach
    void openRuntime() {
        runtime = QueryRuntime.create(2);
    }

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private PipelinePlan plan(String expr, AsyncOptions options) {
        return Pipeline.from(SCHEMA)
                .project("id", expr + " AS y")
                .options(options)
                .placement(Placement.CPU)
                .plan(quiver);
    }

    private static AsyncOptions batchOf(int rows) {
        return AsyncOptions.defaults().withBatchSize(rows);
    }

    /** The y column of a run over {@code batches} batches of {@code rows} rows, checking the ids; or the failure. */
    private Object run(PipelinePlan plan, int batches, int rows) throws Exception {
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, batches, rows, runtime.executor()));
        try {
            List<Long> ids = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            CompletableFuture<Long> done = BatchStreams.forEach(q.stream(), b -> {
                ids.addAll(longs(b, "id"));
                ys.addAll(doubles(b, "y"));
            });
            try {
                done.get(ProbeFixtures.WAIT_S, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                return ProbeFixtures.unwrap(e);
            } catch (TimeoutException e) {
                throw new AssertionError(
                        "the query neither ended nor failed within " + ProbeFixtures.WAIT_S + " s (it hung)");
            }
            for (int i = 0; i < ids.size(); i++) {
                assertEquals((long) i, ids.get(i), "row order");
            }
            assertEquals((long) batches * rows, ids.size());
            return ys;
        } finally {
            q.close();
            assertZeroLeftAfter(allocator, q.whenReleased());
        }
    }

    private static AsyncFunctionException asyncFailure(Object result) {
        assertInstanceOf(Throwable.class, result, "expected the query to fail");
        return causeOf((Throwable) result, AsyncFunctionException.class);
    }

    @SuppressWarnings("unchecked")
    private static List<Double> values(Object result) {
        if (result instanceof Throwable t) {
            throw new AssertionError("expected values, the query failed: " + t, t);
        }
        return (List<Double>) result;
    }

    // ------------------------------------------------------------------ one chunk fails

    @Test
    void aFailedChunkFailsTheQueryNamingItsRowsAndCancelsTheOtherChunks() throws Exception {
        Probe f = new Probe("flaky", 100, 10);
        f.respond = c -> {
            if (c.first() < 1000) {
                c.complete(v -> v * 10); // the first batch succeeds
            }
            return c.future; // the second batch's calls are held
        };
        quiver.functions().register(f);
        QueryExecution q = plan("flaky(v)", batchOf(1000))
                .execute(runtime, ProbeFixtures.source(allocator, 2, 1000, runtime.executor()));
        try {
            BatchStream s = q.stream();
            try (VectorSchemaRoot b = await(s.next(), "first batch")) {
                assertEquals(1000, b.getRowCount());
                List<Double> y = doubles(b, "y");
                for (int r = 0; r < 1000; r++) {
                    assertEquals(r * 10.0, y.get(r), "row " + r);
                }
            }
            // The first batch's 10 calls and the second batch's 10, read ahead: they may come in any order.
            List<Call> all = f.take(20);
            List<Call> first = all.subList(0, 10);
            assertEquals(0.0, first.getFirst().first());
            assertTrue(first.getLast().first() < 1000);
            CompletableFuture<VectorSchemaRoot> second = s.next();
            List<Call> pending = new ArrayList<>(all.subList(10, 20));
            for (Call c : pending) {
                c.awaitWired();
            }
            for (int i = 0; i < 10; i++) {
                assertEquals(1000 + 100 * i, pending.get(i).first(), "chunk " + i + " of the second batch");
                assertEquals(100, pending.get(i).rows());
            }
            Call bad = pending.get(3);
            assertTrue(bad.fail(new IOException("connection reset by peer")));

            AsyncFunctionException e = causeOf(failure(second, "the second batch"), AsyncFunctionException.class);
            assertContains(e.getMessage(), "'flaky'", "[1300, 1400)", "connection reset by peer", "after 1 attempt");
            assertEquals("flaky", e.function());
            assertEquals(1300, e.firstRow());
            assertEquals(1400, e.endRow());
            assertInstanceOf(IOException.class, e.getCause());
            for (Call c : pending) {
                if (c != bad) {
                    assertTrue(c.future.isCancelled(), "the call at row " + c.first() + " was not cancelled");
                }
            }
            AsyncCallMetrics m = q.asyncMetrics().getFirst();
            assertEquals(20, m.calls());
            assertEquals(1, m.failures());
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
        assertNull(f.poll(20), "a call after the query failed");
    }

    // ------------------------------------------------------------------ contract violations

    @Test
    void aSynchronousThrowFromInvokeAsyncFailsTheQuery() throws Exception {
        Probe f = new Probe("remote", 0, 4);
        f.respond = c -> {
            throw new IllegalStateException("client not configured");
        };
        quiver.functions().register(f);
        AsyncFunctionException e = asyncFailure(run(plan("remote(v)", batchOf(1000)), 1, 300));
        assertContains(e.getMessage(), "'remote'", "[0, 300)", "client not configured");
        assertEquals(1, f.calls.size());
    }

    @Test
    void invokeAsyncReturningNullFailsTheQuery() throws Exception {
        Probe f = new Probe("remote", 0, 4);
        f.respond = c -> null;
        quiver.functions().register(f);
        AsyncFunctionException e = asyncFailure(run(plan("remote(v)", batchOf(1000)), 1, 300));
        assertContains(e.getMessage(), "'remote'", "[0, 300)", "invokeAsync returned null");
    }

    @Test
    void aFutureOfNullFailsTheQuery() throws Exception {
        Probe f = new Probe("remote", 0, 4);
        f.respond = c -> CompletableFuture.completedFuture(null);
        quiver.functions().register(f);
        AsyncFunctionException e = asyncFailure(run(plan("remote(v)", batchOf(1000)), 1, 300));
        assertContains(e.getMessage(), "'remote'", "[0, 300)", "returned null instead of a value");
    }

    @Test
    void aResultWithTheWrongNumberOfRowsFailsTheQuery() throws Exception {
        Probe f = new Probe("remote", 100, 4);
        f.respond = c -> {
            Float8Vector out = ProbeFixtures.vector(
                    c.args.returnField(),
                    c.args.config().allocator(),
                    c.values.subList(0, c.rows() - (c.first() == 200 ? 1 : 0)),
                    v -> v);
            c.future.complete(new ColumnarValue.Array(out));
            return c.future;
        };
        quiver.functions().register(f);
        AsyncFunctionException e = asyncFailure(run(plan("remote(v)", batchOf(1000)), 1, 300));
        assertContains(e.getMessage(), "'remote'", "[200, 300)", "returned 99 rows for a call of 100 rows");
    }

    @Test
    void aResultOfTheWrongTypeFailsTheQuery() throws Exception {
        Probe f = new Probe("remote", 0, 4);
        f.respond = c -> {
            BigIntVector out = new BigIntVector("y", c.args.config().allocator());
            out.allocateNew(c.rows());
            for (int i = 0; i < c.rows(); i++) {
                out.set(i, i);
            }
            out.setValueCount(c.rows());
            c.future.complete(new ColumnarValue.Array(out));
            return c.future;
        };
        quiver.functions().register(f);
        AsyncFunctionException e = asyncFailure(run(plan("remote(v)", batchOf(1000)), 1, 300));
        assertContains(e.getMessage(), "'remote'", "[0, 300)", "planned to return");
    }

    @Test
    void aScalarResultIsBroadcastToTheCallsRows() throws Exception {
        Probe f = new Probe("remote", 100, 4);
        f.respond = c -> CompletableFuture.completedFuture(
                c.first() == 100
                        ? new ColumnarValue.Scalar(ScalarValue.nullOf(DataType.FLOAT64))
                        : ColumnarValue.scalar(DataType.FLOAT64, 42.5));
        quiver.functions().register(f);
        List<Double> y = values(run(plan("remote(v)", batchOf(1000)), 1, 300));
        for (int r = 0; r < 300; r++) {
            assertEquals(r >= 100 && r < 200 ? null : 42.5, y.get(r), "row " + r);
        }
        assertEquals(3, f.calls.size());
    }

    @Test
    void aScalarOfTheWrongTypeFailsTheQuery() throws Exception {
        Probe f = new Probe("remote", 0, 4);
        f.respond = c -> CompletableFuture.completedFuture(ColumnarValue.scalar(DataType.UTF8, "42"));
        quiver.functions().register(f);
        AsyncFunctionException e = asyncFailure(run(plan("remote(v)", batchOf(1000)), 1, 300));
        assertContains(e.getMessage(), "'remote'", "[0, 300)", "returned a scalar of");
    }

    /** The function hands back its argument's vector, marked borrowed: the pipeline copies it. */
    @ParameterizedTest(name = "{0}, {1} rows per call")
    @CsvSource({"remote(v), 0, 0", "remote(v), 100, 0", "remote(v + 0.5), 0, 0.5", "remote(v + 0.5), 100, 0.5"})
    void aBorrowedArgumentHandedBackIsCopied(String expr, int ideal, double plus) throws Exception {
        Probe f = new Probe("remote", ideal, 4);
        f.respond = c -> CompletableFuture.completedFuture(
                ColumnarValue.Array.borrowed(((ColumnarValue.Array) c.args.arg(0)).vector()));
        quiver.functions().register(f);
        List<Double> y = values(run(plan(expr, batchOf(1000)), 2, 300));
        for (int r = 0; r < 600; r++) {
            assertEquals(r + plus, y.get(r), "row " + r);
        }
    }

    /**
     * The function hands back the argument value object itself, against the contract (the
     * arguments are borrowed). A plain column argument of a one-call batch is a borrowed column
     * of the batch: it is copied.
     */
    @Test
    void aBorrowedColumnArgumentHandedBackItselfIsCopied() throws Exception {
        handsBackTheArgumentItself("remote(v)", 0, 0);
    }

    /**
     * As above, but the argument is an owned array (a slice for a chunk, or a computed
     * expression): either the right values or a clear error, never a freed vector.
     */
    @ParameterizedTest(name = "{0}, {1} rows per call")
    @CsvSource({"remote(v), 100, 0", "remote(v + 0.5), 0, 0.5", "remote(v + 0.5), 100, 0.5"})
    void anOwnedArgumentHandedBackItselfIsEitherCopiedOrAClearError(String expr, int ideal, double plus)
            throws Exception {
        handsBackTheArgumentItself(expr, ideal, plus);
    }

    private void handsBackTheArgumentItself(String expr, int ideal, double plus) throws Exception {
        Probe f = new Probe("remote", ideal, 4);
        f.respond = c -> CompletableFuture.completedFuture(c.args.arg(0));
        quiver.functions().register(f);
        Object result = run(plan(expr, batchOf(1000)), 2, 300);
        if (result instanceof Throwable t) {
            AsyncFunctionException e = causeOf(t, AsyncFunctionException.class);
            assertContains(e.getMessage(), "'remote'", "argument");
            return;
        }
        List<Double> y = values(result);
        for (int r = 0; r < 600; r++) {
            assertEquals(r + plus, y.get(r), "row " + r);
        }
    }

    // ------------------------------------------------------------------ timeouts

    @Test
    void aCallThatNeverCompletesTimesOut() throws Exception {
        Probe f = new Probe("hang", 0, 4); // holds every call
        quiver.functions().register(f);
        QueryExecution q = plan("hang(v)", batchOf(1000).withCallTimeout(Duration.ofMillis(100)))
                .execute(runtime, ProbeFixtures.source(allocator, 1, 300, runtime.executor()));
        try {
            long t0 = System.nanoTime();
            AsyncFunctionException e = causeOf(failure(q.stream().next(), "the batch"), AsyncFunctionException.class);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertContains(e.getMessage(), "'hang'", "[0, 300)", "timeout of 100 ms");
            assertInstanceOf(TimeoutException.class, e.getCause());
            assertTrue(ms >= 95, "failed after " + ms + " ms, before the timeout");
            Call c = f.calls.getFirst();
            assertTrue(c.future.isCancelled(), "the timed-out call's future was not cancelled");
            AsyncCallMetrics m = q.asyncMetrics().getFirst();
            assertEquals(1, m.calls());
            assertEquals(1, m.timeouts());
            assertEquals(1, m.failures());
            assertEquals(0, m.retries());
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void aLateResultAfterTheTimeoutIsFreed() throws Exception {
        Probe f = new Probe("hang", 100, 4);
        f.futures = StubbornFuture::new; // cancelling does not stop it: its result arrives anyway
        quiver.functions().register(f);
        QueryExecution q = plan("hang(v)", batchOf(1000).withCallTimeout(Duration.ofMillis(100)))
                .execute(runtime, ProbeFixtures.source(allocator, 1, 200, runtime.executor()));
        List<Call> calls;
        try {
            CompletableFuture<VectorSchemaRoot> next = q.stream().next();
            calls = f.takeWired(2);
            AsyncFunctionException e = causeOf(failure(next, "the batch"), AsyncFunctionException.class);
            assertContains(e.getMessage(), "'hang'", "timeout of 100 ms");
            for (Call c : calls) {
                assertTrue(
                        ((StubbornFuture<?>) c.future).cancelAsked.get(),
                        "the call at row " + c.first() + " was not cancelled");
            }
            assertFalse(q.whenReleased().isDone(), "released while two calls are still outstanding");
        } finally {
            q.close();
        }
        assertFalse(q.whenReleased().isDone(), "released while two calls are still outstanding");
        for (Call c : calls) {
            assertTrue(
                    c.future.complete(new ColumnarValue.Array(c.result(v -> v * 10))),
                    "the stubborn future took its late result");
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    /**
     * whenReleased() promises that every buffer is freed once it completes: a result that arrives
     * after the query was closed must be freed before, not after, the execution counts its call
     * as ended.
     */
    @Test
    void whenReleasedCompletesOnlyOnceALateResultIsFreed() throws Exception {
        Probe f = new Probe("hang", 0, 4);
        f.futures = StubbornFuture::new;
        quiver.functions().register(f);
        QueryExecution q = plan("hang(v)", batchOf(1000))
                .execute(runtime, ProbeFixtures.source(allocator, 1, 200, runtime.executor()));
        CompletableFuture<VectorSchemaRoot> next = q.stream().next();
        Call c = f.takeWired();
        q.close();
        assertInstanceOf(CancellationException.class, failure(next, "the pending next()"));
        CompletableFuture<Long> bytesAtRelease = q.whenReleased().thenApply(v -> allocator.getAllocatedMemory());
        assertFalse(bytesAtRelease.isDone(), "released while the call is outstanding");
        c.future.complete(new ColumnarValue.Array(c.result(v -> v)));
        assertEquals(0L, await(bytesAtRelease, "whenReleased"), "bytes still allocated when whenReleased() completed");
        assertEquals(0, allocator.getAllocatedMemory());
    }

    /** The contract: arguments stay valid until the returned future completes, even once the call has timed out. */
    @Test
    void argumentsStayValidUntilALateCallCompletes() throws Exception {
        Probe f = new Probe("hang", 0, 4);
        f.futures = StubbornFuture::new;
        quiver.functions().register(f);
        QueryExecution q = plan("hang(v)", batchOf(1000).withCallTimeout(Duration.ofMillis(100)))
                .execute(runtime, ProbeFixtures.source(allocator, 1, 200, runtime.executor()));
        Call c;
        try {
            CompletableFuture<VectorSchemaRoot> next = q.stream().next();
            c = f.takeWired();
            causeOf(failure(next, "the batch"), AsyncFunctionException.class);
        } finally {
            q.close();
        }
        // The remote side answers only now, and reads its arguments as it answers.
        List<Double> late;
        try {
            late = ProbeFixtures.values(c.args.arg(0), c.rows());
        } finally {
            c.future.complete(ColumnarValue.scalar(DataType.FLOAT64, 0.0));
        }
        assertEquals(c.values, late, "the argument changed before the call completed");
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    // ------------------------------------------------------------------ retries

    /** Fails the first two attempts of every other chunk (chunks of 100 rows) with an IOException. */
    private static Probe failingTwiceOnEvenChunks() {
        Probe f = new Probe("shaky", 100, 10);
        f.respond = c -> {
            if (((long) c.first() / 100) % 2 == 0 && c.attempt <= 2) {
                c.fail(new IOException("503 on attempt " + c.attempt));
            } else {
                c.complete(v -> v * 10);
            }
            return c.future;
        };
        return f;
    }

    @Test
    void transientFailuresAreRetriedWithBackoff() throws Exception {
        Probe f = failingTwiceOnEvenChunks();
        quiver.functions().register(f);
        PipelinePlan plan = plan(
                "shaky(v)",
                batchOf(1000)
                        .withRetry(
                                RetryPolicy.attempts(3).withBackoff(Duration.ofMillis(5), 2, Duration.ofMillis(50))));
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 1, 1000, runtime.executor()));
        try {
            List<Double> y = new ArrayList<>();
            BatchStreams.drain(q.stream(), b -> y.addAll(doubles(b, "y")));
            assertEquals(1000, y.size());
            for (int r = 0; r < 1000; r++) {
                assertEquals(r * 10.0, y.get(r), "row " + r);
            }
            AsyncCallMetrics m = q.asyncMetrics().getFirst();
            assertEquals(10, m.retries(), "2 retries for each of the 5 failing chunks");
            assertEquals(20, m.calls(), "10 first attempts + 10 retries");
            assertEquals(2000, m.rowsSent());
            assertEquals(0, m.failures());
            for (int chunk = 0; chunk < 10; chunk++) {
                assertEquals(
                        chunk % 2 == 0 ? 3 : 1, f.attempts.get(chunk * 100.0).get(), "attempts of chunk " + chunk);
            }
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void aTimedOutCallIsRetried() throws Exception {
        Probe f = new Probe("sleepy", 0, 4);
        f.respond = c -> {
            if (c.attempt > 1) {
                c.complete(v -> 1000 - v); // the first attempt hangs, the second answers
            }
            return c.future;
        };
        quiver.functions().register(f);
        PipelinePlan plan = plan(
                "sleepy(v)",
                batchOf(1000)
                        .withCallTimeout(Duration.ofMillis(100))
                        .withRetry(RetryPolicy.attempts(2).withBackoff(Duration.ofMillis(1), 1, Duration.ofMillis(1))));
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 1, 300, runtime.executor()));
        try {
            List<Double> y = new ArrayList<>();
            BatchStreams.drain(q.stream(), b -> y.addAll(doubles(b, "y")));
            for (int r = 0; r < 300; r++) {
                assertEquals(1000 - r, y.get(r), "row " + r);
            }
            assertEquals(2, f.calls.size());
            assertTrue(f.calls.getFirst().future.isCancelled(), "the timed-out attempt was not cancelled");
            AsyncCallMetrics m = q.asyncMetrics().getFirst();
            assertEquals(2, m.calls());
            assertEquals(1, m.timeouts());
            assertEquals(1, m.retries());
            assertEquals(0, m.failures());
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void tooFewAttemptsFailWithTheLastFailure() throws Exception {
        Probe f = failingTwiceOnEvenChunks();
        quiver.functions().register(f);
        PipelinePlan plan = plan(
                "shaky(v)",
                batchOf(1000)
                        .withRetry(
                                RetryPolicy.attempts(2).withBackoff(Duration.ofMillis(5), 2, Duration.ofMillis(50))));
        AsyncFunctionException e = asyncFailure(run(plan, 1, 1000));
        assertContains(e.getMessage(), "'shaky'", "after 2 attempts", "503 on attempt 2");
        assertEquals(0, e.firstRow() % 200, "a failing chunk starts at an even hundred: " + e.firstRow());
        assertEquals(e.firstRow() + 100, e.endRow());
        assertEquals(2, f.attempts.get((double) e.firstRow()).get());
        assertEquals(1, f.attempts.get(100.0).get(), "a chunk that succeeded was called again");
    }

    @Test
    void aNonRetryableFailureIsNotRetried() throws Exception {
        Probe f = new Probe("picky", 0, 4);
        f.respond = c -> {
            c.fail(new IllegalStateException("400 bad request"));
            return c.future;
        };
        quiver.functions().register(f);
        QueryExecution q = plan(
                        "picky(v)",
                        batchOf(1000)
                                .withRetry(RetryPolicy.attempts(3)
                                        .withBackoff(Duration.ofMillis(1), 1, Duration.ofMillis(1))))
                .execute(runtime, ProbeFixtures.source(allocator, 1, 300, runtime.executor()));
        try {
            AsyncFunctionException e = causeOf(failure(q.stream().next(), "the batch"), AsyncFunctionException.class);
            assertContains(e.getMessage(), "'picky'", "[0, 300)", "after 1 attempt", "400 bad request");
            AsyncCallMetrics m = q.asyncMetrics().getFirst();
            assertEquals(1, m.calls());
            assertEquals(0, m.retries());
            assertEquals(1, m.failures());
            assertEquals(1, f.calls.size());
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    // ------------------------------------------------------------------ cancelling

    @Test
    void cancellingTheQueryCancelsEveryPendingCall() throws Exception {
        Probe f = new Probe("slow", 100, 4); // holds every call; at most 4 in flight
        quiver.functions().register(f);
        QueryExecution q = plan("slow(v)", batchOf(1000))
                .execute(runtime, ProbeFixtures.source(allocator, 2, 1000, runtime.executor()));
        CompletableFuture<VectorSchemaRoot> next = q.stream().next();
        List<Call> pending = f.takeWired(4);
        assertNull(f.poll(30), "a fifth call in flight: the limit is 4");
        assertFalse(next.isDone());

        q.cancel();
        Throwable t = failure(next, "the pending next()");
        assertInstanceOf(CancellationException.class, t);
        for (Call c : pending) {
            assertTrue(c.future.isCancelled(), "the call at row " + c.first() + " was not cancelled");
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
        assertNull(f.poll(50), "a call made after the cancellation");
        assertEquals(4, f.calls.size());
        q.close();

        // The cancelled calls gave their permits back: a new query on the runtime has 4 calls in flight again.
        QueryExecution again = plan("slow(v)", batchOf(1000))
                .execute(runtime, ProbeFixtures.source(allocator, 1, 1000, runtime.executor()));
        try {
            CompletableFuture<VectorSchemaRoot> batch = again.stream().next();
            List<Call> four = f.take(4); // four calls in flight before any is answered: no permit was lost
            assertNull(f.poll(20), "a fifth call in flight");
            four.forEach(c -> c.complete(v -> v));
            for (int answered = 4; answered < 10; answered++) {
                f.take().complete(v -> v);
            }
            try (VectorSchemaRoot b = await(batch, "the second query's batch")) {
                assertEquals(1000, b.getRowCount());
            }
            assertEquals(4, again.asyncMetrics().getFirst().peakInFlight());
        } finally {
            again.close();
        }
        assertZeroLeftAfter(allocator, again.whenReleased());
    }

    /**
     * A cancellation that arrives while invokeAsync is still running (serialising its request,
     * say) must still reach the call once its future is handed back.
     */
    @Test
    void cancellingWhileInvokeAsyncRunsStillCancelsTheCall() throws Exception {
        Probe f = new Probe("slowstart", 0, 4);
        CountDownLatch proceed = new CountDownLatch(1);
        f.respond = c -> {
            try {
                proceed.await(ProbeFixtures.WAIT_S, TimeUnit.SECONDS); // still inside invokeAsync
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return c.future;
        };
        quiver.functions().register(f);
        QueryExecution q = plan("slowstart(v)", batchOf(1000))
                .execute(runtime, ProbeFixtures.source(allocator, 1, 100, runtime.executor()));
        CompletableFuture<VectorSchemaRoot> next = q.stream().next();
        Call c = f.take(); // invokeAsync has been entered and has not returned
        try {
            q.cancel();
            assertInstanceOf(CancellationException.class, failure(next, "the pending next()"));
            proceed.countDown();
            assertInstanceOf(CancellationException.class, failure(c.future, "the call's future"));
            assertZeroLeftAfter(allocator, q.whenReleased());
        } finally {
            proceed.countDown();
            c.complete(v -> v); // frees everything when the bug left the call running
            q.close();
        }
    }

    @Test
    void closingTheOutputStreamEarlyStopsTheCalls() throws Exception {
        Probe f = new Probe("slow", 100, 10);
        f.respond = c -> {
            if (c.first() < 1000) {
                c.complete(v -> v); // the first batch is answered, the second held
            }
            return c.future;
        };
        quiver.functions().register(f);
        CountingSource source = new CountingSource(allocator, 1000, 5);
        // One batch in flight: nothing is read ahead of the consumer.
        QueryExecution q = plan("slow(v)", batchOf(1000).withBatchesInFlight(1))
                .execute(runtime, source.stream(runtime.executor()));
        try {
            BatchStream s = q.stream();
            try (VectorSchemaRoot b = await(s.next(), "first batch")) {
                assertEquals(1000, b.getRowCount());
            }
            f.take(10);
            assertNull(f.poll(30), "a call nobody asked for");
            assertEquals(10, f.calls.size());
            assertEquals(1, source.made.get());

            CompletableFuture<VectorSchemaRoot> next = s.next();
            List<Call> pending = f.takeWired(10);
            s.close();
            assertInstanceOf(CancellationException.class, failure(next, "the pending next()"));
            for (Call c : pending) {
                assertTrue(c.future.isCancelled(), "the call at row " + c.first() + " was not cancelled");
            }
            assertZeroLeftAfter(allocator, q.whenReleased());
            assertNull(f.poll(50), "a call after the stream was closed");
            assertEquals(20, f.calls.size());
            assertEquals(2, source.made.get());
            assertTrue(source.closed.get(), "the source was not closed");
        } finally {
            q.close();
        }
    }

    /** By default the next batch's calls start while the consumer holds the current one; closing cancels them. */
    @Test
    void theBatchReadAheadIsCancelledAndFreedWhenTheStreamCloses() throws Exception {
        Probe f = new Probe("slow", 100, 10);
        f.respond = c -> {
            if (c.first() < 1000) {
                c.complete(v -> v); // the first batch is answered, the one read ahead held
            }
            return c.future;
        };
        quiver.functions().register(f);
        CountingSource source = new CountingSource(allocator, 1000, 5);
        QueryExecution q = plan("slow(v)", batchOf(1000)).execute(runtime, source.stream(runtime.executor()));
        try {
            BatchStream s = q.stream();
            try (VectorSchemaRoot b = await(s.next(), "first batch")) {
                assertEquals(1000, b.getRowCount());
                assertEquals(LongStream.range(0, 1000).boxed().toList(), longs(b, "id"));
            }
            List<Call> all =
                    f.take(20); // the first batch's calls and the second batch's, read ahead while nobody asked
            assertTrue(all.get(9).first() < 1000);
            List<Call> ahead = new ArrayList<>(all.subList(10, 20));
            for (Call c : ahead) {
                c.awaitWired();
            }
            assertEquals(1000, ahead.getFirst().first(), "the batch read ahead starts at row 1000");
            assertNull(f.poll(30), "no call beyond the one batch read ahead");
            assertEquals(2, source.made.get());
            s.close();
            for (Call c : ahead) {
                assertTrue(c.future.isCancelled(), "the call at row " + c.first() + " was not cancelled");
            }
            assertZeroLeftAfter(allocator, q.whenReleased());
            assertEquals(20, f.calls.size());
            assertTrue(source.closed.get(), "the source was not closed");
        } finally {
            q.close();
        }
    }

    // ------------------------------------------------------------------ the synchronous path

    @Test
    void theSynchronousPathRejectsAnAsyncFunction() {
        Probe f = new Probe("remote", 0, 4);
        quiver.functions().register(f);
        for (String sql : List.of("remote(x)", "remote(1.5) + x", "x > 1 AND remote(x) > 2")) {
            PlanningException e = assertThrows(PlanningException.class, () -> quiver.compile(SCHEMA, sql), sql);
            assertContains(e.getMessage(), "'remote'", "pipeline");
        }
        PlanningException e = assertThrows(
                PlanningException.class, () -> quiver.compileProjection(SCHEMA, "remote(x) > 1", List.of("id")));
        assertContains(e.getMessage(), "'remote'", "pipeline");

        ScalarFunctionArgs args = new ScalarFunctionArgs(
                List.of(ColumnarValue.scalar(DataType.FLOAT64, 1.0)),
                List.of(DataType.FLOAT64.toField("x", true)),
                1,
                DataType.FLOAT64.toField("y", true),
                new ExecutionConfig(allocator, Instant.now(), true, Map.of()));
        UnsupportedOperationException u = assertThrows(UnsupportedOperationException.class, () -> f.invoke(args));
        assertContains(u.getMessage(), "'remote'", "invokeAsync");
        assertTrue(f.calls.isEmpty(), "invokeAsync was called");
    }
}
