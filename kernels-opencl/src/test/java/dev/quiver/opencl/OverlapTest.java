package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The overlapped COPY path (chunks through pinned staging slots on three queues) computes what
 * the reference computes, chunk boundaries and the partial last chunk included, reports the
 * first failing row in batch numbering, moves the same bytes as one transfer each way, and
 * leaves no OpenCL object of a run behind.
 */
class OverlapTest {
    private static final int CHUNK = OpenClBackend.CHUNK_GRAIN;
    /** Four chunks, the last partial and ending in a partial bitmap byte. */
    private static final int ROWS = 3 * CHUNK + 77;

    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final IrNode Y = Ir.arg(1, ElementType.FLOAT64);
    private static final IrNode A = Ir.arg(0, ElementType.INT32);
    private static final IrNode B = Ir.arg(1, ElementType.INT32);
    private static final List<ElementType> F64 = List.of(ElementType.FLOAT64, ElementType.FLOAT64);
    private static final List<ElementType> I32 = List.of(ElementType.INT32, ElementType.INT32);

    static List<KernelProgram> programs() {
        return List.of(
                new KernelProgram(F64, Ir.add(Ir.mul(X, Y), Ir.sqrt(X))),
                new KernelProgram(F64, Ir.compare(CmpOp.GT, X, Y)),
                new KernelProgram(I32, Ir.div(A, B)),
                new KernelProgram(
                        F64,
                        Ir.fma(X, Y, Ir.lit(1.0)),
                        Ir.compare(CmpOp.LT, X, Ir.lit(0.0)),
                        true,
                        "fma(x, y, 1) null when x < 0"),
                new KernelProgram(
                        List.of(ElementType.BOOL, ElementType.FLOAT64),
                        Ir.select(Ir.arg(0, ElementType.BOOL), Y, Ir.neg(Y))));
    }

    private static OpenClBackend copyBackend(int chunkRows) {
        OpenClDevice device = OpenClRuntime.discover().devices().getFirst();
        return OpenClBackend.open(device, TransferMode.COPY).overlapChunkRows(chunkRows);
    }

    private static Differential.Inputs inputs(
            Arena arena, KernelProgram p, int rows, double nullRate, long seed, int zeroAt) {
        SplittableRandom r = new SplittableRandom(seed);
        List<MemorySegment> args = new ArrayList<>();
        for (int i = 0; i < p.arity(); i++) {
            ElementType t = p.argTypes().get(i);
            int arg = i;
            args.add(Differential.column(arena, t, rows, row -> switch (t) {
                case INT32 -> arg == 1 && row == zeroAt ? 0 : (int) (r.nextLong() % 1000) + (arg == 1 ? 1001 : 0);
                case FLOAT64 -> (r.nextDouble() - 0.3) * 1e3;
                case BOOL -> r.nextBoolean() ? 1 : 0;
                default -> throw new AssertionError(t);
            }));
        }
        return new Differential.Inputs(args, Differential.validity(arena, rows, r, nullRate), rows);
    }

    @Test
    void chunksComputeWhatTheReferenceComputes() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend(CHUNK);
                Arena arena = Arena.ofConfined()) {
            assertTrue(backend.overlaps(ROWS), "a batch of four chunks must overlap");
            assertFalse(backend.overlaps(2L * CHUNK), "two chunks or fewer: one transfer each way");
            long seed = 1;
            for (KernelProgram p : programs()) {
                for (RowMode mode : RowMode.values()) {
                    for (double nullRate : new double[] {0, 0.1}) {
                        Differential.check(
                                backend,
                                p,
                                inputs(arena, p, ROWS, nullRate, seed++, -1),
                                mode,
                                -1,
                                arena,
                                "overlapped, nulls " + nullRate);
                        assertEquals(
                                0,
                                backend.liveObjects().runScoped(),
                                backend.liveObjects().toString());
                    }
                }
            }
            assertEquals(3, backend.liveObjects().queues(), "the overlapped path adds an upload and a download queue");
            assertTrue(backend.liveObjects().held() > 0, "pinned staging slots are kept between runs");
            backend.close();
            assertEquals(0, backend.liveObjects().total(), backend.liveObjects().toString());
        }
    }

    @Test
    void aFailingRowInALaterChunkIsNamedInBatchNumbering() {
        TestDevices.require();
        KernelProgram divide = new KernelProgram(I32, Ir.div(A, B));
        try (OpenClBackend backend = copyBackend(CHUNK);
                Arena arena = Arena.ofConfined()) {
            for (int zeroAt : new int[] {2 * CHUNK + 5, ROWS - 1, CHUNK - 1}) {
                Differential.Inputs in = inputs(arena, divide, ROWS, 0, zeroAt, zeroAt);
                Differential.check(backend, divide, in, RowMode.ALL_ROWS, -1, arena, "division by zero at " + zeroAt);
                Differential.Outcome got = Differential.onDevice(backend, divide, in, RowMode.ALL_ROWS, arena);
                assertEquals(zeroAt, got.failure().row());
                assertEquals(
                        0,
                        backend.liveObjects().runScoped(),
                        backend.liveObjects().toString());
            }
        }
    }

    @Test
    void movesTheSameBytesAsOneTransferEachWay() {
        TestDevices.require();
        KernelProgram p = programs().get(3); // writes validity too
        try (OpenClBackend chunked = copyBackend(CHUNK);
                OpenClBackend whole = copyBackend(0);
                Arena arena = Arena.ofConfined()) {
            assertFalse(whole.overlaps(ROWS));
            Differential.Inputs in = inputs(arena, p, ROWS, 0.1, 7, -1);
            KernelRun a = run(chunked, p, in, arena);
            KernelRun b = run(whole, p, in, arena);
            assertEquals(b.bytesToDevice(), a.bytesToDevice());
            assertEquals(b.bytesFromDevice(), a.bytesFromDevice());
            long expectIn = 2L * ROWS * 8 + (ROWS + 7) / 8;
            assertEquals(expectIn, a.bytesToDevice(), "two Float64 columns and the validity");
            assertEquals(ROWS * 8L + (ROWS + 7) / 8, a.bytesFromDevice(), "the result and its validity");
        }
    }

    private static KernelRun run(OpenClBackend backend, KernelProgram p, Differential.Inputs in, Arena arena) {
        MemorySegment validity = arena.allocate(in.validity().byteSize());
        validity.copyFrom(in.validity());
        MemorySegment out = arena.allocate(BufferSizes.dataBytes(p.resultType(), in.rows()), 8);
        return backend.execute(p, new KernelInvocation(in.args(), validity, out, in.rows(), RowMode.VALID_ROWS));
    }

    @Test
    void aFailureHalfWayLeavesNothingBehindAndTheNextRunIsRight() {
        TestDevices.require();
        KernelProgram p = programs().getFirst();
        try (OpenClBackend backend = copyBackend(CHUNK);
                Arena arena = Arena.ofConfined()) {
            Differential.Inputs in = inputs(arena, p, ROWS, 0.1, 3, -1);
            for (FaultInjection.Call call : List.of(
                    FaultInjection.Call.ENQUEUE_KERNEL,
                    FaultInjection.Call.READ_BACK,
                    FaultInjection.Call.CREATE_BUFFER)) {
                try (FaultInjection.Plan plan = FaultInjection.inject(
                        backend, FaultInjection.Fault.of(call).after(2))) {
                    OpenClException e = Assertions.assertThrows(
                            OpenClException.class,
                            () -> Differential.onDevice(backend, p, in, RowMode.ALL_ROWS, arena),
                            call.name());
                    assertTrue(e.getMessage().contains("injected"), e.getMessage());
                }
                assertEquals(0, backend.liveObjects().runScoped(), call + ": " + backend.liveObjects());
                Differential.check(backend, p, in, RowMode.ALL_ROWS, -1, arena, "after a failed " + call);
            }
        }
    }

    @Test
    void concurrentRunsOnOneBackendStayApart() throws Exception {
        TestDevices.require();
        KernelProgram p = programs().get(3);
        try (OpenClBackend backend = copyBackend(CHUNK);
                Arena shared = Arena.ofShared()) {
            List<Differential.Inputs> inputs = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                inputs.add(inputs(shared, p, ROWS + t * 1000, 0.05, 100 + t, -1));
            }
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (Differential.Inputs in : inputs) {
                    done.add(pool.submit(() -> {
                        try (Arena arena = Arena.ofConfined()) {
                            for (int round = 0; round < 2; round++) {
                                Differential.check(
                                        backend, p, in, RowMode.VALID_ROWS, -1, arena, "concurrent " + in.rows());
                            }
                        }
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            assertEquals(
                    0, backend.liveObjects().runScoped(), backend.liveObjects().toString());
        }
    }

    @Test
    void largeChunksAreInEffectAsSet() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend(1 << 26)) {
            assertEquals(1 << 26, backend.effectiveChunkRows());
            assertTrue(backend.overlaps(3L << 26));
        }
    }

    @Test
    void overlapIsOffByDefaultOnACpuDeviceOnlyAndTheModelSeesWhatIsInEffect() {
        TestDevices.require();
        Assumptions.assumeTrue(System.getProperty("quiver.opencl.chunkRows") == null);
        for (OpenClDevice device : OpenClRuntime.discover().devices()) {
            try (OpenClBackend backend = OpenClBackend.open(device, TransferMode.COPY)) {
                int expected = device.type() == OpenClDevice.Type.CPU ? 0 : OpenClBackend.DEFAULT_CHUNK_ROWS;
                assertEquals(expected, backend.overlapChunkRows(), device.name());
                assertEquals(expected == 0, !backend.overlaps(16L << 20), device.name());
            }
        }
    }

    @Test
    void chunkRowsAreWholeGrains() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend(1)) {
            assertEquals(CHUNK, backend.overlapChunkRows());
            backend.overlapChunkRows(CHUNK + 1);
            assertEquals(2 * CHUNK, backend.overlapChunkRows());
            backend.overlapChunkRows(0);
            assertFalse(backend.overlaps(Integer.MAX_VALUE));
            assertEquals(0, backend.effectiveChunkRows());
        }
        OpenClDevice device = OpenClRuntime.discover().devices().getFirst();
        if (device.hostUnifiedMemory()) {
            try (OpenClBackend zero = OpenClBackend.open(device, TransferMode.ZERO_COPY)) {
                assertEquals(0, zero.effectiveChunkRows(), "zero copy transfers nothing to overlap");
            }
        }
    }
}
