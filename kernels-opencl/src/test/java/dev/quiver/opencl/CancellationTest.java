package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.cancel.CancelHandle;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The overlapped COPY path checks for cancellation before it enqueues each chunk: a cancelled
 * (or interrupted) run enqueues nothing more, waits for what it had enqueued, releases every
 * OpenCL object of the run and gives its staging slots back; the next run computes what the
 * reference computes.
 */
class CancellationTest {
    private static final int CHUNK = OpenClBackend.CHUNK_GRAIN;
    private static final int ROWS = 3 * CHUNK + 77;

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void aCancelledOrInterruptedOverlappedRunStopsBetweenChunksAndLeavesNothingBehind() {
        TestDevices.require();
        IrNode x = Ir.arg(0, ElementType.FLOAT64), y = Ir.arg(1, ElementType.FLOAT64);
        KernelProgram p =
                new KernelProgram(List.of(ElementType.FLOAT64, ElementType.FLOAT64), Ir.add(Ir.mul(x, y), Ir.sqrt(x)));
        OpenClDevice device = OpenClRuntime.discover().devices().getFirst();
        try (OpenClBackend backend =
                        OpenClBackend.open(device, TransferMode.COPY).overlapChunkRows(CHUNK);
                Arena arena = Arena.ofConfined()) {
            assertTrue(backend.overlaps(ROWS));
            SplittableRandom r = new SplittableRandom(3);
            Differential.Inputs in = new Differential.Inputs(
                    List.of(
                            Differential.column(arena, ElementType.FLOAT64, ROWS, row -> r.nextDouble() * 100),
                            Differential.column(arena, ElementType.FLOAT64, ROWS, row -> r.nextDouble() - 0.5)),
                    Differential.validity(arena, ROWS, r, 0.1),
                    ROWS);
            // A first run builds the program and leases the staging slots, so what follows is a run's own.
            Differential.check(backend, p, in, RowMode.VALID_ROWS, -1, arena, "before");
            OpenClBackend.LiveObjects before = backend.liveObjects();
            MemorySegment out = arena.allocate(ROWS * 8L, 8);
            KernelInvocation invocation = new KernelInvocation(in.args(), in.validity(), out, ROWS, RowMode.VALID_ROWS);

            CancelHandle handle = new CancelHandle();
            handle.cancel();
            CancelledException cancelled =
                    assertThrows(CancelledException.class, () -> handle.call(() -> backend.execute(p, invocation)));
            assertEquals(Cancellation.CANCELLED, cancelled.detail());
            assertEquals(
                    before, backend.liveObjects(), "nothing of the cancelled run is left, its staging slots are back");

            Thread.currentThread().interrupt();
            CancelledException interrupted =
                    assertThrows(CancelledException.class, () -> backend.execute(p, invocation));
            assertEquals(Cancellation.INTERRUPTED, interrupted.detail());
            assertTrue(Thread.interrupted(), "the interrupt flag stays set");
            assertEquals(before, backend.liveObjects());

            Differential.check(backend, p, in, RowMode.VALID_ROWS, -1, arena, "after the cancelled runs");
            assertEquals(before, backend.liveObjects());
        }
    }
}
