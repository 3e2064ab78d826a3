package dev.quiver.cpu;

import static dev.quiver.types.ElementType.FLOAT32;
import static dev.quiver.types.ElementType.FLOAT64;
import static dev.quiver.types.ElementType.INT32;
import static dev.quiver.types.ElementType.INT64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The fused CPU loops against the scalar reference interpreter, over plain native memory. */
class CpuBackendTest {
    private static final long SEED = Long.getLong("quiver.seed", 20261130L);

    private static final double[] HOSTILE_F64 = {
        0.0,
        -0.0,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        1.0,
        -1.0,
        1e-310,
        3.5
    };
    private static final long[] HOSTILE_I64 = {
        0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE, 7, -7
    };

    private final CpuBackend cpu = new CpuBackend();

    static MemorySegment fill(Arena arena, ElementType t, int rows, Random r) {
        MemorySegment s = arena.allocate(Math.max(1, (long) rows * t.byteWidth()), 8);
        for (int i = 0; i < rows; i++) {
            Number v = switch (t) {
                case FLOAT64 -> r.nextInt(4) == 0 ? HOSTILE_F64[r.nextInt(HOSTILE_F64.length)] : r.nextGaussian() * 1e3;
                case FLOAT32 ->
                    (float) (r.nextInt(4) == 0 ? HOSTILE_F64[r.nextInt(HOSTILE_F64.length)] : r.nextGaussian() * 1e3);
                case INT64 -> r.nextInt(3) == 0 ? HOSTILE_I64[r.nextInt(HOSTILE_I64.length)] : r.nextLong();
                case INT32 -> r.nextInt(3) == 0 ? (int) HOSTILE_I64[r.nextInt(HOSTILE_I64.length)] : r.nextInt();
                case BOOL -> r.nextInt(2);
            };
            RowInterpreter.write(s, t, i, v);
        }
        return s;
    }

    static MemorySegment validity(Arena arena, int rows, Random r, double nullFraction) {
        MemorySegment v = arena.allocate(Math.max(1, (rows + 7) / 8));
        for (int i = 0; i < rows; i++) {
            if (r.nextDouble() >= nullFraction) {
                v.set(ValueLayout.JAVA_BYTE, i / 8, (byte) (v.get(ValueLayout.JAVA_BYTE, i / 8) | (1 << (i % 8))));
            }
        }
        return v;
    }

    /** Compares valid rows bit for bit (floats by canonical bits, so any NaN equals any NaN). */
    static void assertSameValues(
            KernelProgram p, MemorySegment expected, MemorySegment actual, MemorySegment validity, int rows) {
        for (int i = 0; i < rows; i++) {
            if (!ValidityBitmaps.isValid(validity, i)) {
                continue;
            }
            Number e = RowInterpreter.read(expected, p.resultType(), i);
            Number a = RowInterpreter.read(actual, p.resultType(), i);
            long eb = bits(e), ab = bits(a);
            if (eb != ab) {
                throw new AssertionError(
                        p.text() + " row " + i + ": expected " + e + " got " + a + " (seed " + SEED + ")");
            }
        }
    }

    static long bits(Number n) {
        return switch (n) {
            case Double d -> Double.doubleToLongBits(d);
            case Float f -> Float.floatToIntBits(f);
            default -> n.longValue();
        };
    }

    static List<KernelProgram> programs() {
        IrNode x = Ir.arg(0, FLOAT64), y = Ir.arg(1, FLOAT64), z = Ir.arg(2, FLOAT64);
        IrNode i = Ir.arg(3, INT32), l = Ir.arg(4, INT64), f = Ir.arg(5, FLOAT32);
        List<ElementType> types = List.of(FLOAT64, FLOAT64, FLOAT64, INT32, INT64, FLOAT32);
        List<IrNode> roots = List.of(
                Ir.add(Ir.mul(x, y), z),
                Ir.sqrt(Ir.add(Ir.mul(x, x), Ir.mul(y, y))),
                Ir.fma(x, y, z),
                Ir.div(Ir.sub(x, Ir.lit(2.5)), Ir.neg(y)),
                Ir.min(x, y),
                Ir.max(x, Ir.abs(y)),
                Ir.add(Ir.mul(i, Ir.lit(3)), i),
                Ir.sub(Ir.neg(l), Ir.mul(l, Ir.lit(-7L))),
                Ir.min(Ir.abs(i), Ir.lit(5)),
                Ir.max(l, Ir.lit(0L)),
                Ir.fma(i, i, Ir.lit(1)),
                Ir.add(x, i),
                Ir.mul(l, x),
                Ir.add(f, i),
                Ir.add(f, l),
                Ir.add(i, l),
                Ir.sqrt(Ir.abs(f)),
                Ir.div(f, Ir.lit(3f)),
                Ir.fma(f, f, Ir.lit(1f)),
                Ir.max(f, Ir.lit(-0.0f)),
                Ir.sqrt(i),
                Ir.lit(4.0),
                x);
        List<KernelProgram> out = new ArrayList<>();
        for (IrNode root : roots) {
            out.add(new KernelProgram(types, root));
        }
        return out;
    }

    /** Programs over 32-bit values only: their loops use the 32-bit lane count (twice the 64-bit one). */
    static List<KernelProgram> programs32() {
        IrNode i = Ir.arg(0, INT32), j = Ir.arg(1, INT32), f = Ir.arg(2, FLOAT32), g = Ir.arg(3, FLOAT32);
        List<ElementType> types = List.of(INT32, INT32, FLOAT32, FLOAT32);
        List<IrNode> roots = List.of(
                Ir.add(Ir.mul(i, j), i),
                Ir.sub(Ir.neg(i), Ir.abs(j)),
                Ir.min(i, Ir.max(j, Ir.lit(-3))),
                Ir.fma(i, j, Ir.lit(7)),
                Ir.add(Ir.mul(f, g), f),
                Ir.sqrt(Ir.abs(f)),
                Ir.div(f, g),
                Ir.fma(f, g, f),
                Ir.min(f, g),
                Ir.max(Ir.neg(f), g),
                Ir.add(f, i),
                Ir.mul(Ir.cast(j, FLOAT32), g));
        List<KernelProgram> out = new ArrayList<>();
        for (IrNode root : roots) {
            out.add(new KernelProgram(types, root));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 8, 15, 16, 17, 31, 33, 1000, 4099})
    void fusedLoopsMatchTheReferenceOnHostileData(int rows) {
        Random r = new Random(SEED + rows);
        List<KernelProgram> all = new ArrayList<>(programs());
        all.addAll(programs32());
        try (Arena arena = Arena.ofConfined()) {
            for (KernelProgram p : all) {
                List<MemorySegment> args = new ArrayList<>();
                for (ElementType t : p.argTypes()) {
                    args.add(fill(arena, t, rows, r));
                }
                MemorySegment valid = validity(arena, rows, r, 0.1);
                long w = p.resultType().byteWidth();
                MemorySegment expected = arena.allocate(Math.max(1, rows * w), 8);
                MemorySegment actual = arena.allocate(Math.max(1, rows * w), 8);
                RowInterpreter.run(p, args, valid, expected, rows, "reference");
                cpu.execute(p, new KernelInvocation(args, valid, actual, rows));
                assertSameValues(p, expected, actual, valid, rows);
            }
        }
    }

    @Test
    void integerDivisionByZeroInAValidRowNamesTheRow() {
        KernelProgram p = new KernelProgram(List.of(INT64, INT64), Ir.div(Ir.arg(0, INT64), Ir.arg(1, INT64)));
        int rows = 37;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(rows * 8L), b = arena.allocate(rows * 8L), out = arena.allocate(rows * 8L);
            for (int i = 0; i < rows; i++) {
                RowInterpreter.write(a, INT64, i, (long) i * 10);
                RowInterpreter.write(b, INT64, i, i == 3 || i == 35 ? 0L : (i == 5 ? -1L : 2L));
            }
            RowInterpreter.write(a, INT64, 5, Long.MIN_VALUE);
            MemorySegment valid = validity(arena, rows, new Random(1), 0);
            // Row 3 null: its zero divisor is garbage behind a null. Row 35 (in the tail) is valid.
            valid.set(ValueLayout.JAVA_BYTE, 0, (byte) ~(1 << 3));
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> cpu.execute(p, new KernelInvocation(List.of(a, b), valid, out, rows)));
            assertEquals(35, e.row(), e.getMessage());
            // Without row 35 the batch succeeds, and MIN_VALUE / -1 wraps as in Java.
            valid.set(ValueLayout.JAVA_BYTE, 4, (byte) ~(1 << 3));
            cpu.execute(p, new KernelInvocation(List.of(a, b), valid, out, rows));
            assertEquals(Long.MIN_VALUE, RowInterpreter.read(out, INT64, 5));
            assertEquals(100L, RowInterpreter.read(out, INT64, 20));
        }
    }

    @Test
    void thirtyTwoBitProgramsUseTwiceTheLanes() {
        assertEquals(
                2 * cpu.lanes(programs().getFirst()), cpu.lanes(programs32().getFirst()));
    }

    @Test
    void withTwoDivisionsTheEarliestFailingRowIsReportedWhicheverDivisionFails() {
        IrNode a = Ir.arg(0, INT32), b = Ir.arg(1, INT32), c = Ir.arg(2, INT32), d = Ir.arg(3, INT32);
        KernelProgram p = new KernelProgram(List.of(INT32, INT32, INT32, INT32), Ir.add(Ir.div(a, b), Ir.div(c, d)));
        int rows = 40;
        try (Arena arena = Arena.ofConfined()) {
            List<MemorySegment> args = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                MemorySegment s = arena.allocate(rows * 4L);
                for (int i = 0; i < rows; i++) {
                    RowInterpreter.write(s, INT32, i, 1 + i);
                }
                args.add(s);
            }
            RowInterpreter.write(args.get(1), INT32, 5, 0); // first division fails at row 5
            RowInterpreter.write(args.get(3), INT32, 2, 0); // second division fails earlier, same vector step
            MemorySegment out = arena.allocate(rows * 4L), valid = validity(arena, rows, new Random(3), 0);
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> cpu.execute(p, new KernelInvocation(args, valid, out, rows)));
            assertEquals(2, e.row(), e.getMessage());
            assertEquals(2, RowInterpreter.firstFailingRow(p, args, valid, rows));
        }
    }

    @Test
    void programsThatDifferOnlyInLiteralsShareOneLoop() {
        CpuBackend fresh = new CpuBackend();
        IrNode x = Ir.arg(0, FLOAT64);
        KernelProgram p2 = new KernelProgram(List.of(FLOAT64), Ir.mul(x, Ir.lit(2.0)));
        KernelProgram p3 = new KernelProgram(List.of(FLOAT64), Ir.mul(x, Ir.lit(3.0)));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(80),
                    out = arena.allocate(80),
                    valid = validity(arena, 10, new Random(2), 0);
            for (int i = 0; i < 10; i++) {
                RowInterpreter.write(in, FLOAT64, i, (double) i);
            }
            fresh.execute(p2, new KernelInvocation(List.of(in), valid, out, 10));
            assertEquals(18.0, RowInterpreter.read(out, FLOAT64, 9));
            fresh.execute(p3, new KernelInvocation(List.of(in), valid, out, 10));
            assertEquals(27.0, RowInterpreter.read(out, FLOAT64, 9));
            assertEquals(1, fresh.compiledLoops());
        }
    }
}
