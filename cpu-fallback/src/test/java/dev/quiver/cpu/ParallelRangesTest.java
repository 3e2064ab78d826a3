package dev.quiver.cpu;

import static dev.quiver.types.ElementType.FLOAT64;
import static dev.quiver.types.ElementType.INT64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A large batch split between threads computes exactly what one thread does, fails at the earliest row, and counts rows. */
class ParallelRangesTest {
    /** Rows: several ranges for 4 threads, and a tail that is not a whole step. */
    static final int ROWS = 4 * CpuBackend.PARALLEL_MIN_ROWS + 77;

    @Test
    void rangesOnSeveralThreadsMatchTheReferenceWithBitmapsNullConditionsAndRowModes() {
        IrNode x = Ir.arg(0, FLOAT64), a = Ir.arg(1, INT64);
        List<KernelProgram> programs = List.of(
                new KernelProgram(List.of(FLOAT64, INT64), Ir.add(Ir.sqrt(Ir.abs(x)), Ir.cast(a, FLOAT64))),
                // A Boolean result: every range writes whole bytes of its own.
                new KernelProgram(List.of(FLOAT64, INT64), Ir.compare(CmpOp.GT, x, Ir.cast(a, FLOAT64))),
                // A null condition clears validity bits in every range.
                new KernelProgram(
                        List.of(FLOAT64, INT64), Ir.mul(x, x), Ir.compare(CmpOp.LT, x, Ir.lit(0.0)), true, "x * x"));
        CpuBackend parallel = new CpuBackend(64, 4, 1);
        try (Arena arena = Arena.ofConfined()) {
            Random r = new Random(5);
            MemorySegment xs = arena.allocate(ROWS * 8L, 8), as = arena.allocate(ROWS * 8L, 8);
            for (int i = 0; i < ROWS; i++) {
                RowInterpreter.write(xs, FLOAT64, i, r.nextGaussian());
                RowInterpreter.write(as, INT64, i, (long) r.nextInt(5) - 2);
            }
            for (KernelProgram p : programs) {
                for (RowMode mode : RowMode.values()) {
                    MemorySegment valid = Oracle.validity(arena, ROWS, new Random(6), 0.2);
                    KernelRun run = Oracle.check(parallel, p, List.of(xs, as), valid, ROWS, mode);
                    if (mode == RowMode.ALL_ROWS) {
                        assertEquals(ROWS, run.rowsComputed(), p.text());
                    }
                }
            }
        }
    }

    @Test
    void theEarliestFailingRowWinsWhicheverRangeFinishesFirst() {
        IrNode a = Ir.arg(0, INT64), b = Ir.arg(1, INT64);
        KernelProgram p = new KernelProgram(List.of(INT64, INT64), Ir.div(a, b));
        CpuBackend parallel = new CpuBackend(64, 4, 1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment as = arena.allocate(ROWS * 8L, 8), bs = arena.allocate(ROWS * 8L, 8);
            for (int i = 0; i < ROWS; i++) {
                RowInterpreter.write(as, INT64, i, (long) i);
                RowInterpreter.write(bs, INT64, i, 3L);
            }
            int late = ROWS - 100, early = CpuBackend.PARALLEL_MIN_ROWS + 5;
            RowInterpreter.write(bs, INT64, late, 0L);
            RowInterpreter.write(bs, INT64, early, 0L);
            MemorySegment valid = Oracle.validity(arena, ROWS, new Random(7), 0);
            MemorySegment out = arena.allocate(ROWS * 8L, 8);
            for (int attempt = 0; attempt < 20; attempt++) {
                KernelArithmeticException e = assertThrows(
                        KernelArithmeticException.class,
                        () -> parallel.execute(
                                p, new KernelInvocation(List.of(as, bs), valid, out, ROWS, RowMode.ALL_ROWS)));
                assertEquals(early, e.row(), e.getMessage());
            }
            ValidityBitmaps.clear(valid, early);
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> parallel.execute(
                            p, new KernelInvocation(List.of(as, bs), valid, out, ROWS, RowMode.VALID_ROWS)));
            assertEquals(late, e.row(), "a null row does not fail in VALID_ROWS: " + e.getMessage());
            assertTrue(e.getMessage().endsWith("(on cpu)"), e.getMessage());
        }
    }

    @Test
    void oneThreadMeansTheCallingThreadOnly() {
        assertEquals(1, new CpuBackend(1).threads());
        assertEquals(Runtime.getRuntime().availableProcessors(), new CpuBackend().threads());
        assertThrows(IllegalArgumentException.class, () -> new CpuBackend(0));
        // What is split: rows and work per thread (a cheap loop over 64K rows is not worth waking a helper).
        IrNode x = Ir.arg(0, FLOAT64);
        KernelProgram cheap = new KernelProgram(List.of(FLOAT64), Ir.mul(x, x));
        IrNode y = x;
        for (int i = 0; i < 4; i++) {
            y = Ir.unary(i % 2 == 0 ? UnaryOp.COS : UnaryOp.SIN, y);
        }
        KernelProgram costly =
                new KernelProgram(List.of(FLOAT64), y); // four transcendental functions, as haversine has five
        assertTrue(
                CpuBackend.weight(costly) >= 64 && CpuBackend.weight(cheap) <= 3,
                CpuBackend.weight(costly) + " " + CpuBackend.weight(cheap));
        assertTrue(65536 * CpuBackend.weight(cheap) < 2 * CpuBackend.PARALLEL_MIN_WORK);
        assertTrue(65536 * CpuBackend.weight(costly) >= 2 * CpuBackend.PARALLEL_MIN_WORK);
    }

    @Test
    void aCaseOrAConjunctionOfCheapTermsIsMemoryBound() {
        IrNode x = Ir.arg(0, FLOAT64), y = Ir.arg(1, FLOAT64), z = Ir.arg(2, FLOAT64);
        IrNode test = Ir.and(
                Ir.compare(CmpOp.GT, x, Ir.lit(FLOAT64, 0.5)),
                Ir.not(Ir.or(Ir.compare(CmpOp.LT, y, Ir.lit(FLOAT64, 0.25)), Ir.compare(CmpOp.EQ, z, x))));
        KernelProgram blend = new KernelProgram(List.of(FLOAT64, FLOAT64, FLOAT64), Ir.select(test, Ir.mul(x, y), z));
        // Three streams, three comparisons, two literals, one multiply and a blend: the logic weighs nothing.
        assertEquals(3 + 3 + 2 + 1 + 1, CpuBackend.weight(blend));
        assertTrue(CpuBackend.weight(blend) < CpuBackend.MIN_SPLIT_WEIGHT);
        CpuBackend cpu = new CpuBackend(4);
        try {
            assertEquals(1, cpu.threadsFor(blend, 1 << 22), "a blend of cheap branches is bound by memory");
        } finally {
            cpu.close();
        }
    }

    @Test
    void aMemoryBoundProgramStaysOnOneThreadWhileAComputeBoundOneIsSplit() {
        IrNode x = Ir.arg(0, FLOAT64), y = Ir.arg(1, FLOAT64);
        KernelProgram cheap = new KernelProgram(List.of(FLOAT64, FLOAT64), Ir.add(Ir.mul(x, y), x));
        KernelProgram heavy = new KernelProgram(
                List.of(FLOAT64, FLOAT64), Ir.add(Ir.unary(UnaryOp.SIN, x), Ir.unary(UnaryOp.COS, y)));
        CpuBackend cpu = new CpuBackend(4);
        try {
            assertEquals(1, cpu.threadsFor(cheap, 1 << 22), "a * b + c is bound by memory at any size");
            assertEquals(1, cpu.threadsFor(heavy, CpuBackend.PARALLEL_MIN_ROWS), "too few rows to split");
            assertEquals(4, cpu.threadsFor(heavy, 1 << 20));
            // What placement may ask for instead, by rows alone: it measures whether the cheap loop gains.
            assertEquals(4, cpu.maxThreadsFor(cheap, 1 << 22));
            assertEquals(1, cpu.maxThreadsFor(cheap, 2L * CpuBackend.PARALLEL_MIN_ROWS - 1));
            assertEquals(2, cpu.maxThreadsFor(heavy, 2L * CpuBackend.PARALLEL_MIN_ROWS));
        } finally {
            cpu.close();
        }
    }

    @Test
    void theThreadsAnInvocationAsksForAreUsedWhateverTheProgramWeighs() {
        IrNode x = Ir.arg(0, FLOAT64), a = Ir.arg(1, INT64);
        // Memory-bound: by its own guess the backend keeps it on one thread.
        KernelProgram cheap = new KernelProgram(List.of(FLOAT64, INT64), Ir.add(Ir.mul(x, x), Ir.cast(a, FLOAT64)));
        int rows = 1 << 17;
        CpuBackend one = new CpuBackend(4);
        CpuBackend split = new CpuBackend(4);
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(1, one.threadsFor(cheap, rows));
            Random r = new Random(7);
            MemorySegment xs = arena.allocate(rows * 8L, 8), as = arena.allocate(rows * 8L, 8);
            for (int i = 0; i < rows; i++) {
                RowInterpreter.write(xs, FLOAT64, i, r.nextGaussian());
                RowInterpreter.write(as, INT64, i, (long) r.nextInt(1000) - 500);
            }
            MemorySegment valid = Oracle.validity(arena, rows, new Random(8), 0.1);
            Oracle.check(one, cheap, List.of(xs, as), valid, rows, RowMode.VALID_ROWS, 1);
            assertFalse(one.helpersStarted(), "one thread: the calling thread alone");
            Oracle.check(split, cheap, List.of(xs, as), valid, rows, RowMode.VALID_ROWS, 4);
            assertTrue(split.helpersStarted(), "four threads asked for: the batch was split");
        } finally {
            one.close();
            split.close();
        }
    }
}
