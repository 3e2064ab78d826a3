package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ProgramCache} under concurrent first calls and failing builds. The programs are real
 * builds on the first device (CompiledProgram has no other kind), counted by a wrapping builder.
 * Arrow memory is allocated only by the test of literals, under its own allocator.
 */
class ProgramCacheTest {
    private static final int THREADS = 8;
    private static final IrNode X = Ir.arg(0, ElementType.INT32);

    private OpenClBackend backend;

    @BeforeEach
    void openBackend() {
        backend = OpenClBackend.open(TestDevices.require().getFirst());
    }

    @AfterEach
    void closeBackend() {
        if (backend != null) {
            backend.close();
        }
    }

    private static KernelProgram addLiteral(int literal) {
        return new KernelProgram(List.of(ElementType.INT32), Ir.add(X, Ir.lit(literal)));
    }

    /** Builds for real, counting calls; {@code before} runs first with the call's number (1, 2, ...). */
    private Function<KernelProgram, CompiledProgram> counting(AtomicInteger calls, IntConsumer before) {
        return p -> {
            before.accept(calls.incrementAndGet());
            return backend.compile(KernelSource.of(p));
        };
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void concurrentFirstGetsOfOneShapeBuildItOnce() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch arrived = new CountDownLatch(THREADS);
        // The build waits until every thread is about to ask, so the others ask while it is in progress.
        try (ProgramCache cache = new ProgramCache(counting(calls, n -> await(arrived)))) {
            List<CompiledProgram> got = runOnThreads(t -> {
                arrived.countDown();
                return cache.get(addLiteral(t)); // one shape: the literals differ
            });
            assertEquals(1, calls.get(), "one build for one shape");
            for (CompiledProgram p : got) {
                assertSame(got.getFirst(), p);
            }
            assertEquals(1, cache.size());
            assertSame(got.getFirst(), cache.get(addLiteral(99)), "built: returned as is");
            assertEquals(1, calls.get());
        }
    }

    @Test
    void aFailedBuildIsNotRememberedAndTheNextCallerRetries() {
        AtomicInteger calls = new AtomicInteger();
        try (ProgramCache cache = new ProgramCache(counting(calls, n -> {
            if (n == 1) {
                throw new IllegalStateException("first build fails");
            }
        }))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> cache.get(addLiteral(1)));
            assertEquals("first build fails", e.getMessage());
            assertEquals(0, cache.size(), "a failed build is not counted");
            CompiledProgram built = cache.get(addLiteral(2));
            assertEquals(2, calls.get(), "the next caller builds again");
            assertEquals(1, cache.size());
            assertSame(built, cache.get(addLiteral(3)));
            assertEquals(2, calls.get());
        }
    }

    @Test
    void callersWaitingOnAFailedBuildRetryAndOneOfThemBuilds() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch arrived = new CountDownLatch(THREADS);
        try (ProgramCache cache = new ProgramCache(counting(calls, n -> {
            if (n == 1) {
                await(arrived);
                throw new IllegalStateException("first build fails");
            }
        }))) {
            List<Object> got = runOnThreads(t -> {
                arrived.countDown();
                try {
                    return cache.get(addLiteral(t));
                } catch (IllegalStateException e) {
                    return e;
                }
            });
            List<CompiledProgram> programs = new ArrayList<>();
            int failures = 0;
            for (Object o : got) {
                if (o instanceof CompiledProgram p) {
                    programs.add(p);
                } else {
                    assertEquals(
                            "first build fails",
                            assertInstanceOf(IllegalStateException.class, o).getMessage());
                    failures++;
                }
            }
            assertEquals(1, failures, "only the caller of the failed build sees its error");
            assertEquals(2, calls.get(), "one failed build, then one that succeeds");
            for (CompiledProgram p : programs) {
                assertSame(programs.getFirst(), p);
            }
            assertEquals(1, cache.size());
        }
    }

    @Test
    void shapesAreBuiltSeparatelyAndCloseReleasesThemAll() {
        AtomicInteger calls = new AtomicInteger();
        ProgramCache cache = new ProgramCache(counting(calls, n -> {}));
        CompiledProgram add = cache.get(addLiteral(1));
        CompiledProgram mul = cache.get(new KernelProgram(List.of(ElementType.INT32), Ir.mul(X, Ir.lit(3))));
        assertEquals(2, calls.get());
        assertEquals(2, cache.size());
        assertSame(add, cache.get(addLiteral(5)));
        cache.close();
        assertEquals(0, cache.size());
        // Released once: closing a released program again does nothing (ClObject), and the backend closes cleanly.
        add.close();
        mul.close();
    }

    @Test
    void programsThatDifferOnlyInLiteralsShareOneBuildAndEachGetsItsOwnLiterals() {
        IrNode x = Ir.arg(0, ElementType.FLOAT64);
        KernelProgram times2 = new KernelProgram(List.of(ElementType.FLOAT64), Ir.mul(x, Ir.lit(2.0)));
        KernelProgram times3 = new KernelProgram(List.of(ElementType.FLOAT64), Ir.mul(x, Ir.lit(3.0)));
        assertEquals(times2.shape(), times3.shape());
        try (BufferAllocator allocator = new RootAllocator()) {
            try (Float8Vector in = Batches.float64(allocator, 1.5, -0.0, 7, Double.NaN, 1e308)) {
                try (Batches.Output two = Batches.run(backend, allocator, times2, in)) {
                    Batches.assertFloat64(two.vector(), i -> in.get(i) * 2.0, "x * 2.0");
                }
                assertEquals(1, backend.compiledPrograms());
                try (Batches.Output three = Batches.run(backend, allocator, times3, in)) {
                    // Were the literal compiled in, x * 3.0 would run x * 2.0's program and give its values.
                    Batches.assertFloat64(three.vector(), i -> in.get(i) * 3.0, "x * 3.0");
                }
                assertEquals(1, backend.compiledPrograms(), "x * 3.0 runs the program built for x * 2.0");
                assertEquals(1, backend.liveObjects().programs());
            }
            assertEquals(0, allocator.getAllocatedMemory(), "Arrow memory leaked");
        }
    }

    private interface PerThread<T> {
        T call(int thread) throws Exception;
    }

    /** Runs {@code body} on {@link #THREADS} threads at once and returns their results in thread order. */
    private static <T> List<T> runOnThreads(PerThread<T> body) throws InterruptedException, ExecutionException {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> body.call(thread)));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get());
            }
            return results;
        } finally {
            pool.shutdown();
        }
    }
}
