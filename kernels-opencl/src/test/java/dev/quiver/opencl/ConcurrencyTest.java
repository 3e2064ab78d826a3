package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.assertFloat64;
import static dev.quiver.opencl.Batches.assertInt32;
import static dev.quiver.opencl.Batches.float64;
import static dev.quiver.opencl.Batches.int32;
import static dev.quiver.opencl.Batches.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

/**
 * Runs from many threads on one backend: right results, one run's division-by-zero flag never
 * leaks into another, first runs of a shape racing on a fresh backend, and close under runs.
 */
class ConcurrencyTest extends DeviceTestBase {
    private static final int THREADS = 8;
    private static final int RUNS = 20;

    @OnEveryDevice
    void manyThreadsShareOneBackend(OpenClBackend backend) throws Exception {
        IrNode x = Ir.arg(0, ElementType.FLOAT64);
        IrNode a = Ir.arg(0, ElementType.INT32);
        IrNode b = Ir.arg(1, ElementType.INT32);
        KernelProgram divide = new KernelProgram(List.of(ElementType.INT32, ElementType.INT32), Ir.div(a, b));
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    try (BufferAllocator mine = allocator.newChildAllocator("thread-" + thread, 0, Long.MAX_VALUE)) {
                        for (int r = 0; r < RUNS; r++) {
                            int rows = 5_000 + 97 * thread + r;
                            double literal = thread + r / 8.0;
                            KernelProgram scale = new KernelProgram(
                                    List.of(ElementType.FLOAT64), Ir.fma(x, Ir.lit(literal), Ir.lit(-literal)));
                            double[] xs = new double[rows];
                            int[] as = new int[rows];
                            int[] bs = new int[rows];
                            for (int i = 0; i < rows; i++) {
                                xs[i] = i * 0.37 - thread;
                                as[i] = i * 31 - thread;
                                // Odd threads divide by zero in their last row.
                                bs[i] = (thread % 2 == 1 && i == rows - 1) ? 0 : (i % 13) + 1;
                            }
                            try (Float8Vector vx = float64(mine, xs);
                                    var out = run(backend, mine, scale, vx)) {
                                assertFloat64(out.vector(), i -> Math.fma(xs[i], literal, -literal), scale.text());
                            }
                            try (IntVector va = int32(mine, as);
                                    IntVector vb = int32(mine, bs)) {
                                if (thread % 2 == 1) {
                                    KernelArithmeticException e = assertThrows(
                                            KernelArithmeticException.class,
                                            () -> run(backend, mine, divide, va, vb)
                                                    .close());
                                    assertEquals(rows - 1, e.row());
                                } else {
                                    try (var out = run(backend, mine, divide, va, vb)) {
                                        assertInt32(out.vector(), i -> as[i] / bs[i], divide.text());
                                    }
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /** Two shapes, each first run by all threads at once on a fresh backend: one build each, every result right. */
    @OnEveryDevice
    void firstRunsOfAShapeRaceOnAFreshBackend(OpenClBackend shared) throws Exception {
        IrNode x = Ir.arg(0, ElementType.FLOAT64);
        IrNode a = Ir.arg(0, ElementType.INT32);
        try (OpenClBackend backend = OpenClBackend.open(shared.device(), shared.transferMode())) {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            onThreads(thread -> {
                try (BufferAllocator mine = allocator.newChildAllocator("thread-" + thread, 0, Long.MAX_VALUE)) {
                    start.await(); // all threads ask for the first build together
                    for (int r = 0; r < RUNS; r++) {
                        int rows = 1_000 + 13 * thread + r;
                        double literal = thread - r / 4.0;
                        int intLiteral = thread * 1_000 - r;
                        KernelProgram scale =
                                new KernelProgram(List.of(ElementType.FLOAT64), Ir.add(Ir.mul(x, x), Ir.lit(literal)));
                        KernelProgram shift =
                                new KernelProgram(List.of(ElementType.INT32), Ir.sub(Ir.mul(a, Ir.lit(intLiteral)), a));
                        double[] xs = new double[rows];
                        int[] as = new int[rows];
                        for (int i = 0; i < rows; i++) {
                            xs[i] = i * 0.25 - thread;
                            as[i] = i * 7919 - thread;
                        }
                        try (Float8Vector vx = float64(mine, xs);
                                var out = run(backend, mine, scale, vx)) {
                            assertFloat64(out.vector(), i -> xs[i] * xs[i] + literal, scale.text());
                        }
                        try (IntVector va = int32(mine, as);
                                var out = run(backend, mine, shift, va)) {
                            assertInt32(out.vector(), i -> as[i] * intLiteral - as[i], shift.text());
                        }
                    }
                }
            });
            assertEquals(2, backend.compiledPrograms(), "one build per shape, whatever the literals and threads");
        }
    }

    /**
     * Close while runs are in flight: one run is held inside the backend (after its buffers are
     * bound) until close has begun, so close must wait for it; the other threads run until they
     * are refused. Every run completes with the right result or throws "closed"; close returns,
     * and only after the held run's kernel finished.
     */
    @OnEveryDevice
    void closeWaitsForRunsInFlightAndLaterRunsAreRefused(OpenClBackend shared) throws Exception {
        IrNode x = Ir.arg(0, ElementType.FLOAT64);
        OpenClBackend backend = OpenClBackend.open(shared.device(), shared.transferMode());
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch othersRan = new CountDownLatch(THREADS - 1); // thread 0's first run is the held one
        AtomicBoolean heldKernelDone = new AtomicBoolean();
        AtomicInteger completed = new AtomicInteger();
        AtomicReference<Throwable> closeFailure = new AtomicReference<>();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    int runs = 0;
                    try (BufferAllocator mine = allocator.newChildAllocator("thread-" + thread, 0, Long.MAX_VALUE)) {
                        for (int r = 0; ; r++) {
                            int rows = 2_000 + 31 * thread + r % 50;
                            double literal = thread + r / 16.0;
                            KernelProgram program = new KernelProgram(
                                    List.of(ElementType.FLOAT64), Ir.fma(x, Ir.lit(literal), Ir.lit(-literal)));
                            double[] xs = new double[rows];
                            for (int i = 0; i < rows; i++) {
                                xs[i] = i * 0.37 - thread;
                            }
                            boolean holdThisOne = thread == 0 && r == 0;
                            try (Float8Vector vx = float64(mine, xs)) {
                                Batches.Output out;
                                try {
                                    out = holdThisOne
                                            ? runHeld(backend, mine, program, vx, held, heldKernelDone)
                                            : run(backend, mine, program, vx);
                                } catch (IllegalStateException e) {
                                    assertFalse(holdThisOne, "the held run began before close");
                                    assertEquals("backend " + backend.name() + " is closed", e.getMessage());
                                    assertTrue(backend.closing());
                                    return runs;
                                }
                                try (out) {
                                    assertFloat64(
                                            out.vector(), i -> Math.fma(xs[i], literal, -literal), program.text());
                                }
                            }
                            runs++;
                            completed.incrementAndGet();
                            if (runs == 1 && thread != 0) {
                                othersRan.countDown();
                            }
                        }
                    } finally {
                        // A thread that fails early must not keep close from starting (the test then fails on it).
                        if (thread == 0) {
                            held.countDown();
                        } else {
                            othersRan.countDown();
                        }
                    }
                }));
            }
            // Close once the held run is inside the backend and every other thread has completed a run (so runs
            // are going on all around); close waits for the held run, which waits for close to begin.
            held.await();
            othersRan.await();
            Thread closing = Thread.ofPlatform().start(() -> {
                try {
                    backend.close();
                    assertTrue(heldKernelDone.get(), "close returned before the run in flight finished");
                } catch (Throwable e) {
                    closeFailure.set(e);
                }
            });
            backend.close(); // a second, concurrent close waits for the first to finish, too
            assertTrue(heldKernelDone.get(), "close returned before the run in flight finished");
            closing.join();
            assertNull(closeFailure.get());
            int total = 0;
            for (Future<Integer> f : done) {
                int runs = f.get(); // rethrows a wrong result or an unexpected failure of any run
                assertTrue(runs >= 1);
                total += runs;
            }
            assertEquals(completed.get(), total);
            backend.close(); // still idempotent
            try (Float8Vector vx = float64(allocator, 1.0)) {
                KernelProgram program = new KernelProgram(List.of(ElementType.FLOAT64), Ir.add(x, Ir.lit(1.0)));
                assertThrows(
                        IllegalStateException.class,
                        () -> run(backend, allocator, program, vx).close());
            }
        } finally {
            pool.shutdownNow();
            backend.close();
        }
    }

    /** A run whose afterBind probe signals {@code held} and then waits until close has begun. */
    private static Batches.Output runHeld(
            OpenClBackend backend,
            BufferAllocator allocator,
            KernelProgram program,
            Float8Vector arg,
            CountDownLatch held,
            AtomicBoolean kernelDone) {
        Runnable hold = () -> {
            held.countDown();
            while (!backend.closing()) {
                Thread.onSpinWait();
            }
        };
        return Batches.runProbed(backend, allocator, program, new RunProbes(hold, () -> kernelDone.set(true)), arg);
    }

    private interface PerThread {
        void run(int thread) throws Exception;
    }

    private static void onThreads(PerThread body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    body.run(thread);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }
}
