package dev.quiver.opencl;

import dev.quiver.backend.KernelArithmeticException;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.quiver.opencl.Batches.assertFloat64;
import static dev.quiver.opencl.Batches.assertInt32;
import static dev.quiver.opencl.Batches.float64;
import static dev.quiver.opencl.Batches.int32;
import static dev.quiver.opencl.Batches.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Runs from many threads on one backend: right results, and one run's division-by-zero flag never leaks into another. */
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
                            KernelProgram scale = new KernelProgram(List.of(ElementType.FLOAT64),
                                    Ir.fma(x, Ir.lit(literal), Ir.lit(-literal)));
                            double[] xs = new double[rows];
                            int[] as = new int[rows];
                            int[] bs = new int[rows];
                            for (int i = 0; i < rows; i++) {
                                xs[i] = i * 0.37 - thread;
                                as[i] = i * 31 - thread;
                                // Odd threads divide by zero in their last row.
                                bs[i] = (thread % 2 == 1 && i == rows - 1) ? 0 : (i % 13) + 1;
                            }
                            try (Float8Vector vx = float64(mine, xs); var out = run(backend, mine, scale, vx)) {
                                assertFloat64(out.vector(), i -> Math.fma(xs[i], literal, -literal), scale.text());
                            }
                            try (IntVector va = int32(mine, as); IntVector vb = int32(mine, bs)) {
                                if (thread % 2 == 1) {
                                    KernelArithmeticException e = assertThrows(KernelArithmeticException.class,
                                            () -> run(backend, mine, divide, va, vb).close());
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
}
