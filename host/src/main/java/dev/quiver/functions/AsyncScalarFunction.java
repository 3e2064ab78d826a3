package dev.quiver.functions;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A scalar function whose work happens elsewhere (a REST endpoint, an embedding service, a
 * geocoder, a model server): called with a chunk of rows, it returns a future, and no thread
 * waits while the call is pending. It is registered and resolved like any other
 * {@link ScalarFunction} (a {@link Signature} with its {@link Volatility}, a return type), and
 * runs only in a pipeline ({@code dev.quiver.stream.Pipeline}): planning lifts every call out of
 * the projection or filter it appears in into an async-function operator below it, which
 * coalesces the input to the pipeline's batch size (8192 rows by default), slices each batch
 * into chunks of {@link #idealBatchSize()} rows, has up to {@link #maxConcurrentCalls()} chunks
 * in flight at once, and reassembles the results in row order.
 *
 * <p>Contract of {@link #invokeAsync}: as {@link ScalarFunction#invoke}, for the chunk's
 * {@code numberRows} rows: arguments are borrowed (valid until the returned future completes;
 * do not close them), the result is a new array of {@code numberRows} rows of
 * {@link #returnType} allocated from {@code args.config().allocator()} (or a scalar, which
 * stands for every row), owned by the caller. The future may complete on any thread; it must
 * not block the calling thread. A function whose client blocks is written with
 * {@link #onVirtualThreads}: its body then runs on a virtual thread, which releases its carrier
 * while it waits on I/O.
 *
 * <p>The synchronous {@link #invoke} is an error: a plain {@code Quiver.compile} of an
 * expression that calls an async function is rejected at planning, and a direct call throws.
 */
public interface AsyncScalarFunction extends ScalarFunction {

    /** The rows per call, when the remote side has a natural request size; empty: the whole batch. */
    default OptionalInt idealBatchSize() {
        return OptionalInt.empty();
    }

    /**
     * How many calls of this function may be in flight at once, across every query on one
     * runtime ({@code dev.quiver.stream.QueryRuntime}); chunks beyond it wait without holding a
     * thread. A pipeline's options ({@code AsyncOptions.maxConcurrentCalls}) can lower it for one query.
     */
    default int maxConcurrentCalls() {
        return 4;
    }

    /** Evaluates one chunk: see the class comment for the contract. */
    CompletableFuture<ColumnarValue> invokeAsync(ScalarFunctionArgs args);

    /** Always throws: an async function is called through {@link #invokeAsync} only. */
    @Override
    default ColumnarValue invoke(ScalarFunctionArgs args) {
        // Unreachable from a plan: the planner refuses async functions outside a pipeline, which calls invokeAsync.
        throw new UnsupportedOperationException("async function '" + name()
                + "' cannot be called on the synchronous path: it runs in a pipeline (dev.quiver.stream.Pipeline), "
                + "which lifts it into an async-function operator and calls invokeAsync");
    }

    /** A blocking body: a chunk in, its result out, as {@link #invokeAsync}'s result. */
    @FunctionalInterface
    interface BlockingBody {
        ColumnarValue call(ScalarFunctionArgs args) throws Exception;
    }

    /**
     * An async function whose body blocks (a synchronous HTTP client, a JDBC lookup): each call
     * runs on a new virtual thread, so a pending call holds no platform thread.
     *
     * @param idealBatchSize rows per call, or 0 for the whole batch
     * @param returnType     the result type for the (coerced) argument types
     */
    static AsyncScalarFunction onVirtualThreads(
            String name,
            Signature signature,
            Function<List<DataType>, DataType> returnType,
            int idealBatchSize,
            int maxConcurrentCalls,
            BlockingBody body) {
        return new VirtualThreadFunction(name, signature, returnType, idealBatchSize, maxConcurrentCalls, body);
    }

    /**
     * One call of a blocking body on a virtual thread. Cancelling it interrupts the body, and
     * the future completes (exceptionally) only once the body has returned, so the arguments,
     * which are freed when the future completes, are never freed under a body still reading
     * them; a result the body makes after the cancellation is closed.
     */
    final class BodyCall extends CompletableFuture<ColumnarValue> implements Runnable {
        private final Object lock = new Object();
        private final BlockingBody body;
        private final ScalarFunctionArgs args;
        private Thread runner;
        private boolean started;
        private boolean cancelRequested;

        BodyCall(BlockingBody body, ScalarFunctionArgs args) {
            this.body = body;
            this.args = args;
        }

        @Override
        public void run() {
            synchronized (lock) {
                if (cancelRequested) {
                    return;
                }
                started = true;
                runner = Thread.currentThread();
            }
            ColumnarValue value = null;
            Throwable failure = null;
            try {
                value = body.call(args);
            } catch (Throwable t) {
                failure = t;
            }
            boolean cancelled;
            synchronized (lock) {
                runner = null;
                cancelled = cancelRequested;
                Thread.interrupted(); // a late interrupt must not outlive the call
            }
            if (cancelled) {
                if (value != null) {
                    value.close();
                }
                completeExceptionally(new CancellationException("the call was cancelled"));
            } else if (failure != null) {
                completeExceptionally(failure);
            } else if (!complete(value) && value != null) {
                value.close();
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (lock) {
                if (isDone()) {
                    return false;
                }
                cancelRequested = true;
                if (started) {
                    if (runner != null) {
                        runner.interrupt();
                    }
                    return true; // completes when the body returns
                }
            }
            return super.cancel(mayInterruptIfRunning); // never started: it will not run
        }
    }

    /** See {@link #onVirtualThreads}. */
    final class VirtualThreadFunction implements AsyncScalarFunction {
        private static final Executor VIRTUAL = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("quiver-async-", 0).factory());
        private final String name;
        private final Signature signature;
        private final Function<List<DataType>, DataType> returnType;
        private final int idealBatchSize;
        private final int maxConcurrentCalls;
        private final BlockingBody body;

        private VirtualThreadFunction(
                String name,
                Signature signature,
                Function<List<DataType>, DataType> returnType,
                int idealBatchSize,
                int maxConcurrentCalls,
                BlockingBody body) {
            this.name = Objects.requireNonNull(name, "name is null");
            this.signature = Objects.requireNonNull(signature, "signature is null");
            this.returnType = Objects.requireNonNull(returnType, "returnType is null");
            if (idealBatchSize < 0) {
                throw new IllegalArgumentException(
                        "idealBatchSize must be >= 0 (0: the whole batch), got " + idealBatchSize);
            }
            if (maxConcurrentCalls < 1) {
                throw new IllegalArgumentException("maxConcurrentCalls must be >= 1, got " + maxConcurrentCalls);
            }
            this.idealBatchSize = idealBatchSize;
            this.maxConcurrentCalls = maxConcurrentCalls;
            this.body = Objects.requireNonNull(body, "body is null");
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Signature signature() {
            return signature;
        }

        @Override
        public DataType returnType(List<DataType> argTypes) {
            return returnType.apply(argTypes);
        }

        @Override
        public OptionalInt idealBatchSize() {
            return idealBatchSize == 0 ? OptionalInt.empty() : OptionalInt.of(idealBatchSize);
        }

        @Override
        public int maxConcurrentCalls() {
            return maxConcurrentCalls;
        }

        @Override
        public CompletableFuture<ColumnarValue> invokeAsync(ScalarFunctionArgs args) {
            BodyCall call = new BodyCall(body, args);
            VIRTUAL.execute(call);
            return call;
        }

        @Override
        public String description() {
            return "async function run on virtual threads";
        }
    }
}
