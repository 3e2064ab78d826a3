package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.stream.BatchStream;
import dev.quiver.stream.BatchStreams;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Fixtures of the failure, limit, subquery and explain tests: an async function whose calls the
 * test sees and completes ({@link Probe}), sources that count what they produce, and waiting
 * helpers that never wait for ever.
 */
final class ProbeFixtures {
    /** How long a test waits for something that should happen (a guard, never an ordering device). */
    static final long WAIT_S = 10;

    private ProbeFixtures() {}

    /** id BIGINT, x DOUBLE (null on every 7th row), v DOUBLE (the row number, never null). */
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("v", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

    /** Rows [first, first + rows): id = row, x = row % 100 (null when row % 7 == 3), v = row. */
    static VectorSchemaRoot batch(BufferAllocator allocator, long first, int rows) {
        VectorSchemaRoot b = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) b.getVector(0);
        Float8Vector x = (Float8Vector) b.getVector(1);
        Float8Vector v = (Float8Vector) b.getVector(2);
        id.allocateNew(rows);
        x.allocateNew(rows);
        v.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            long r = first + i;
            id.set(i, r);
            Double xv = x(r);
            if (xv == null) {
                x.setNull(i);
            } else {
                x.set(i, xv);
            }
            v.set(i, r);
        }
        b.setRowCount(rows);
        return b;
    }

    static Double x(long row) {
        return row % 7 == 3 ? null : (double) (row % 100);
    }

    /** {@code count} batches of {@code rows} rows, consecutive. */
    static BatchStream source(BufferAllocator allocator, int count, int rows, Executor executor) {
        return BatchStreams.generate(SCHEMA, count, i -> batch(allocator, (long) i * rows, rows), executor);
    }

    /** Batches of {@code rows} consecutive rows, for ever (or {@code limit} of them when >= 0); counts what it made. */
    static final class CountingSource implements Iterator<VectorSchemaRoot>, AutoCloseable {
        final BufferAllocator allocator;
        final int rows;
        final int limit;
        final AtomicInteger made = new AtomicInteger();
        final AtomicBoolean closed = new AtomicBoolean();

        CountingSource(BufferAllocator allocator, int rows, int limit) {
            this.allocator = allocator;
            this.rows = rows;
            this.limit = limit;
        }

        static CountingSource unbounded(BufferAllocator allocator, int rows) {
            return new CountingSource(allocator, rows, -1);
        }

        BatchStream stream(Executor executor) {
            return BatchStreams.fromIterator(SCHEMA, this, executor);
        }

        @Override
        public boolean hasNext() {
            return limit < 0 || made.get() < limit;
        }

        @Override
        public VectorSchemaRoot next() {
            int i = made.getAndIncrement();
            return batch(allocator, (long) i * rows, rows);
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    /** One call of a {@link Probe}: what it was given (read at call time) and its future. */
    static final class Call {
        final ScalarFunctionArgs args;
        final List<Double> values;
        final CompletableFuture<ColumnarValue> future;
        final int attempt;

        Call(ScalarFunctionArgs args, List<Double> values, CompletableFuture<ColumnarValue> future, int attempt) {
            this.args = args;
            this.values = values;
            this.future = future;
            this.attempt = attempt;
        }

        int rows() {
            return args.numberRows();
        }

        /** The first argument's first value (with {@code v} as the argument: the first row of the call). */
        double first() {
            return values.getFirst();
        }

        /** A new result vector: {@code body} of each value (null in, null out). */
        Float8Vector result(DoubleUnaryOperator body) {
            return ProbeFixtures.vector(args.returnField(), args.config().allocator(), values, body);
        }

        /** Completes the call with {@code body} of each value; frees the result when nobody takes it. */
        boolean complete(DoubleUnaryOperator body) {
            Float8Vector out = result(body);
            boolean taken = future.complete(new ColumnarValue.Array(out));
            if (!taken) {
                out.close();
            }
            return taken;
        }

        boolean fail(Throwable t) {
            return future.completeExceptionally(t);
        }

        /**
         * Waits until the pipeline has taken the call's future in hand (it registers its
         * completion stage on it once invokeAsync has returned): from then on, cancelling the
         * query reaches the call. See AsyncFailureTest.cancellingWhileInvokeAsyncRunsStillCancelsTheCall.
         */
        Call awaitWired() throws InterruptedException {
            if (future instanceof WiredFuture<?> w) {
                assertTrue(
                        w.wired.await(WAIT_S, TimeUnit.SECONDS),
                        "the pipeline never took the future of the call at " + first());
            }
            return this;
        }
    }

    /** A future that tells when a first completion stage is registered on it (by the pipeline). */
    static class WiredFuture<T> extends CompletableFuture<T> {
        final CountDownLatch wired = new CountDownLatch(1);

        @Override
        public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
            CompletableFuture<T> f = super.whenComplete(action);
            wired.countDown();
            return f;
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CompletableFuture<>();
        }
    }

    static Float8Vector vector(Field field, BufferAllocator allocator, List<Double> values, DoubleUnaryOperator body) {
        Float8Vector out = new Float8Vector(field, allocator);
        out.allocateNew(values.size());
        for (int i = 0; i < values.size(); i++) {
            Double v = values.get(i);
            if (v == null) {
                out.setNull(i);
            } else {
                out.set(i, body.applyAsDouble(v));
            }
        }
        out.setValueCount(values.size());
        return out;
    }

    /** The values of an argument (an array or a scalar standing for every row). */
    static List<Double> values(ColumnarValue arg, int rows) {
        List<Double> out = new ArrayList<>(rows);
        if (arg instanceof ColumnarValue.Array a) {
            Float8Vector in = (Float8Vector) a.vector();
            for (int i = 0; i < rows; i++) {
                out.add(in.isNull(i) ? null : in.get(i));
            }
        } else {
            Object v = ((ColumnarValue.Scalar) arg).value().value();
            for (int i = 0; i < rows; i++) {
                out.add(v == null ? null : ((Number) v).doubleValue());
            }
        }
        return out;
    }

    /**
     * {@code name(DOUBLE) -> DOUBLE}, whose calls the test sees: each call is recorded (its
     * argument read at call time) and queued; {@link #respond} decides what invokeAsync returns
     * (by default the call's own future, held until the test completes it).
     */
    static final class Probe implements AsyncScalarFunction {
        final String name;
        final int ideal;
        final int limit;
        final LinkedBlockingQueue<Call> queue = new LinkedBlockingQueue<>();
        final List<Call> calls = new CopyOnWriteArrayList<>();
        final AtomicInteger rowsSeen = new AtomicInteger();
        /** What invokeAsync returns for a call; null: the call's future, held. */
        volatile Function<Call, CompletableFuture<ColumnarValue>> respond;
        /** Makes each call's future. */
        volatile Supplier<CompletableFuture<ColumnarValue>> futures = WiredFuture::new;
        /** Attempts per first row, for functions that fail some attempts. */
        final Map<Double, AtomicInteger> attempts = new ConcurrentHashMap<>();

        Probe(String name, int ideal, int limit) {
            this.name = name;
            this.ideal = ideal;
            this.limit = limit;
        }

        /** Answers every call at once with {@code body}. */
        Probe answering(DoubleUnaryOperator body) {
            respond = c -> {
                c.complete(body);
                return c.future;
            };
            return this;
        }

        @Override
        public String name() {
            return name;
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
            return ideal > 0 ? OptionalInt.of(ideal) : OptionalInt.empty();
        }

        @Override
        public int maxConcurrentCalls() {
            return limit;
        }

        @Override
        public CompletableFuture<ColumnarValue> invokeAsync(ScalarFunctionArgs args) {
            List<Double> values = values(args.arg(0), args.numberRows());
            rowsSeen.addAndGet(args.numberRows());
            int attempt = values.isEmpty() || values.getFirst() == null
                    ? 1
                    : attempts.computeIfAbsent(values.getFirst(), k -> new AtomicInteger())
                            .incrementAndGet();
            CompletableFuture<ColumnarValue> future = futures.get();
            Call c = new Call(args, values, future, attempt);
            calls.add(c);
            queue.add(c);
            Function<Call, CompletableFuture<ColumnarValue>> r = respond;
            return r == null ? future : r.apply(c);
        }

        /** The next call made, waiting at most {@link #WAIT_S}. */
        Call take() throws InterruptedException {
            Call c = queue.poll(WAIT_S, TimeUnit.SECONDS);
            assertNotNull(
                    c, "no call of " + name + " arrived within " + WAIT_S + " s (calls so far: " + calls.size() + ")");
            return c;
        }

        /** The next {@code n} calls, sorted by their first row. */
        List<Call> take(int n) throws InterruptedException {
            List<Call> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(take());
            }
            out.sort(Comparator.comparingDouble(Call::first));
            return out;
        }

        /** The next call, once the pipeline holds its future (so that a cancellation reaches it). */
        Call takeWired() throws InterruptedException {
            return take().awaitWired();
        }

        /** The next {@code n} calls, sorted by their first row, once the pipeline holds their futures. */
        List<Call> takeWired(int n) throws InterruptedException {
            List<Call> out = take(n);
            for (Call c : out) {
                c.awaitWired();
            }
            return out;
        }

        /** A call made within {@code ms}, or null (a guard for "no further call", not an ordering device). */
        Call poll(long ms) throws InterruptedException {
            return queue.poll(ms, TimeUnit.MILLISECONDS);
        }

        int totalRows() {
            return rowsSeen.get();
        }
    }

    /** A future that ignores cancellation, like a remote call that cannot be taken back; records the attempt. */
    static final class StubbornFuture<T> extends WiredFuture<T> {
        final AtomicBoolean cancelAsked = new AtomicBoolean();

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            cancelAsked.set(true);
            return false;
        }
    }

    /** The cause under CompletionException/ExecutionException wrappers. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The value of {@code f}, waiting at most {@link #WAIT_S}. */
    static <T> T await(CompletableFuture<T> f, String what) throws InterruptedException {
        try {
            return f.get(WAIT_S, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + ": nothing within " + WAIT_S + " s (hung?)");
        } catch (ExecutionException e) {
            throw new AssertionError(what + ": failed with " + unwrap(e), unwrap(e));
        } catch (CancellationException e) {
            throw new AssertionError(what + ": cancelled", e);
        }
    }

    /** The failure of {@code f} (unwrapped), which must fail within {@link #WAIT_S}. */
    static Throwable failure(CompletableFuture<?> f, String what) throws InterruptedException {
        try {
            Object v = f.get(WAIT_S, TimeUnit.SECONDS);
            if (v instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // the assertion below is what matters
                }
            }
            return fail(what + ": expected a failure, got " + v);
        } catch (TimeoutException e) {
            return fail(what + ": neither a result nor a failure within " + WAIT_S + " s (the query hung)");
        } catch (ExecutionException e) {
            return unwrap(e);
        } catch (CancellationException e) {
            return e;
        }
    }

    /** Asserts {@code t} or one of its causes is an {@code type} and returns it. */
    static <T extends Throwable> T causeOf(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        throw new AssertionError("expected a " + type.getSimpleName() + " in the causes of " + t, t);
    }

    static void assertContains(String text, String... fragments) {
        for (String f : fragments) {
            assertTrue(text != null && text.contains(f), "expected '" + f + "' in: " + text);
        }
    }

    /** Column {@code name} of {@code b} as doubles (null for null). */
    static List<Double> doubles(VectorSchemaRoot b, String name) {
        FieldVector v = b.getVector(name);
        List<Double> out = new ArrayList<>(b.getRowCount());
        for (int r = 0; r < b.getRowCount(); r++) {
            out.add(v.isNull(r) ? null : ((Number) v.getObject(r)).doubleValue());
        }
        return out;
    }

    static List<Long> longs(VectorSchemaRoot b, String name) {
        BigIntVector v = (BigIntVector) b.getVector(name);
        List<Long> out = new ArrayList<>(b.getRowCount());
        for (int r = 0; r < b.getRowCount(); r++) {
            out.add(v.isNull(r) ? null : v.get(r));
        }
        return out;
    }

    /** Awaits {@code released} (an execution's whenReleased()), then asserts that nothing is left allocated. */
    static void assertZeroLeftAfter(BufferAllocator allocator, CompletableFuture<Void> released)
            throws InterruptedException {
        await(released, "whenReleased");
        assertEquals(0, allocator.getAllocatedMemory(), "bytes still allocated once every call has ended");
    }
}
