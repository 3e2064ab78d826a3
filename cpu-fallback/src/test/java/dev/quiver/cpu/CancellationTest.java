package dev.quiver.cpu;

import static dev.quiver.types.ElementType.FLOAT64;
import static dev.quiver.types.ElementType.INT64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.cancel.CancelHandle;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CPU backend's kernel boundaries: between the ranges of a split batch (whichever thread takes
 * them), between the chunks a costly loop runs in on one thread, and every few rows of a program run
 * row by row. A cancelled run stops there; the backend then computes the next run as the reference does.
 */
class CancellationTest {
    /** A loop of some cost: 8 sines of a running sum. */
    static KernelProgram heavy(boolean divide) {
        IrNode x = Ir.arg(0, FLOAT64);
        IrNode v = x;
        for (int i = 0; i < 8; i++) {
            v = Ir.add(Ir.unary(UnaryOp.SIN, v), x);
        }
        if (divide) {
            v = Ir.add(v, Ir.cast(Ir.div(Ir.arg(1, INT64), Ir.arg(2, INT64)), FLOAT64));
            return new KernelProgram(List.of(FLOAT64, INT64, INT64), v);
        }
        return new KernelProgram(List.of(FLOAT64), v);
    }

    private static final int ROWS = 8 * 1024 + 77;

    /** One thread, a check every 16K units of work: {@link #heavy} runs a batch of {@link #ROWS} rows in 1024-row chunks. */
    private static CpuBackend chunking() {
        return new CpuBackend(64, 1, CpuBackend.PARALLEL_MIN_WORK, 1 << 14);
    }

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void aCostlyBatchOnOneThreadRunsInChunksThatComputeWhatTheReferenceComputes() {
        CpuBackend cpu = chunking();
        KernelProgram p = heavy(false);
        long chunk = cpu.chunkRows(p, cpu.lanes(p));
        assertTrue(3 * chunk < ROWS, "at least four chunks of " + chunk + " rows");
        try (Arena arena = Arena.ofConfined()) {
            Random r = new Random(Oracle.SEED);
            List<MemorySegment> args = List.of(Oracle.fill(arena, FLOAT64, ROWS, r));
            for (RowMode mode : RowMode.values()) {
                assertNotNull(Oracle.check(cpu, p, args, Oracle.validity(arena, ROWS, r, 0.1), ROWS, mode));
            }
        }
    }

    @Test
    void theEarliestFailingRowOfAChunkedBatchIsNamedInBatchNumbering() {
        CpuBackend cpu = chunking();
        KernelProgram p = heavy(true);
        long chunk = cpu.chunkRows(p, cpu.lanes(p));
        assertTrue(3 * chunk < ROWS, "at least four chunks of " + chunk + " rows");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = arena.allocate(ROWS * 8L, 8),
                    a = arena.allocate(ROWS * 8L, 8),
                    b = arena.allocate(ROWS * 8L, 8);
            for (int i = 0; i < ROWS; i++) {
                RowInterpreter.write(x, FLOAT64, i, i * 0.001);
                RowInterpreter.write(a, INT64, i, (long) i);
                RowInterpreter.write(b, INT64, i, 7L);
            }
            long early = 2 * chunk + 13, late = ROWS - 3;
            RowInterpreter.write(b, INT64, early, 0L);
            RowInterpreter.write(b, INT64, late, 0L);
            MemorySegment valid = Oracle.validity(arena, ROWS, new Random(1), 0);
            // Oracle.check asserts the row and the message the reference gives: the earliest, in the third chunk.
            assertEquals(null, Oracle.check(cpu, p, List.of(x, a, b), valid, ROWS, RowMode.ALL_ROWS));
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> cpu.execute(
                            p,
                            new KernelInvocation(
                                    List.of(x, a, b), valid, arena.allocate(ROWS * 8L, 8), ROWS, RowMode.ALL_ROWS)));
            assertEquals(early, e.row());
        }
    }

    @Test
    void aCancelledHandleStopsAChunkedBatchASplitBatchAndARowByRowRun() {
        record Case(String name, CpuBackend cpu, KernelProgram program, int rows) {}
        IrNode x = Ir.arg(0, FLOAT64);
        List<Case> cases = List.of(
                new Case("chunked on one thread", chunking(), heavy(false), ROWS),
                // Splits even a cheap loop (a test backend): 4 threads take the ranges.
                new Case(
                        "split between threads",
                        new CpuBackend(64, 4, 1),
                        new KernelProgram(List.of(FLOAT64), Ir.add(Ir.sqrt(Ir.abs(x)), x)),
                        4 * CpuBackend.PARALLEL_MIN_ROWS + 77),
                new Case("row by row", new CpuBackend(1), LoopTooLargeTest.nestedGcd(INT64), 300));
        for (Case c : cases) {
            try (Arena arena = Arena.ofConfined()) {
                Random r = new Random(Oracle.SEED);
                List<MemorySegment> args = c.program.argTypes().stream()
                        .map(t -> Oracle.fill(arena, t, c.rows, r))
                        .toList();
                MemorySegment validity = Oracle.validity(arena, c.rows, r, 0.1);
                MemorySegment out = arena.allocate((long) c.rows * 8, 8);
                KernelInvocation invocation =
                        new KernelInvocation(args, Oracle.copy(arena, validity), out, c.rows, RowMode.VALID_ROWS);
                CancelHandle handle = new CancelHandle();
                handle.cancel();
                CancelledException e = assertThrows(
                        CancelledException.class,
                        () -> handle.call(() -> c.cpu.execute(c.program, invocation)),
                        c.name);
                assertEquals(Cancellation.CANCELLED, e.detail(), c.name);

                Thread.currentThread().interrupt();
                e = assertThrows(CancelledException.class, () -> c.cpu.execute(c.program, invocation), c.name);
                assertEquals(Cancellation.INTERRUPTED, e.detail(), c.name);
                assertTrue(Thread.interrupted(), c.name + ": the interrupt flag stays set");

                // The backend is as it was: the next run is the reference's.
                Oracle.check(c.cpu, c.program, args, validity, c.rows, RowMode.VALID_ROWS);
            }
            c.cpu.close();
        }
    }
}
