package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.SCHEMA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code whenReleased()} waits for what a function frees when its call is cancelled.
 *
 * <p>A function that made its result before completing its future frees it, when the future is
 * cancelled, in a callback it registered on that future. {@code CompletableFuture} runs a future's
 * callbacks last-registered first, so the pipeline's own callback (registered after
 * {@code invokeAsync} returned) runs before the function's; the call must therefore still count
 * until the cancellation has returned. Here the function's callback is slow (30 ms), and the stream
 * is closed while the call is pending, both after {@code invokeAsync} returned and while it is
 * still running: the memory must be back when {@code whenReleased()} completes.
 *
 * <p>(The rare failure of {@code ReadAheadTest.closeRightAfterFirstNext} was not this: its test
 * function claimed its result with a flag before completing the future, and freed it after losing
 * the race to complete it, so after {@code whenReleased()}. The outcome of the future alone must
 * decide who frees a result: see that test's {@code Delayed}.)
 */
class CancelledCallReleaseTest extends QuiverTestBase {
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
     * Makes its result at once, returns its future only once the test says so, completes it never;
     * on cancellation frees the result, slowly.
     */
    private static final class SlowToFree implements AsyncScalarFunction {
        final CountDownLatch called = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String name() {
            return "slow_to_free";
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
        public CompletableFuture<ColumnarValue> invokeAsync(ScalarFunctionArgs args) {
            List<Double> values = ProbeFixtures.values(args.arg(0), args.numberRows());
            Float8Vector r =
                    ProbeFixtures.vector(args.returnField(), args.config().allocator(), values, v -> v * 10);
            AtomicBoolean owned = new AtomicBoolean(true);
            CompletableFuture<ColumnarValue> out = new CompletableFuture<>();
            out.whenComplete((v, e) -> {
                if (e != null && owned.compareAndSet(true, false)) {
                    try {
                        Thread.sleep(30); // a slow cleanup, still synchronous with the cancellation
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    }
                    r.close();
                }
            });
            called.countDown();
            try {
                // Still inside invokeAsync when the stream closes: the pipeline cancels the future itself,
                // on this worker, as soon as it returns.
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
            return out;
        }
    }

    @Test
    void whenReleasedWaitsForTheFunctionsOwnCancellationCallbacks() throws Exception {
        for (int inFlight = 1; inFlight <= 2; inFlight++) {
            for (int iter = 0; iter < 5; iter++) {
                SlowToFree f = new SlowToFree();
                if (iter % 2 == 1) {
                    f.release.countDown(); // invokeAsync returns at once: the call is pending when the stream closes
                }
                quiver.functions().register(f);
                PipelinePlan plan = Pipeline.from(SCHEMA)
                        .project("id", "slow_to_free(v) AS y")
                        .options(AsyncOptions.defaults().withBatchSize(400).withBatchesInFlight(inFlight))
                        .placement(Placement.CPU)
                        .plan(quiver);
                QueryExecution q = plan.execute(
                        runtime,
                        BatchStreams.generate(
                                SCHEMA, 4, i -> ProbeFixtures.batch(allocator, i * 300L, 300), runtime.executor()));
                BatchStream s = q.stream();
                CompletableFuture<VectorSchemaRoot> n = s.next();
                assertTrue(f.called.await(10, TimeUnit.SECONDS));
                s.close();
                f.release.countDown();
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
                assertEquals(
                        0,
                        allocator.getAllocatedMemory(),
                        "inFlight=" + inFlight + " iteration " + iter
                                + ": whenReleased() completed before the cancelled call's result was freed");
            }
        }
    }
}
