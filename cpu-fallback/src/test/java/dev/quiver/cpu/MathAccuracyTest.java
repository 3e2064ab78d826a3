package dev.quiver.cpu;

import static dev.quiver.types.ElementType.FLOAT32;
import static dev.quiver.types.ElementType.FLOAT64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The fused loops' math functions against the reference (StrictMath, fdlibm): bit for bit (a
 * NaN where the reference has a NaN) over many random inputs in each function's interesting
 * domains (large arguments for sin/cos/tan, near 1 for the logarithms, near 0 for expm1/log1p,
 * the edges of exp's range, subnormals), over several passes of a large batch, so the loops and
 * the math functions they call run interpreted, with C1 and with C2 (DeterminismTest checks
 * that the tiers agree). Special values (NaN, ±Infinity, ±0, ±1, subnormals, the largest finite
 * value, in every pair for the binary functions) included. log2 is also measured against its
 * exact value, which the reference's bound (1.5 ulp) holds.
 *
 * <p>The measured table is printed and written to {@code target/math-ulp.txt}.
 */
class MathAccuracyTest {
    /** The largest error allowed for a function that is not exact, in ulps of the reference: none. */
    static final int BOUND = 0;
    /** log2's bound against the exact value (the reference's, docs/math.md). */
    private static final double LOG2_EXACT_BOUND = 1.5;

    /* Big batches: the loops reach C2 within the passes (on-stack replacement after some 10^5 steps). */
    private static final int ROWS = 1 << 20;
    private static final int PASSES = 3;
    /** Distinct inputs, repeated over the batch; the errors are measured on these. */
    private static final int DISTINCT = 1 << 17;
    /** Rows checked against log2 to 50 digits (slow to compute). */
    private static final int EXACT_ROWS = 1 << 14;

    private static final Map<String, String> TABLE = new TreeMap<>();

    private static final double[] SPECIAL = {
        0.0,
        -0.0,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        1.0,
        -1.0,
        2.0,
        0.5,
        -0.5,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        3.0,
        -3.0,
        710.0,
        -746.0,
        1e-300,
        Math.PI,
        0.9999999999999999,
        1.0000000000000002
    };

    private final CpuBackend cpu = new CpuBackend();

    /** An input for {@code op}: a mix of its interesting domains and the specials. */
    static double input(String op, Random r) {
        return switch (r.nextInt(8)) {
            case 0 -> SPECIAL[r.nextInt(SPECIAL.length)];
            case 1 -> r.nextGaussian();
            case 2 -> r.nextGaussian() * 1e3;
            case 3 -> Math.scalb(r.nextDouble() * 2 - 1, r.nextInt(2100) - 1075); // any magnitude, subnormals too
            case 4 -> 1 + r.nextGaussian() * Math.scalb(1.0, -r.nextInt(50)); // near 1
            case 5 -> r.nextGaussian() * Math.scalb(1.0, -r.nextInt(60)); // near 0
            case 6 ->
                switch (op) {
                    case "SIN", "COS", "TAN" -> r.nextGaussian() * Math.scalb(1.0, r.nextInt(1000)); // huge arguments
                    case "ASIN", "ACOS", "ATAN2" -> r.nextDouble() * 2 - 1;
                    case "EXP", "EXPM1", "SINH", "COSH" -> r.nextDouble() * 1500 - 750;
                    case "POW" -> r.nextDouble() * 10;
                    default -> Math.scalb(r.nextDouble(), r.nextInt(2000) - 1000);
                };
            default -> r.nextDouble() * 20 - 10;
        };
    }

    static double second(String op, Random r) {
        return switch (r.nextInt(6)) {
            case 0 -> SPECIAL[r.nextInt(SPECIAL.length)];
            case 1 ->
                op.equals("POW") ? r.nextInt(41) - 20 : r.nextGaussian() * 1e3; // integer exponents: negative bases
            case 2 -> Math.scalb(r.nextDouble() * 2 - 1, r.nextInt(2100) - 1075);
            default -> r.nextGaussian() * 4;
        };
    }

    /** Error of {@code got} in ulps of {@code ref}; infinite for a special-case mismatch. */
    static double ulps(double ref, double got, boolean f32) {
        if (Double.isNaN(ref) || Double.isNaN(got)) {
            return Double.isNaN(ref) && Double.isNaN(got) ? 0 : Double.POSITIVE_INFINITY;
        }
        if (ref == 0 || got == 0) { // signed zeros must match; a result that underflowed by one ulp is fine
            if (ref == 0 && got == 0) {
                return Double.doubleToRawLongBits(ref) == Double.doubleToRawLongBits(got)
                        ? 0
                        : Double.POSITIVE_INFINITY;
            }
        }
        if (Double.isInfinite(ref) || Double.isInfinite(got)) {
            if (ref == got) {
                return 0;
            }
            // Overflow by one ulp is an ulp: count the steps on the number line.
            long d = f32
                    ? Math.abs(Oracle.ordered((float) ref) - Oracle.ordered((float) got))
                    : Math.abs(Oracle.ordered(ref) - Oracle.ordered(got));
            return d <= 2 ? d : Double.POSITIVE_INFINITY;
        }
        double ulp = f32 ? Math.ulp((float) ref) : Math.ulp(ref);
        return Math.abs(got - ref) / ulp;
    }

    /** Special inputs must give the reference's special outputs exactly. */
    static boolean specialMismatch(double in1, double in2, double ref, double got) {
        boolean specialIn = isSpecial(in1) || isSpecial(in2);
        boolean specialOut = Double.isNaN(ref) || Double.isInfinite(ref) || ref == 0;
        if (!specialIn && !specialOut) {
            return false;
        }
        if (Double.isNaN(ref)) {
            return !Double.isNaN(got);
        }
        if (specialOut && specialIn) {
            return Double.doubleToRawLongBits(ref) != Double.doubleToRawLongBits(got);
        }
        return Double.isNaN(got);
    }

    private static boolean isSpecial(double x) {
        return Double.isNaN(x) || Double.isInfinite(x) || x == 0 || Math.abs(x) == 1;
    }

    record Result(
            double maxUlps, String worst, int specialMismatches, String firstMismatch, double fastestNanosPerRow) {}

    /** Runs {@code root} over ROWS inputs, PASSES times, and measures the worst error against {@code reference}. */
    private Result measure(String op, ElementType t, IrNode root, boolean binary, boolean log2Exact) {
        KernelProgram p = new KernelProgram(List.of(t, t), root);
        Random r = new Random(Oracle.SEED ^ op.hashCode() ^ t.hashCode());
        boolean f32 = t == FLOAT32;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate((long) ROWS * t.byteWidth(), 64),
                    b = arena.allocate((long) ROWS * t.byteWidth(), 64);
            MemorySegment out = arena.allocate((long) ROWS * t.byteWidth(), 64), valid = arena.allocate(ROWS / 8);
            valid.fill((byte) -1);
            double[] x = new double[DISTINCT], y = new double[DISTINCT], ref = new double[DISTINCT];
            for (int i = 0; i < ROWS; i++) {
                if (i >= DISTINCT) {
                    MemorySegment.copy(
                            a, (long) (i - DISTINCT) * t.byteWidth(), a, (long) i * t.byteWidth(), t.byteWidth());
                    MemorySegment.copy(
                            b, (long) (i - DISTINCT) * t.byteWidth(), b, (long) i * t.byteWidth(), t.byteWidth());
                    continue;
                }
                x[i] = input(op, r);
                y[i] = second(op, r);
                if (f32) {
                    x[i] = (float) x[i];
                    y[i] = (float) y[i];
                }
                RowInterpreter.write(a, t, i, f32 ? (Number) (float) x[i] : (Number) x[i]);
                RowInterpreter.write(b, t, i, f32 ? (Number) (float) y[i] : (Number) y[i]);
                Number[] row = {RowInterpreter.read(a, t, i), RowInterpreter.read(b, t, i)};
                ref[i] = log2Exact && !f32
                        ? (i < EXACT_ROWS ? Oracle.log2Exact(x[i]) : Double.NaN)
                        : RowInterpreter.evaluate(root, row).doubleValue();
            }
            double max = 0;
            String worst = "";
            int mismatches = 0;
            String first = "";
            double fastest = Double.MAX_VALUE;
            for (int pass = 0; pass < PASSES; pass++) {
                long nanos = cpu.execute(p, new KernelInvocation(List.of(a, b), valid, out, ROWS))
                        .nanos();
                fastest = Math.min(fastest, (double) nanos / ROWS);
                for (int i = 0; i < (log2Exact ? EXACT_ROWS : DISTINCT); i++) {
                    double got = RowInterpreter.read(out, t, i).doubleValue();
                    double u = ulps(ref[i], got, f32);
                    String at = op + "(" + x[i] + (binary ? ", " + y[i] : "") + ") = " + got + ", reference " + ref[i];
                    if (u == Double.POSITIVE_INFINITY || specialMismatch(x[i], binary ? y[i] : 1.5, ref[i], got)) {
                        if (mismatches++ == 0) {
                            first = at + " (pass " + pass + ")";
                        }
                    } else if (u > max) {
                        max = u;
                        worst = at;
                    }
                }
            }
            return new Result(max, worst, mismatches, first, fastest);
        }
    }

    private void record(String op, ElementType t, Result res, String note) {
        TABLE.put(
                String.format("%-7s %-8s", op, t),
                String.format(
                        "%6.3f ulp  %6.2f ns/row%s  specials %s  worst %s%s",
                        res.maxUlps(),
                        res.fastestNanosPerRow(),
                        "",
                        res.specialMismatches() == 0
                                ? "ok"
                                : res.specialMismatches() + " wrong, e.g. " + res.firstMismatch(),
                        res.worst(),
                        note));
    }

    @Test
    void unaryFunctionsAreTheReferencesBitForBit() {
        List<String> failures = new ArrayList<>();
        for (UnaryOp op : UnaryOp.values()) {
            if (op.domain() != UnaryOp.Domain.FLOAT) {
                continue;
            }
            for (ElementType t : List.of(FLOAT64, FLOAT32)) {
                IrNode root = new IrNode.Unary(op, Ir.arg(0, t));
                Result res = measure(op.name(), t, root, false, false);
                String note = "";
                if (op == UnaryOp.LOG2 && t == FLOAT64) {
                    Result exact = measure(op.name(), t, root, false, true);
                    note = String.format(
                            "  (vs log2 to 50 digits: %.3f ulp, worst %s)", exact.maxUlps(), exact.worst());
                    if (exact.maxUlps() > LOG2_EXACT_BOUND || exact.specialMismatches() > 0) {
                        failures.add(op + " " + t + " vs exact: " + exact);
                    }
                }
                record(op.name(), t, res, note);
                if (res.maxUlps() > BOUND || res.specialMismatches() > 0) {
                    failures.add(op + " " + t + ": " + res);
                }
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void binaryFunctionsAreTheReferencesBitForBit() {
        List<String> failures = new ArrayList<>();
        for (BinaryOp op : List.of(BinaryOp.POW, BinaryOp.ATAN2, BinaryOp.HYPOT)) {
            for (ElementType t : List.of(FLOAT64, FLOAT32)) {
                IrNode root = new IrNode.Binary(op, Ir.arg(0, t), Ir.arg(1, t));
                Result res = measure(op.name(), t, root, true, false);
                record(op.name(), t, res, "");
                if (res.maxUlps() > BOUND || res.specialMismatches() > 0) {
                    failures.add(op + " " + t + ": " + res);
                }
            }
        }
        // Every pair of special values, exactly as Java's special cases say.
        for (BinaryOp op : List.of(BinaryOp.POW, BinaryOp.ATAN2, BinaryOp.HYPOT)) {
            for (ElementType t : List.of(FLOAT64, FLOAT32)) {
                failures.addAll(specialPairs(op, t));
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    private List<String> specialPairs(BinaryOp op, ElementType t) {
        int n = SPECIAL.length * SPECIAL.length;
        int rows = 1 << 20;
        KernelProgram p = new KernelProgram(List.of(t, t), new IrNode.Binary(op, Ir.arg(0, t), Ir.arg(1, t)));
        List<String> failures = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate((long) rows * t.byteWidth(), 64),
                    b = arena.allocate((long) rows * t.byteWidth(), 64);
            MemorySegment out = arena.allocate((long) rows * t.byteWidth(), 64), valid = arena.allocate(rows / 8);
            valid.fill((byte) -1);
            for (int i = 0; i < rows; i++) {
                double x = SPECIAL[(i % n) / SPECIAL.length], y = SPECIAL[i % SPECIAL.length];
                RowInterpreter.write(a, t, i, t == FLOAT32 ? (Number) (float) x : (Number) x);
                RowInterpreter.write(b, t, i, t == FLOAT32 ? (Number) (float) y : (Number) y);
            }
            for (int pass = 0; pass < PASSES; pass++) {
                cpu.execute(p, new KernelInvocation(List.of(a, b), valid, out, rows));
            }
            for (int i = 0; i < n; i++) {
                Number[] row = {RowInterpreter.read(a, t, i), RowInterpreter.read(b, t, i)};
                double ref = RowInterpreter.evaluate(p.root(), row).doubleValue();
                double got = RowInterpreter.read(out, t, i).doubleValue();
                double u = ulps(ref, got, t == FLOAT32);
                if (u > BOUND || specialMismatch(row[0].doubleValue(), row[1].doubleValue(), ref, got)) {
                    failures.add(op + " " + t + "(" + row[0] + ", " + row[1] + ") = " + got + ", reference " + ref);
                }
            }
        }
        return failures;
    }

    @Test
    void log2OfPowersOfTwoIsExact() {
        for (ElementType t : List.of(FLOAT64, FLOAT32)) {
            int lo = t == FLOAT64 ? -1074 : -149, hi = t == FLOAT64 ? 1023 : 127;
            int rows = hi - lo + 1;
            KernelProgram p = new KernelProgram(List.of(t), new IrNode.Unary(UnaryOp.LOG2, Ir.arg(0, t)));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment a = arena.allocate((long) rows * t.byteWidth(), 64),
                        out = arena.allocate((long) rows * t.byteWidth(), 64);
                MemorySegment valid = arena.allocate((rows + 7) / 8);
                valid.fill((byte) -1);
                for (int e = lo; e <= hi; e++) {
                    RowInterpreter.write(
                            a, t, e - lo, t == FLOAT32 ? (Number) Math.scalb(1f, e) : (Number) Math.scalb(1.0, e));
                }
                for (int pass = 0; pass < 1000; pass++) { // small batches: compiled after some hundred calls
                    cpu.execute(p, new KernelInvocation(List.of(a), valid, out, rows));
                }
                for (int e = lo; e <= hi; e++) {
                    assertEquals(
                            (double) e, RowInterpreter.read(out, t, e - lo).doubleValue(), "log2(2^" + e + ") " + t);
                }
            }
        }
    }

    @AfterAll
    static void report() throws IOException {
        StringBuilder sb = new StringBuilder("Max error vs the reference (StrictMath), ulps, on ")
                .append(System.getProperty("os.arch"))
                .append(", ")
                .append(Runtime.version())
                .append('\n');
        TABLE.forEach((k, v) -> sb.append(k).append(' ').append(v).append('\n'));
        System.out.print(sb);
        Path target = Path.of("target");
        if (Files.isDirectory(target)) {
            Files.writeString(target.resolve("math-ulp.txt"), sb);
        }
    }
}
