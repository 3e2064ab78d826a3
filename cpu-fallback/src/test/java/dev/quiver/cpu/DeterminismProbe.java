package dev.quiver.cpu;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Every inexact math function of the IR run by the CPU backend over one batch of hostile values,
 * and a SHA-256 of each result's bytes: what {@link DeterminismTest} compares between runs of
 * one JVM and with JVMs that run the loops in the interpreter or with C1 only. Run as a program
 * ({@code DeterminismProbe <rows> <passes>}), it prints one line per case,
 * {@code <case> <sha-256>}, the hash of the last of {@code passes} runs.
 *
 * <p>The batch is a function of the row count alone (a fixed seed, rows drawn in order), so a
 * smaller batch is a prefix of a larger one.
 */
final class DeterminismProbe {
    private static final long SEED = 0x5EED_D00DL;

    /** Bit patterns no arithmetic produces: NaNs with a sign or a payload, signalling ones too. */
    private static final long[] ODD_NANS = {
        0x7FF8_0000_0000_0000L,
        0xFFF8_0000_0000_0000L,
        0x7FF0_0000_0000_0001L,
        0xFFF4_0000_DEAD_BEEFL,
        0x7FFF_FFFF_FFFF_FFFFL,
        0x7FF8_0000_2000_0000L
    };

    private static final double[] SPECIAL = {
        0.0,
        -0.0,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        -Double.MIN_NORMAL,
        0x1.fffffffffffffp-1023,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        3.0,
        -3.0,
        1e300,
        -1e300,
        1e22,
        0x1p1023,
        0x1p-1022 * 3,
        709.782712893384,
        709.7827128933841,
        -745.1332191019411,
        -745.1332191019412,
        710.0,
        -746.0,
        88.72283935546875,
        -103.97208,
        0.9999999999999999,
        1.0000000000000002,
        0x1p-28,
        -0x1p-28,
        0x1p-54,
        Math.PI,
        -Math.PI,
        Math.PI / 2,
        Math.PI / 4,
        3 * Math.PI / 4,
        0x1p19 * Math.PI / 2,
        0x1p20 * Math.PI / 2,
        0x1p52,
        0x1p53 + 2,
        0x1p63,
        -0x1p64,
        0.6744,
        0.3,
        0.4375,
        2.4375,
        0.5 * Math.log(2),
        1.5 * Math.log(2),
        22.0,
        40.0,
        0x1p-1074 * 7
    };

    private DeterminismProbe() {}

    /** One function over one type: its program. */
    record Case(String name, KernelProgram program) {}

    /** Every unary function that is not exact, and pow, atan2 and hypot, over Float64 and Float32. */
    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (ElementType t : List.of(ElementType.FLOAT64, ElementType.FLOAT32)) {
            for (UnaryOp op : UnaryOp.values()) {
                if (op.domain() == UnaryOp.Domain.FLOAT && !op.isExact()) {
                    cases.add(new Case(
                            op.symbol() + " " + t, new KernelProgram(List.of(t), new IrNode.Unary(op, Ir.arg(0, t)))));
                }
            }
            for (BinaryOp op : BinaryOp.values()) {
                if (op.domain() == UnaryOp.Domain.FLOAT) {
                    cases.add(new Case(
                            op.symbol() + " " + t,
                            new KernelProgram(List.of(t, t), new IrNode.Binary(op, Ir.arg(0, t), Ir.arg(1, t)))));
                }
            }
            IrNode x = Ir.arg(0, t), y = Ir.arg(1, t);
            // Arithmetic: NaN + NaN keeps one operand's payload, which one depends on the JIT.
            cases.add(new Case(
                    "x*y+x/y-y " + t, new KernelProgram(List.of(t, t), Ir.sub(Ir.add(Ir.mul(x, y), Ir.div(x, y)), y))));
            // Several functions in one loop, sharing its scratch arrays.
            cases.add(new Case(
                    "sin(x)+atan2(x,y)*exp(y)-log2(x) " + t,
                    new KernelProgram(
                            List.of(t, t),
                            Ir.sub(
                                    Ir.add(
                                            Ir.unary(UnaryOp.SIN, x),
                                            Ir.mul(Ir.binary(BinaryOp.ATAN2, x, y), Ir.unary(UnaryOp.EXP, y))),
                                    Ir.unary(UnaryOp.LOG2, x)))));
        }
        return cases;
    }

    /** A hostile double: NaNs of every kind, ±0, ±Infinity, subnormals, huge values, near multiples of pi/2. */
    static double hostile(Random r) {
        return switch (r.nextInt(12)) {
            case 0 -> Double.longBitsToDouble(ODD_NANS[r.nextInt(ODD_NANS.length)]);
            case 1, 2 -> SPECIAL[r.nextInt(SPECIAL.length)];
            case 3 -> { // a multiple of pi/2, a few ulps either way: the argument reduction's hard cases
                double k = r.nextBoolean() ? r.nextInt(64) : Math.floor(Math.scalb(r.nextDouble(), r.nextInt(60)));
                double x = k * (Math.PI / 2);
                for (int steps = r.nextInt(5) - 2; steps != 0; steps -= Integer.signum(steps)) {
                    x = steps > 0 ? Math.nextUp(x) : Math.nextDown(x);
                }
                yield r.nextBoolean() ? x : -x;
            }
            case 4 -> Math.scalb(r.nextDouble() * 2 - 1, r.nextInt(2100) - 1075); // every magnitude, subnormals too
            case 5 -> Math.scalb(r.nextDouble() * 2 - 1, -1022 - r.nextInt(53)); // subnormals
            case 6 -> 1 + r.nextGaussian() * Math.scalb(1.0, -r.nextInt(50)); // near 1
            case 7 -> r.nextGaussian() * Math.scalb(1.0, -r.nextInt(60)); // near 0
            case 8 -> r.nextDouble() * 2 - 1;
            case 9 -> r.nextDouble() * 1500 - 750; // exp's whole range
            case 10 -> r.nextGaussian() * Math.scalb(1.0, r.nextInt(1020)); // huge
            default -> r.nextGaussian() * 10;
        };
    }

    /**
     * Column {@code column} of the batch: {@code rows} hostile values of {@code t}. The first rows
     * are every special value and odd NaN, the second column's rotated by 17 against the first's (so
     * a short batch has them all, paired with others), then random hostile values.
     */
    static MemorySegment column(Arena arena, ElementType t, int column, int rows) {
        Random r = new Random(SEED + column);
        double[] fixed = new double[SPECIAL.length + ODD_NANS.length];
        for (int k = 0; k < fixed.length; k++) {
            fixed[k] = k < SPECIAL.length ? SPECIAL[k] : Double.longBitsToDouble(ODD_NANS[k - SPECIAL.length]);
        }
        MemorySegment s = arena.allocate((long) rows * t.byteWidth(), 64);
        for (int i = 0; i < rows; i++) {
            double x = i < fixed.length ? fixed[(i + 17 * column) % fixed.length] : hostile(r);
            RowInterpreter.write(s, t, i, t == ElementType.FLOAT64 ? (Number) x : (Number) (float) x);
        }
        return s;
    }

    /** Runs each case {@code passes} times and returns the SHA-256 of each run's result, per case. */
    static Map<String, List<String>> hashes(CpuBackend cpu, int rows, int passes) {
        Map<String, List<String>> hashes = new LinkedHashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            Map<ElementType, List<MemorySegment>> columns = new LinkedHashMap<>();
            for (ElementType t : List.of(ElementType.FLOAT64, ElementType.FLOAT32)) {
                columns.put(t, List.of(column(arena, t, 0, rows), column(arena, t, 1, rows)));
            }
            MemorySegment valid = arena.allocate((rows + 7) / 8);
            for (Case c : cases()) {
                ElementType t = c.program().resultType();
                List<MemorySegment> args = columns.get(t).subList(0, c.program().arity());
                MemorySegment out = arena.allocate((long) rows * t.byteWidth(), 64);
                List<String> runs = new ArrayList<>();
                for (int pass = 0; pass < passes; pass++) {
                    out.fill((byte) 0x5A);
                    valid.fill((byte) -1);
                    cpu.execute(c.program(), new KernelInvocation(args, valid, out, rows));
                    runs.add(sha256(out));
                }
                hashes.put(c.name(), runs);
            }
        }
        return hashes;
    }

    static String sha256(MemorySegment s) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(s.asByteBuffer());
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) {
        int rows = Integer.parseInt(args[0]);
        int passes = Integer.parseInt(args[1]);
        hashes(new CpuBackend(), rows, passes)
                .forEach((name, runs) -> System.out.println(name.replace(' ', '_') + " " + runs.getLast()));
    }
}
