package dev.quiver.cpu;

import static dev.quiver.types.ElementType.BOOL;
import static dev.quiver.types.ElementType.FLOAT64;
import static dev.quiver.types.ElementType.INT64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Checks and failing rows, row modes and skipped steps, the null condition, Boolean bitmaps. */
class RowModesAndChecksTest {
    private static final IrNode A = Ir.arg(0, INT64), B = Ir.arg(1, INT64), X = Ir.arg(2, FLOAT64);
    private static final List<ElementType> TYPES = List.of(INT64, INT64, FLOAT64);

    /**
     * {@code check(x > 100, x, "too big") + a / b}, null when {@code check(x < -100, false, "too small")}:
     * three ways to fail, one of them in the null condition.
     */
    static KernelProgram threeFailures() {
        IrNode value = Ir.add(Ir.check(Ir.compare(CmpOp.GT, X, Ir.lit(100.0)), X, "too big", X), Ir.div(A, B));
        IrNode nullWhen = Ir.check(Ir.compare(CmpOp.LT, X, Ir.lit(-100.0)), Ir.lit(false), "too small", X);
        return new KernelProgram(TYPES, value, nullWhen, true, "three failures");
    }

    private static List<MemorySegment> args(Arena arena, int rows) {
        List<MemorySegment> args = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            args.add(arena.allocate(rows * 8L, 8));
        }
        for (int i = 0; i < rows; i++) {
            RowInterpreter.write(args.get(0), INT64, i, (long) i);
            RowInterpreter.write(args.get(1), INT64, i, 1L + i % 3);
            RowInterpreter.write(args.get(2), FLOAT64, i, (double) i);
        }
        return args;
    }

    private static long failingRow(
            CpuBackend cpu,
            KernelProgram p,
            List<MemorySegment> args,
            MemorySegment valid,
            int rows,
            RowMode mode,
            String expectedMessage) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(rows * 8L, 8);
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> cpu.execute(p, new KernelInvocation(args, valid, out, rows, mode)));
            assertTrue(e.getMessage().startsWith(expectedMessage), e.getMessage());
            assertTrue(e.getMessage().endsWith("at row " + e.row() + " (on cpu)"), e.getMessage());
            return e.row();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8, 64})
    void theFirstFailingRowIsReportedWhicheverCheckOrDivisionFails(int maxLanes) {
        CpuBackend cpu = new CpuBackend(maxLanes, 4);
        KernelProgram p = threeFailures();
        int rows = 50;
        try (Arena arena = Arena.ofConfined()) {
            List<MemorySegment> args = args(arena, rows);
            RowInterpreter.write(args.get(1), INT64, 13, 0L); // division by zero at 13
            RowInterpreter.write(args.get(2), FLOAT64, 11, -200.0); // too small (the null condition) at 11
            RowInterpreter.write(args.get(2), FLOAT64, 12, 300.0); // too big at 12
            RowInterpreter.write(args.get(2), FLOAT64, 47, 300.0); // and in the tail
            MemorySegment valid = Oracle.validity(arena, rows, new Random(1), 0);
            assertEquals(
                    11,
                    failingRow(
                            cpu,
                            p,
                            args,
                            valid,
                            rows,
                            RowMode.VALID_ROWS,
                            "too small (value -200.0) in three failures"));
            ValidityBitmaps.clear(valid, 11);
            assertEquals(12, failingRow(cpu, p, args, valid, rows, RowMode.VALID_ROWS, "too big (value 300.0)"));
            ValidityBitmaps.clear(valid, 12);
            assertEquals(13, failingRow(cpu, p, args, valid, rows, RowMode.VALID_ROWS, "integer division by zero"));
            ValidityBitmaps.clear(valid, 13);
            assertEquals(47, failingRow(cpu, p, args, valid, rows, RowMode.VALID_ROWS, "too big"));
            // ALL_ROWS: nulls do not hide failures.
            assertEquals(11, failingRow(cpu, p, args, valid, rows, RowMode.ALL_ROWS, "too small"));
            // Without the failing values, every row computes.
            RowInterpreter.write(args.get(1), INT64, 13, 1L);
            for (int i : new int[] {11, 12, 47}) {
                RowInterpreter.write(args.get(2), FLOAT64, i, 0.0);
            }
            MemorySegment out = arena.allocate(rows * 8L, 8);
            KernelRun run = cpu.execute(p, new KernelInvocation(args, valid, out, rows, RowMode.ALL_ROWS));
            assertEquals(rows, run.rowsComputed());
            assertEquals(20.0 + 20 / 3, RowInterpreter.read(out, FLOAT64, 20));
        }
    }

    @Test
    void aFailureUnderTheSideOfASelectNotTakenStillFails() {
        // Both sides of a select are computed, as in the reference.
        KernelProgram p =
                new KernelProgram(TYPES, Ir.select(Ir.compare(CmpOp.NE, B, Ir.lit(0L)), Ir.div(A, B), Ir.lit(0L)));
        try (Arena arena = Arena.ofConfined()) {
            List<MemorySegment> args = args(arena, 20);
            RowInterpreter.write(args.get(1), INT64, 5, 0L);
            MemorySegment valid = Oracle.validity(arena, 20, new Random(1), 0);
            assertEquals(
                    5,
                    failingRow(new CpuBackend(), p, args, valid, 20, RowMode.VALID_ROWS, "integer division by zero"));
        }
    }

    @Test
    void paddingLanesOfTheTailNeverFail() {
        // Zero divisors in the padding of the last step (the scratch block is zero-filled).
        KernelProgram p = new KernelProgram(TYPES, Ir.binary(BinaryOp.REM, A, B));
        CpuBackend cpu = new CpuBackend();
        for (int rows : new int[] {1, 3, 9, 17}) {
            try (Arena arena = Arena.ofConfined()) {
                List<MemorySegment> args = args(arena, rows);
                MemorySegment valid = Oracle.validity(arena, rows, new Random(2), 0);
                for (RowMode mode : RowMode.values()) {
                    Oracle.check(cpu, p, args, valid, rows, mode);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8, 16, 64})
    void validRowsSkipsStepsWithoutAValidRowAndCountsTheRowsComputed(int maxLanes) {
        CpuBackend cpu = new CpuBackend(maxLanes, 4);
        int rows = 1000;
        List<KernelProgram> programs = List.of(
                new KernelProgram(TYPES, Ir.mul(X, X)),
                new KernelProgram(List.of(BOOL, BOOL), Ir.and(Ir.arg(0, BOOL), Ir.arg(1, BOOL))),
                new KernelProgram(List.of(FLOAT64, BOOL), Ir.compare(CmpOp.GT, Ir.arg(0, FLOAT64), Ir.lit(1.0))));
        try (Arena arena = Arena.ofConfined()) {
            for (KernelProgram p : programs) {
                List<MemorySegment> args = new ArrayList<>();
                for (ElementType t : p.argTypes()) {
                    args.add(Oracle.fill(arena, t, rows, new Random(3)));
                }
                MemorySegment valid = arena.allocate(rows / 8);
                for (int i : new int[] {0, 1, 2, 997, 998, 999}) {
                    ValidityBitmaps.set(valid, i);
                }
                int lanes = cpu.lanes(p);
                KernelRun run = Oracle.check(cpu, p, args, valid, rows, RowMode.VALID_ROWS);
                // The steps holding rows 0-2 and 997-999; the last one ends at the last row.
                long expected = ((2 / lanes) + 1) * (long) lanes + (rows - (997 / lanes) * (long) lanes);
                assertEquals(expected, run.rowsComputed(), p + " with " + lanes + " lanes");
                assertTrue(run.rowsComputed() <= 2L * lanes + 4, p.toString());
                assertEquals(
                        rows,
                        Oracle.check(cpu, p, args, valid, rows, RowMode.ALL_ROWS)
                                .rowsComputed());
                MemorySegment none = arena.allocate(rows / 8);
                assertEquals(
                        0,
                        Oracle.check(cpu, p, args, none, rows, RowMode.VALID_ROWS)
                                .rowsComputed());
            }
        }
    }

    @Test
    void theNullConditionClearsTheValidityOfComputedRows() {
        // x / y, null where y == 0 (NULLIF-style), over nulls: null input rows stay null, the rest follow y.
        IrNode x = Ir.arg(0, FLOAT64), y = Ir.arg(1, FLOAT64);
        KernelProgram p = new KernelProgram(
                List.of(FLOAT64, FLOAT64),
                Ir.div(x, y),
                Ir.compare(CmpOp.EQ, y, Ir.lit(0.0)),
                true,
                "x / nullif(y, 0)");
        int rows = 77;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment xs = arena.allocate(rows * 8L), ys = arena.allocate(rows * 8L);
            for (int i = 0; i < rows; i++) {
                RowInterpreter.write(xs, FLOAT64, i, (double) i);
                RowInterpreter.write(ys, FLOAT64, i, i % 5 == 0 ? (i % 10 == 0 ? 0.0 : -0.0) : 2.0);
            }
            MemorySegment valid = Oracle.validity(arena, rows, new Random(4), 0.2);
            for (CpuBackend cpu : List.of(new CpuBackend(), new CpuBackend(2))) {
                for (RowMode mode : RowMode.values()) {
                    MemorySegment v = Oracle.copy(arena, valid);
                    MemorySegment out = arena.allocate(rows * 8L);
                    cpu.execute(p, new KernelInvocation(List.of(xs, ys), v, out, rows, mode));
                    for (int i = 0; i < rows; i++) {
                        assertEquals(
                                ValidityBitmaps.isValid(valid, i) && i % 5 != 0,
                                ValidityBitmaps.isValid(v, i),
                                "row " + i);
                    }
                    Oracle.check(cpu, p, List.of(xs, ys), valid, rows, mode);
                }
            }
        }
    }

    @Test
    void aNonStrictProgramDecidesEveryRowsValidityWithItsNullCondition() {
        // coalesce-like: x if x is valid, else 0; the caller passes x's validity as a Boolean argument
        // and an all-set validity.
        IrNode x = Ir.arg(0, FLOAT64), xValid = Ir.arg(1, BOOL), yValid = Ir.arg(2, BOOL);
        KernelProgram p = new KernelProgram(
                List.of(FLOAT64, BOOL, BOOL),
                Ir.select(xValid, x, Ir.lit(0.0)),
                Ir.and(Ir.not(xValid), Ir.not(yValid)),
                false,
                "coalesce(x, 0) unless y is null too");
        int rows = 130;
        try (Arena arena = Arena.ofConfined()) {
            Random r = new Random(5);
            MemorySegment xs = Oracle.fill(arena, FLOAT64, rows, r);
            MemorySegment xv = Oracle.validity(arena, rows, r, 0.5), yv = Oracle.validity(arena, rows, r, 0.5);
            for (CpuBackend cpu : List.of(new CpuBackend(), new CpuBackend(4))) {
                MemorySegment valid = Oracle.validity(arena, rows, r, 0);
                MemorySegment out = arena.allocate(rows * 8L);
                cpu.execute(p, new KernelInvocation(List.of(xs, xv, yv), valid, out, rows, RowMode.ALL_ROWS));
                for (int i = 0; i < rows; i++) {
                    boolean xOk = ValidityBitmaps.isValid(xv, i), yOk = ValidityBitmaps.isValid(yv, i);
                    assertEquals(xOk || yOk, ValidityBitmaps.isValid(valid, i), "row " + i);
                    if (xOk) {
                        assertEquals(RowInterpreter.read(xs, FLOAT64, i), RowInterpreter.read(out, FLOAT64, i));
                    } else if (yOk) {
                        assertEquals(0.0, RowInterpreter.read(out, FLOAT64, i));
                    }
                }
            }
        }
    }

    @Test
    void booleanResultsLeaveTheBitsPastTheLastRowAlone() {
        // Rows that end mid-byte, with lanes that start mid-byte (2 and 4 lanes).
        KernelProgram p = new KernelProgram(
                List.of(FLOAT64, BOOL), Ir.or(Ir.compare(CmpOp.GT, Ir.arg(0, FLOAT64), Ir.lit(0.0)), Ir.arg(1, BOOL)));
        for (CpuBackend cpu : List.of(new CpuBackend(), new CpuBackend(2), new CpuBackend(4))) {
            for (int rows = 1; rows <= 40; rows++) {
                try (Arena arena = Arena.ofConfined()) {
                    Random r = new Random(rows);
                    List<MemorySegment> args =
                            List.of(Oracle.fill(arena, FLOAT64, rows, r), Oracle.fill(arena, BOOL, rows, r));
                    for (RowMode mode : RowMode.values()) {
                        Oracle.check(cpu, p, args, Oracle.validity(arena, rows, r, 0.3), rows, mode);
                    }
                }
            }
        }
    }

    @Test
    void theCpuRunsEveryProgram() {
        CpuBackend cpu = new CpuBackend();
        for (KernelProgram p : OpCoverageTest.programs()) {
            assertTrue(cpu.unsupportedReason(p).isEmpty(), p.toString());
        }
    }
}
