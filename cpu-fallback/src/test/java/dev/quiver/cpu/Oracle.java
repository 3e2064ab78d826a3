package dev.quiver.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Hostile test data and the check of a CPU run against {@link RowInterpreter}: values, validity
 * after the null condition, the failing row and its message, rows computed, zeros in skipped
 * steps, and bits past the last row left alone.
 */
final class Oracle {
    static final long SEED = Long.getLong("quiver.seed", 20261130L);

    static final double[] HOSTILE_F64 = {
        0.0,
        -0.0,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        -Double.MIN_NORMAL,
        0x1.ffffffffffffep-1023,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        1.0,
        -1.0,
        1e-310,
        -3e-320,
        3.5,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999999999999994,
        -0.49999999999999994,
        0x1p52,
        -0x1p52,
        0x1p52 + 1,
        0x1p52 - 0.5,
        -(0x1p52 - 0.5),
        0x1p53,
        0x1p63,
        -0x1p63,
        0x1p31,
        -0x1p31,
        2147483647.5,
        -2147483648.5,
        9.3e18,
        -9.3e18,
        1e300,
        -1e300,
        Math.PI,
        -Math.PI / 2,
        710,
        -745,
        0.9999999999999999,
        1.0000000000000002,
        4.9e-324 * 3
    };
    static final float[] HOSTILE_F32 = {
        0f,
        -0f,
        Float.NaN,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        Float.MIN_VALUE,
        -Float.MIN_VALUE,
        Float.MIN_NORMAL,
        -Float.MIN_NORMAL,
        0x1.fffffcp-127f,
        Float.MAX_VALUE,
        -Float.MAX_VALUE,
        1f,
        -1f,
        0.5f,
        -0.5f,
        1.5f,
        -1.5f,
        2.5f,
        -2.5f,
        0.49999997f,
        -0.49999997f,
        0x1p23f,
        -0x1p23f,
        0x1p23f + 1,
        0x1p23f - 0.5f,
        -(0x1p23f - 0.5f),
        0x1p24f,
        0x1p31f,
        -0x1p31f,
        0x1p63f,
        -0x1p63f,
        3e9f,
        -3e9f,
        9.3e18f,
        1e30f,
        -1e30f,
        3.5f,
        88.7f,
        -103f,
        0.99999994f,
        1.0000001f
    };
    static final long[] HOSTILE_I64 = {
        0,
        1,
        -1,
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        Long.MIN_VALUE + 1,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
        7,
        -7,
        31,
        32,
        33,
        63,
        64,
        65,
        -31,
        -32,
        -33,
        -63,
        -64,
        1L << 53,
        (1L << 53) + 1,
        -(1L << 53) - 1,
        1L << 62
    };
    static final int[] HOSTILE_I32 = {
        0,
        1,
        -1,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE + 1,
        7,
        -7,
        31,
        32,
        33,
        63,
        64,
        -31,
        -32,
        -33,
        1 << 24,
        (1 << 24) + 1,
        -(1 << 24) - 1,
        65536
    };

    private Oracle() {}

    /** A segment of {@code rows} random values of {@code t}, one in four hostile (a bitmap for Booleans). */
    static MemorySegment fill(Arena arena, ElementType t, int rows, Random r) {
        if (t == ElementType.BOOL) {
            MemorySegment s = arena.allocate(Math.max(1, (rows + 7) / 8));
            for (int i = 0; i < rows; i++) {
                RowInterpreter.write(s, t, i, r.nextInt(3) == 0 ? 1 : 0);
            }
            return s;
        }
        MemorySegment s = arena.allocate(Math.max(1, (long) rows * t.byteWidth()), 8);
        for (int i = 0; i < rows; i++) {
            RowInterpreter.write(s, t, i, value(t, r));
        }
        return s;
    }

    static Number value(ElementType t, Random r) {
        boolean hostile = r.nextInt(4) == 0;
        return switch (t) {
            case FLOAT64 -> hostile ? HOSTILE_F64[r.nextInt(HOSTILE_F64.length)] : randomDouble(r);
            case FLOAT32 -> hostile ? HOSTILE_F32[r.nextInt(HOSTILE_F32.length)] : (float) randomDouble(r);
            case INT64 ->
                hostile
                        ? HOSTILE_I64[r.nextInt(HOSTILE_I64.length)]
                        : r.nextBoolean() ? r.nextLong() : (long) r.nextInt(2001) - 1000;
            case INT32 ->
                hostile
                        ? HOSTILE_I32[r.nextInt(HOSTILE_I32.length)]
                        : r.nextBoolean() ? r.nextInt() : r.nextInt(2001) - 1000;
            case BOOL -> r.nextInt(2);
        };
    }

    private static double randomDouble(Random r) {
        return switch (r.nextInt(5)) {
            case 0 -> r.nextGaussian() * 1e3;
            case 1 -> r.nextGaussian();
            case 2 -> Math.scalb(r.nextDouble() * 2 - 1, r.nextInt(200) - 100);
            case 3 -> Math.floor(r.nextGaussian() * 100) + (r.nextBoolean() ? 0.5 : 0); // integers and ties
            default -> 1 + r.nextGaussian() * 1e-3;
        };
    }

    static MemorySegment validity(Arena arena, int rows, Random r, double nullFraction) {
        MemorySegment v = arena.allocate(Math.max(1, (rows + 7) / 8));
        for (int i = 0; i < rows; i++) {
            if (r.nextDouble() >= nullFraction) {
                ValidityBitmaps.set(v, i);
            }
        }
        return v;
    }

    static MemorySegment copy(Arena arena, MemorySegment s) {
        MemorySegment c = arena.allocate(s.byteSize(), 8);
        c.copyFrom(s);
        return c;
    }

    static long bits(Number n) {
        return switch (n) {
            case Double d -> Double.doubleToLongBits(d);
            case Float f -> Float.floatToIntBits(f);
            default -> n.longValue();
        };
    }

    /** Position of a float on the number line, so that neighbours differ by one (±0 both 0). */
    static long ordered(Number n) {
        long b = switch (n) {
            case Double d -> Double.doubleToRawLongBits(d);
            case Float f -> Float.floatToRawIntBits(f);
            default -> n.longValue();
        };
        return b >= 0 ? b : Long.MIN_VALUE - b;
    }

    /** Each distinct node once: a DAG such as gcd's (each step reads the one before twice) has 2^64 paths. */
    static void visit(IrNode n, Consumer<IrNode> f) {
        visit(n, f, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private static void visit(IrNode n, Consumer<IrNode> f, Set<IrNode> seen) {
        if (seen.add(n)) {
            f.accept(n);
            n.children().forEach(c -> visit(c, f, seen));
        }
    }

    /**
     * Runs {@code p} on the CPU and checks it against the reference. Returns the run, or null
     * when the batch failed (as the reference said it would).
     */
    static KernelRun check(
            CpuBackend cpu, KernelProgram p, List<MemorySegment> args, MemorySegment validity, int rows, RowMode mode) {
        return check(cpu, p, args, validity, rows, mode, 0);
    }

    /** As above, with the run split between at most {@code threads} threads ({@link KernelInvocation#threads()}). */
    static KernelRun check(
            CpuBackend cpu,
            KernelProgram p,
            List<MemorySegment> args,
            MemorySegment validity,
            int rows,
            RowMode mode,
            int threads) {
        try (Arena arena = Arena.ofConfined()) {
            ElementType rt = p.resultType();
            long outBytes = Math.max(1, rt.isBitPacked() ? (rows + 7) / 8 : (long) rows * rt.byteWidth());
            MemorySegment expected = arena.allocate(outBytes, 8);
            MemorySegment actual = arena.allocate(outBytes, 8);
            actual.fill((byte) 0xA5); // garbage: skipped steps must write zeros, bits past the last row must stay
            MemorySegment refValidity = copy(arena, validity);
            MemorySegment actValidity = copy(arena, validity);
            MemorySegment all = arena.allocate(validity.byteSize());
            for (int i = 0; i < rows; i++) {
                ValidityBitmaps.set(all, i);
            }
            String where = p + " rows " + rows + " " + mode + " lanes " + cpu.lanes(p) + " (seed " + SEED + ")";

            long failing = RowInterpreter.firstFailingRow(p, args, mode == RowMode.ALL_ROWS ? all : validity, rows);
            if (failing >= 0) {
                String message =
                        RowInterpreter.failureAt(p, args, failing, cpu.name()).getMessage();
                KernelArithmeticException e = assertThrows(
                        KernelArithmeticException.class,
                        () -> cpu.execute(
                                p, new KernelInvocation(args, actValidity, actual, rows, mode).withThreads(threads)),
                        where);
                assertEquals(failing, e.row(), where);
                assertEquals(message, e.getMessage(), where);
                return null;
            }
            RowInterpreter.run(p, args, refValidity, expected, rows, "reference");
            KernelRun run =
                    cpu.execute(p, new KernelInvocation(args, actValidity, actual, rows, mode).withThreads(threads));

            // Bit for bit, the math functions too (a NaN as any NaN: the loops write the canonical one).
            for (int i = 0; i < rows; i++) {
                if (!ValidityBitmaps.isValid(validity, i)) {
                    continue;
                }
                Number e = RowInterpreter.read(expected, rt, i);
                Number a = RowInterpreter.read(actual, rt, i);
                if (bits(e) != bits(a)) {
                    fail(where + ": row " + i + " expected " + e + " got " + a + args(p, args, i));
                }
            }
            // Validity after the null condition: exactly the reference's (bits past the last row untouched).
            for (long b = 0; b < validity.byteSize(); b++) {
                assertEquals(
                        refValidity.get(ValueLayout.JAVA_BYTE, b),
                        actValidity.get(ValueLayout.JAVA_BYTE, b),
                        where + ": validity byte " + b);
            }
            int lanes = cpu.lanes(p);
            long computed = 0;
            boolean rowByRow = cpu.classBytes(p, mode) == 0; // no loop: the reference computes each valid row
            for (int from = 0; rowByRow && from < rows; from++) {
                computed += ValidityBitmaps.isValid(validity, from) ? 1 : 0;
            }
            for (int from = 0; !rowByRow && from < rows; from += lanes) {
                int to = Math.min(rows, from + lanes);
                boolean any = false;
                for (int i = from; i < to; i++) {
                    any |= ValidityBitmaps.isValid(validity, i);
                }
                if (mode == RowMode.ALL_ROWS || any) {
                    computed += to - from;
                } else {
                    for (int i = from; i < to; i++) {
                        assertEquals(
                                0L,
                                bits(RowInterpreter.read(actual, rt, i)),
                                where + ": skipped row " + i + " not zero");
                    }
                }
            }
            assertEquals(computed, run.rowsComputed(), where + ": rows computed");
            if (rt.isBitPacked() && rows % 8 != 0) {
                int last = actual.get(ValueLayout.JAVA_BYTE, rows / 8) & 0xFF;
                assertEquals(0xA5 >>> (rows % 8), last >>> (rows % 8), where + ": bits past the last row changed");
            }
            return run;
        }
    }

    private static String args(KernelProgram p, List<MemorySegment> args, int row) {
        StringBuilder sb = new StringBuilder(" for");
        for (int k = 0; k < args.size(); k++) {
            sb.append(' ').append(RowInterpreter.read(args.get(k), p.argTypes().get(k), row));
        }
        return sb.toString();
    }

    private static final MathContext MC = new MathContext(50);
    private static final BigDecimal LN2 = ln(BigDecimal.valueOf(2));

    /** log2 rounded from 50 digits: {@code e + ln(m) / ln 2} with {@code x = m * 2^e} exactly. */
    static double log2Exact(double x) {
        if (!(x > 0) || Double.isInfinite(x)) {
            return StrictMath.log(x);
        }
        int e = Math.getExponent(x);
        if (e < Double.MIN_EXPONENT) {
            e = Math.getExponent(x * 0x1p60) - 60;
        }
        double m = Math.scalb(x, -e);
        return new BigDecimal(e).add(ln(new BigDecimal(m)).divide(LN2, MC), MC).doubleValue();
    }

    /** ln(m) for m in [1, 2] by the series 2 * atanh((m - 1) / (m + 1)). */
    private static BigDecimal ln(BigDecimal m) {
        BigDecimal z = m.subtract(BigDecimal.ONE).divide(m.add(BigDecimal.ONE), MC);
        BigDecimal z2 = z.multiply(z, MC);
        BigDecimal term = z;
        BigDecimal sum = BigDecimal.ZERO;
        BigDecimal eps = BigDecimal.ONE.movePointLeft(48);
        for (int k = 1; term.abs().compareTo(eps) > 0; k += 2) {
            sum = sum.add(term.divide(BigDecimal.valueOf(k), MC), MC);
            term = term.multiply(z2, MC);
        }
        return sum.multiply(BigDecimal.valueOf(2), MC);
    }
}
