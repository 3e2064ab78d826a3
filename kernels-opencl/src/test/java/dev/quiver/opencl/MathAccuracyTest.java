package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.backend.RowMode;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.AfterAll;

/**
 * The floating-point functions against the reference (StrictMath, fdlibm): the special cases
 * exactly (a NaN, ±0 or ±infinity the reference returns, the device must return, with its
 * sign), and the finite results within the OpenCL full profile's ulp bound of each builtin,
 * measured over random inputs across each function's domain. The measured maxima are printed.
 */
class MathAccuracyTest extends DeviceTestBase {
    private static final long SEED = Long.getLong("quiver.seed", 77_001L);
    private static final int ROWS = 200_000;
    /** Largest ulp distance measured per "op type" on each device, printed after the class. */
    private static final Map<String, Long> MEASURED = new ConcurrentHashMap<>();

    /** The OpenCL C full profile's bound (ulp), the same for float and double. */
    static long bound(IrNode node) {
        return switch (node) {
            case IrNode.Unary u ->
                switch (u.op()) {
                    case CBRT, LOG1P -> 2;
                    case EXP, EXPM1, LOG, LOG2, LOG10 -> 3;
                    case SIN, COS, ASIN, ACOS, SINH, COSH -> 4;
                    case TAN, TANH, ATAN -> 5;
                    default -> throw new IllegalArgumentException(u.op() + " is exact");
                };
            case IrNode.Binary b ->
                switch (b.op()) {
                    case ATAN2 -> 6;
                    case HYPOT -> 4;
                    case POW -> 16;
                    default -> throw new IllegalArgumentException(b.op() + " is exact");
                };
            default -> throw new IllegalArgumentException(node + " is not a math function");
        };
    }

    /** Every function of the IR whose result is not exact, over (T, T). */
    static List<IrNode> functions(ElementType t) {
        IrNode x = Ir.arg(0, t), y = Ir.arg(1, t);
        List<IrNode> nodes = new ArrayList<>();
        for (UnaryOp op : UnaryOp.values()) {
            if (op.domain() == UnaryOp.Domain.FLOAT && !op.isExact()) {
                nodes.add(new IrNode.Unary(op, x));
            }
        }
        for (BinaryOp op : List.of(BinaryOp.POW, BinaryOp.ATAN2, BinaryOp.HYPOT)) {
            nodes.add(new IrNode.Binary(op, x, y));
        }
        return nodes;
    }

    private static String name(IrNode node) {
        return node instanceof IrNode.Unary u
                ? u.op().name().toLowerCase()
                : ((IrNode.Binary) node).op().name().toLowerCase();
    }

    @OnEveryDevice
    void float64WithinTheBound(OpenClBackend backend) {
        measure(backend, ElementType.FLOAT64);
    }

    @OnEveryDevice
    void float32WithinTheBound(OpenClBackend backend) {
        measure(backend, ElementType.FLOAT32);
    }

    private void measure(OpenClBackend backend, ElementType t) {
        for (IrNode node : functions(t)) {
            KernelProgram program = new KernelProgram(List.of(t, t), node);
            SplittableRandom random = new SplittableRandom(SEED + (t + name(node)).hashCode()); // stable across runs
            double[][] in = inputs(node, ROWS, random);
            double[] device = runOnce(backend, t, program, in);
            long worst = 0;
            long worstVsReference = 0;
            Number[] row = new Number[2];
            for (int r = 0; r < ROWS; r++) {
                row[0] = box(t, in[0][r]);
                row[1] = box(t, in[1][r]);
                Number got = box(t, device[r]);
                long d = Differential.distance(t, oracle(node, row), got);
                if (d > bound(node)) {
                    fail(t + " " + name(node) + "(" + in[0][r] + (node instanceof IrNode.Binary ? ", " + in[1][r] : "")
                            + "): want " + oracle(node, row) + ", the device gives " + got + " ("
                            + (d == Long.MAX_VALUE ? "a different special value" : d + " ulp") + ", bound "
                            + bound(node) + ", on " + backend + ")");
                }
                worst = Math.max(worst, d);
                worstVsReference =
                        Math.max(worstVsReference, Differential.distance(t, RowInterpreter.evaluate(node, row), got));
            }
            String key = backend.device().name() + " | " + t + " | " + name(node);
            MEASURED.merge(key, worst, Math::max);
            if (worstVsReference != worst) {
                MEASURED.merge(key + " (vs RowInterpreter itself)", worstVsReference, Math::max);
            }
        }
    }

    /**
     * What a function should give: the reference, except for log2, whose reference
     * ({@code e + ln(m) / ln 2} with the significand m in [1, 2)) cancels badly just below 1
     * (thousands of ulp at 1 - 2^-13: e = -1 and ln(m) / ln 2 is nearly 1). There the oracle is
     * the same sum with m in [sqrt(1/2), sqrt(2)), ln(m) from log1p(m - 1) (m - 1 is exact) and
     * 1 / ln 2 in two parts: within about 1 ulp everywhere.
     */
    static Number oracle(IrNode node, Number[] row) {
        if (node instanceof IrNode.Unary u && u.op() == UnaryOp.LOG2) {
            double x = accurateLog2(row[0].doubleValue());
            return node.type() == ElementType.FLOAT32 ? (Number) (float) x : (Number) x;
        }
        return RowInterpreter.evaluate(node, row);
    }

    static double accurateLog2(double x) {
        if (!(x > 0) || Double.isInfinite(x)) {
            return StrictMath.log(x); // NaN, -Infinity for ±0, +Infinity
        }
        int scale = 0;
        if (Math.getExponent(x) < Double.MIN_EXPONENT) { // subnormal: into the normal range
            x *= 0x1p54;
            scale = -54;
        }
        int e = Math.getExponent(x);
        double m = Math.scalb(x, -e); // [1, 2)
        if (m > Math.sqrt(2)) {
            m /= 2;
            e++;
        }
        double ln = StrictMath.log1p(m - 1);
        double hi = 1.4426950408889634, lo = 2.0355273740931033E-17; // 1 / ln 2 = hi + lo
        double p = ln * hi;
        double q = p + (Math.fma(ln, hi, -p) + ln * lo);
        return (e + scale) + q;
    }

    /**
     * Special inputs, every pair of them for the binary functions: where the reference returns
     * NaN, ±0 or ±infinity, the device returns exactly that (and a number where it returns a
     * number, within the bound).
     */
    @OnEveryDevice
    void specialCasesAsStrictMath(OpenClBackend backend) {
        for (ElementType t : List.of(ElementType.FLOAT64, ElementType.FLOAT32)) {
            double[] special = specials(t);
            for (IrNode node : functions(t)) {
                boolean binary = node instanceof IrNode.Binary;
                int rows = binary ? special.length * special.length : special.length;
                double[][] in = new double[2][rows];
                for (int r = 0; r < rows; r++) {
                    in[0][r] = special[r % special.length];
                    in[1][r] = binary ? special[r / special.length] : 0;
                }
                exactWhereSpecial(backend, t, node, in);
            }
        }
    }

    /** Java's special cases of pow, some of which C's pow does not have (pow(1, NaN) is 1 in C). */
    @OnEveryDevice
    void powSpecialCasesThatDifferFromC(OpenClBackend backend) {
        for (ElementType t : List.of(ElementType.FLOAT64, ElementType.FLOAT32)) {
            double inf = Double.POSITIVE_INFINITY, nan = Double.NaN;
            double[] xs = {1, 1, -1, -1, 1, -1, 1, nan, nan, 2.5, -2.5, -0.0, 0.0, nan, 7.25, -8};
            double[] ys = {nan, inf, inf, -inf, -inf, nan, 0, 0, -0.0, 1, 1, 1, 1, 1, 1, 1.0 / 3};
            KernelProgram pow =
                    new KernelProgram(List.of(t, t), new IrNode.Binary(BinaryOp.POW, Ir.arg(0, t), Ir.arg(1, t)));
            double[] device = runOnce(backend, t, pow, new double[][] {xs, ys});
            for (int r = 0; r < xs.length; r++) {
                double want =
                        t == ElementType.FLOAT64 ? StrictMath.pow(xs[r], ys[r]) : (float) StrictMath.pow(xs[r], ys[r]);
                assertEquals(
                        Double.doubleToLongBits(want),
                        Double.doubleToLongBits(device[r]),
                        t + " pow(" + xs[r] + ", " + ys[r] + ") as StrictMath: " + want + ", got " + device[r]);
            }
            // Spelled out: the cases C answers with 1.
            assertTrue(
                    Double.isNaN(device[0]) && Double.isNaN(device[1]) && Double.isNaN(device[2]),
                    t + " pow(±1, NaN/∞)");
        }
    }

    /** Results the reference and the IR promise exactly: pow of integers, log10(10^n), log2(2^n), pow(x, 1). */
    @OnEveryDevice
    void exactResultsOfTheFunctions(OpenClBackend backend) {
        for (ElementType t : List.of(ElementType.FLOAT64, ElementType.FLOAT32)) {
            List<double[]> pairs = new ArrayList<>();
            for (int base = -12; base <= 12; base++) {
                for (int e = -4; e <= 40; e++) {
                    double want = StrictMath.pow(base, e);
                    boolean exact = t == ElementType.FLOAT64 ? Math.abs(want) < 0x1p53 : Math.abs(want) < 0x1p24;
                    if (exact && want == Math.rint(want) || base == 2 || base == -2) {
                        pairs.add(new double[] {base, e});
                    }
                }
            }
            SplittableRandom random = new SplittableRandom(SEED);
            for (int i = 0; i < 200; i++) {
                pairs.add(new double[] {(random.nextDouble() - 0.5) * Math.scalb(1.0, random.nextInt(-100, 100)), 1});
            }
            double[][] in = new double[2][pairs.size()];
            for (int r = 0; r < pairs.size(); r++) {
                in[0][r] = pairs.get(r)[0];
                in[1][r] = pairs.get(r)[1];
            }
            exactAsReference(backend, t, new IrNode.Binary(BinaryOp.POW, Ir.arg(0, t), Ir.arg(1, t)), in);

            int powersOfTen = t == ElementType.FLOAT64 ? 22 : 10; // 10^n exactly representable
            double[][] tens = new double[2][powersOfTen + 1];
            for (int n = 0; n <= powersOfTen; n++) {
                tens[0][n] = Math.pow(10, n);
            }
            exactAsReference(backend, t, new IrNode.Unary(UnaryOp.LOG10, Ir.arg(0, t)), tens);

            int lowest = t == ElementType.FLOAT64 ? -1074 : -149, highest = t == ElementType.FLOAT64 ? 1023 : 127;
            double[][] twos = new double[2][highest - lowest + 1];
            for (int n = lowest; n <= highest; n++) {
                twos[0][n - lowest] = Math.scalb(1.0, n);
            }
            exactAsReference(backend, t, new IrNode.Unary(UnaryOp.LOG2, Ir.arg(0, t)), twos);
        }
    }

    private void exactAsReference(OpenClBackend backend, ElementType t, IrNode node, double[][] in) {
        KernelProgram program = new KernelProgram(List.of(t, t), node);
        try (Arena arena = Arena.ofConfined()) {
            int rows = in[0].length;
            Differential.Inputs inputs =
                    inputs(arena, t, in, Differential.validity(arena, rows, new SplittableRandom(1), 0));
            Differential.check(backend, program, inputs, RowMode.ALL_ROWS, -1, arena, "exact " + name(node));
        }
    }

    private void exactWhereSpecial(OpenClBackend backend, ElementType t, IrNode node, double[][] in) {
        KernelProgram program = new KernelProgram(List.of(t, t), node);
        double[] device = runOnce(backend, t, program, in);
        Number[] row = new Number[2];
        for (int r = 0; r < device.length; r++) {
            row[0] = box(t, in[0][r]);
            row[1] = box(t, in[1][r]);
            double want = oracle(node, row).doubleValue();
            double got = device[r];
            // A zero, infinity or NaN the reference gives is a special case, to match exactly, sign included; a
            // device zero for a tiny reference result is an underflow, one ulp like any other.
            boolean special = Double.isNaN(want)
                    || Double.isInfinite(want)
                    || want == 0
                    || Double.isNaN(got)
                    || Double.isInfinite(got);
            long d = Differential.distance(t, box(t, want), box(t, got));
            if (special ? d != 0 : d > bound(node)) {
                fail(t + " " + name(node) + "(" + in[0][r] + (node instanceof IrNode.Binary ? ", " + in[1][r] : "")
                        + "): StrictMath gives " + want + ", the device " + got + " (on " + backend + ")");
            }
        }
    }

    /** Runs {@code program} once over all rows valid and returns the results widened to double. */
    private static double[] runOnce(OpenClBackend backend, ElementType t, KernelProgram program, double[][] in) {
        int rows = in[0].length;
        try (Arena arena = Arena.ofConfined()) {
            Differential.Inputs inputs =
                    inputs(arena, t, in, Differential.validity(arena, rows, new SplittableRandom(1), 0));
            Differential.Outcome got = Differential.onDevice(backend, program, inputs, RowMode.VALID_ROWS, arena);
            double[] out = new double[rows];
            for (int r = 0; r < rows; r++) {
                out[r] = RowInterpreter.read(got.out(), t, r).doubleValue();
            }
            return out;
        }
    }

    private static Differential.Inputs inputs(Arena arena, ElementType t, double[][] in, MemorySegment validity) {
        int rows = in[0].length;
        List<MemorySegment> args = List.of(
                Differential.column(arena, t, rows, r -> box(t, in[0][r])),
                Differential.column(arena, t, rows, r -> box(t, in[1][r])));
        return new Differential.Inputs(args, validity, rows);
    }

    private static Number box(ElementType t, double v) {
        return t == ElementType.FLOAT64 ? (Number) v : (Number) (float) v;
    }

    private static double[] specials(ElementType t) {
        List<Double> values = new ArrayList<>();
        if (t == ElementType.FLOAT64) {
            for (double d : TestData.DOUBLES) {
                values.add(d);
            }
        } else {
            for (float f : TestData.FLOATS) {
                values.add((double) f);
            }
        }
        for (double d :
                new double[] {0.25, -0.25, 0.75, -0.75, 3, -3, 4, -4, 0.5 + 0x1p-20, -1 - 0x1p-20, 1e-8, -1e-8}) {
            values.add(d);
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Inputs across the function's domain: its interesting ranges, near its special points, and arbitrary bits. */
    static double[][] inputs(IrNode node, int rows, SplittableRandom r) {
        boolean f32 = node.type() == ElementType.FLOAT32;
        DoubleSupplier anyBits = () -> f32 ? Float.intBitsToFloat(r.nextInt()) : Double.longBitsToDouble(r.nextLong());
        DoubleSupplier wide = () -> (r.nextBoolean() ? 1 : -1)
                * Math.scalb(1 + r.nextDouble(), f32 ? r.nextInt(-149, 128) : r.nextInt(-1074, 1024));
        DoubleSupplier positive = () -> Math.abs(wide.getAsDouble());
        DoubleSupplier nearOne = () -> 1 + (r.nextDouble() - 0.5) * Math.scalb(1.0, -r.nextInt(0, f32 ? 24 : 53));
        DoubleSupplier tiny = () -> (r.nextDouble() - 0.5) * Math.scalb(1.0, -r.nextInt(1, f32 ? 40 : 100));
        double expMax = f32 ? 89 : 710, expMin = f32 ? -104 : -746;
        DoubleSupplier domain = switch (node) {
            case IrNode.Unary u ->
                switch (u.op()) {
                    case EXP -> () -> r.nextDouble(expMin, expMax);
                    case EXPM1 -> () -> r.nextBoolean() ? tiny.getAsDouble() : r.nextDouble(-40, expMax);
                    case LOG, LOG2, LOG10 -> () -> r.nextBoolean() ? positive.getAsDouble() : nearOne.getAsDouble();
                    case LOG1P ->
                        () -> switch (r.nextInt(3)) {
                            case 0 -> tiny.getAsDouble();
                            case 1 -> -1 + r.nextDouble() * Math.scalb(1.0, -r.nextInt(0, 30));
                            default -> positive.getAsDouble();
                        };
                    case SIN, COS, TAN ->
                        () -> switch (r.nextInt(3)) {
                            case 0 -> r.nextDouble(-10, 10);
                            case 1 -> r.nextDouble(-1e6, 1e6);
                            default -> wide.getAsDouble();
                        };
                    case ASIN, ACOS -> () -> r.nextBoolean() ? r.nextDouble(-1, 1) : tiny.getAsDouble();
                    case SINH, COSH ->
                        () -> r.nextBoolean() ? r.nextDouble(-expMax - 1, expMax + 1) : tiny.getAsDouble();
                    case TANH -> () -> r.nextBoolean() ? r.nextDouble(-25, 25) : tiny.getAsDouble();
                    default -> wide;
                };
            case IrNode.Binary _ -> wide;
            default -> throw new IllegalArgumentException(node.toString());
        };
        double[][] in = new double[2][rows];
        boolean pow = node instanceof IrNode.Binary b && b.op() == BinaryOp.POW;
        for (int i = 0; i < rows; i++) {
            int pick = r.nextInt(10);
            double x = pick == 0 ? anyBits.getAsDouble() : domain.getAsDouble();
            double y = pick == 0 ? anyBits.getAsDouble() : wide.getAsDouble();
            if (pow && pick > 0) {
                switch (pick % 3) {
                    case 0 -> { // moderate base, exponent that keeps the result in range
                        x = r.nextDouble(0, 100);
                        y = r.nextDouble(-30, 30);
                    }
                    case 1 -> { // negative base, integer exponent
                        x = r.nextDouble(-20, 0);
                        y = r.nextInt(-40, 40);
                    }
                    default -> { // near 1, large exponent
                        x = nearOne.getAsDouble();
                        y = r.nextDouble(-1e6, 1e6);
                    }
                }
            }
            in[0][i] = f32 ? (float) x : x;
            in[1][i] = f32 ? (float) y : y;
        }
        return in;
    }

    @AfterAll
    static void printMeasured() {
        if (MEASURED.isEmpty()) {
            return;
        }
        StringBuilder table = new StringBuilder("Measured max ulp vs StrictMath (device | type | function: ulp):\n");
        new TreeMap<>(MEASURED)
                .forEach((k, v) ->
                        table.append("  ").append(k).append(": ").append(v).append('\n'));
        System.out.print(table);
        MEASURED.clear();
    }
}
