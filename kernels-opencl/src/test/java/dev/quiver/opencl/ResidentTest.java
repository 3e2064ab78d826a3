package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.ResidencyScope;
import dev.quiver.backend.ResidentKey;
import dev.quiver.backend.RowMode;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Resident arguments on the COPY path: a key's memory is uploaded once and reused while the key
 * is valid (its scope open, or, for contents keys, until evicted); results stay those of the
 * reference; a small budget evicts least recently used entries and stays correct; a scope's
 * close and the backend's close release every buffer.
 */
class ResidentTest {
    private static final int ROWS = 10_007;
    private static final long BYTES = ROWS * 8L;
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final IrNode Y = Ir.arg(1, ElementType.FLOAT64);
    private static final List<ElementType> TWO = List.of(ElementType.FLOAT64, ElementType.FLOAT64);
    private static final KernelProgram SUM = new KernelProgram(TWO, Ir.add(X, Y));
    private static final KernelProgram PRODUCT = new KernelProgram(TWO, Ir.mul(X, Ir.add(Y, Ir.lit(1.0))));

    private static OpenClBackend copyBackend() {
        return OpenClBackend.open(OpenClRuntime.discover().devices().getFirst(), TransferMode.COPY)
                .overlapChunkRows(0);
    }

    private static MemorySegment column(Arena arena, int rows, double scale) {
        MemorySegment s = arena.allocate(rows * 8L, 8);
        for (int r = 0; r < rows; r++) {
            s.setAtIndex(ValueLayout.JAVA_DOUBLE, r, (r - 500) * scale);
        }
        return s;
    }

    private static MemorySegment allValid(Arena arena, int rows) {
        MemorySegment v = arena.allocate((rows + 7) / 8);
        v.fill((byte) 0xFF);
        return v;
    }

    /** Runs {@code p} and checks every row against the reference; returns the run. */
    private static KernelRun runAndCheck(
            OpenClBackend backend,
            KernelProgram p,
            MemorySegment x,
            MemorySegment y,
            List<ResidentKey> keys,
            Arena arena) {
        int rows = (int) (x.byteSize() / 8);
        MemorySegment out = arena.allocate(rows * 8L, 8);
        KernelRun run = backend.execute(
                p, new KernelInvocation(List.of(x, y), allValid(arena, rows), out, rows, RowMode.ALL_ROWS, keys));
        for (int r = 0; r < rows; r++) {
            double want = RowInterpreter.evaluate(p.root(), new Number[] {
                        x.getAtIndex(ValueLayout.JAVA_DOUBLE, r), y.getAtIndex(ValueLayout.JAVA_DOUBLE, r)
                    })
                    .doubleValue();
            assertEquals(
                    Double.doubleToRawLongBits(want),
                    Double.doubleToRawLongBits(out.getAtIndex(ValueLayout.JAVA_DOUBLE, r)),
                    p + " row " + r);
        }
        return run;
    }

    @Test
    void aBatchColumnReadByTwoSegmentsIsUploadedOnce() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend();
                Arena arena = Arena.ofConfined()) {
            MemorySegment x = column(arena, ROWS, 0.5), y = column(arena, ROWS, 3);
            try (ResidencyScope batch = new ResidencyScope()) {
                List<ResidentKey> keys = Arrays.asList(ResidentKey.inScope(batch, x, BYTES), null);
                KernelRun first = runAndCheck(backend, SUM, x, y, keys, arena);
                assertEquals(2 * BYTES, first.bytesToDevice(), "first run: both columns go up");
                KernelRun second = runAndCheck(backend, PRODUCT, x, y, keys, arena);
                assertEquals(BYTES, second.bytesToDevice(), "second run: x is on the device already");
                ResidentStats s = backend.residentStats();
                assertEquals(1, s.uploads());
                assertEquals(1, s.hits());
                assertEquals(1, s.entries());
                assertEquals(BYTES, s.bytes());
                assertEquals(
                        BYTES,
                        backend.residentBytes(new KernelInvocation(
                                List.of(x, y),
                                allValid(arena, ROWS),
                                arena.allocate(BYTES),
                                ROWS,
                                RowMode.ALL_ROWS,
                                keys)));
                assertEquals(1, backend.liveObjects().held());
            }
            // The scope closed: nothing of the batch stays on the device.
            assertEquals(0, backend.residentStats().entries());
            assertEquals(0, backend.liveObjects().held());
            assertEquals(0, backend.liveObjects().runScoped());
        }
    }

    @Test
    void aKeyOfAClosedScopeIsNotKept() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend();
                Arena arena = Arena.ofConfined()) {
            MemorySegment x = column(arena, ROWS, 0.5), y = column(arena, ROWS, 3);
            ResidencyScope closed = new ResidencyScope();
            closed.close();
            KernelRun run =
                    runAndCheck(backend, SUM, x, y, Arrays.asList(ResidentKey.inScope(closed, x, BYTES), null), arena);
            assertEquals(2 * BYTES, run.bytesToDevice());
            assertEquals(0, backend.residentStats().entries());
        }
    }

    @Test
    void equalContentsAreUploadedOnceAcrossBatches() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend();
                Arena arena = Arena.ofConfined()) {
            MemorySegment y = column(arena, ROWS, 3);
            for (int batch = 0; batch < 3; batch++) {
                // A new copy of the same dictionary each batch, at a new address.
                MemorySegment x = column(arena, ROWS, 0.5);
                KernelRun run =
                        runAndCheck(backend, SUM, x, y, Arrays.asList(ResidentKey.constant(x, BYTES), null), arena);
                assertEquals(batch == 0 ? 2 * BYTES : BYTES, run.bytesToDevice(), "batch " + batch);
            }
            MemorySegment other = column(arena, ROWS, 0.25);
            KernelRun run =
                    runAndCheck(backend, SUM, other, y, Arrays.asList(ResidentKey.constant(other, BYTES), null), arena);
            assertEquals(2 * BYTES, run.bytesToDevice(), "different contents are a different key");
            ResidentStats s = backend.residentStats();
            assertEquals(2, s.uploads());
            assertEquals(2, s.hits());
            assertEquals(2, s.entries());
            backend.close();
            assertEquals(0, backend.liveObjects().total(), backend.liveObjects().toString());
        }
    }

    @Test
    void aSmallBudgetEvictsTheLeastRecentlyUsedAndStaysCorrect() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend().residentBudget(BYTES * 5 / 2);
                Arena arena = Arena.ofConfined()) {
            MemorySegment y = column(arena, ROWS, 3);
            List<MemorySegment> dictionaries = new ArrayList<>();
            for (int d = 0; d < 3; d++) {
                dictionaries.add(column(arena, ROWS, d + 1.5));
            }
            long uploaded = 0;
            for (int round = 0; round < 4; round++) {
                for (MemorySegment x : dictionaries) {
                    KernelRun run = runAndCheck(
                            backend,
                            round % 2 == 0 ? SUM : PRODUCT,
                            x,
                            y,
                            Arrays.asList(ResidentKey.constant(x, BYTES), null),
                            arena);
                    uploaded += run.bytesToDevice() - BYTES;
                    assertTrue(backend.residentStats().bytes() <= backend.residentBudget());
                }
            }
            ResidentStats s = backend.residentStats();
            assertEquals(2, s.entries(), "two fit in the budget");
            assertTrue(s.evictions() > 0, s.toString());
            // Rotating three keys through room for two: least recently used goes first, so each run uploads again.
            assertEquals(12, s.uploads(), s.toString());
            assertEquals(12 * BYTES, uploaded);
            // One larger than the whole budget is not kept at all.
            MemorySegment big = column(arena, 3 * ROWS, 1), bigY = column(arena, 3 * ROWS, 2);
            runAndCheck(backend, SUM, big, bigY, Arrays.asList(ResidentKey.constant(big, 3 * BYTES), null), arena);
            assertEquals(12, backend.residentStats().uploads());
            assertEquals(2, backend.liveObjects().held());
        }
    }

    @Test
    void loweringTheBudgetEvictsNowAndZeroKeepsNothing() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend();
                Arena arena = Arena.ofConfined()) {
            MemorySegment y = column(arena, ROWS, 3);
            for (int d = 0; d < 3; d++) {
                MemorySegment x = column(arena, ROWS, d + 0.5);
                runAndCheck(backend, SUM, x, y, Arrays.asList(ResidentKey.constant(x, BYTES), null), arena);
            }
            assertEquals(3, backend.residentStats().entries());
            backend.residentBudget(BYTES);
            assertEquals(1, backend.residentStats().entries(), "the least recently used two went");
            assertEquals(1, backend.liveObjects().held());
            backend.residentBudget(0);
            assertEquals(0, backend.residentStats().entries());
            MemorySegment x = column(arena, ROWS, 2.5);
            KernelRun run = runAndCheck(backend, SUM, x, y, Arrays.asList(ResidentKey.constant(x, BYTES), null), arena);
            assertEquals(2 * BYTES, run.bytesToDevice());
            assertEquals(0, backend.residentStats().entries(), "a zero budget keeps nothing");
        }
    }

    @Test
    void zeroCopyIgnoresKeys() {
        TestDevices.require();
        OpenClDevice device = OpenClRuntime.discover().devices().getFirst();
        Assumptions.assumeTrue(device.hostUnifiedMemory(), "zero copy needs host-unified memory");
        try (OpenClBackend backend = OpenClBackend.open(device, TransferMode.ZERO_COPY);
                Arena arena = Arena.ofConfined()) {
            MemorySegment x = column(arena, ROWS, 0.5), y = column(arena, ROWS, 3);
            KernelRun run = runAndCheck(backend, SUM, x, y, Arrays.asList(ResidentKey.constant(x, BYTES), null), arena);
            assertEquals(0, run.bytesToDevice());
            assertEquals(0, backend.residentStats().uploads());
        }
    }

    @Test
    void aFailedUploadKeepsNothing() {
        TestDevices.require();
        try (OpenClBackend backend = copyBackend();
                Arena arena = Arena.ofConfined()) {
            MemorySegment x = column(arena, ROWS, 0.5), y = column(arena, ROWS, 3);
            List<ResidentKey> keys = Arrays.asList(ResidentKey.constant(x, BYTES), null);
            try (FaultInjection.Plan plan =
                    FaultInjection.inject(backend, FaultInjection.Fault.of(FaultInjection.Call.CREATE_BUFFER))) {
                assertThrows(OpenClException.class, () -> runAndCheck(backend, SUM, x, y, keys, arena));
            }
            assertEquals(0, backend.residentStats().entries());
            assertEquals(0, backend.liveObjects().held());
            assertEquals(0, backend.liveObjects().runScoped());
            KernelRun run = runAndCheck(backend, SUM, x, y, keys, arena);
            assertEquals(2 * BYTES, run.bytesToDevice(), "the next run uploads it");
        }
    }

    @Test
    void overlappedChunksReadAResidentArgumentInPlace() {
        TestDevices.require();
        int rows = 4 * OpenClBackend.CHUNK_GRAIN + 3;
        long bytes = rows * 8L;
        try (OpenClBackend backend = copyBackend().overlapChunkRows(OpenClBackend.CHUNK_GRAIN);
                Arena arena = Arena.ofConfined()) {
            MemorySegment x = column(arena, rows, 0.5), y = column(arena, rows, 3);
            try (ResidencyScope batch = new ResidencyScope()) {
                List<ResidentKey> keys = Arrays.asList(ResidentKey.inScope(batch, x, bytes), null);
                assertEquals(
                        2 * bytes, runAndCheck(backend, SUM, x, y, keys, arena).bytesToDevice());
                assertEquals(
                        bytes, runAndCheck(backend, PRODUCT, x, y, keys, arena).bytesToDevice());
            }
            assertEquals(0, backend.liveObjects().runScoped());
        }
    }
}
