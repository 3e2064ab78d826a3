package dev.quiver.cpu.math;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Each function of {@link LaneMath} against the reference ({@link RowInterpreter}: StrictMath,
 * and its own log2), bit for bit, sign of zero included (a NaN as a NaN; the binary functions
 * give the canonical one), over inputs chosen where fdlibm branches: its special values, every
 * magnitude, subnormals, near 0 and 1, near multiples of pi/2 (each round of sin's reduction), the
 * edges of exp's range, and for pow negative bases with integer and half-integer exponents, bases
 * near 1 with huge exponents and results at the edges of overflow and underflow. Also through the
 * array contract: every {@code n} up to three vectors and a half, garbage in the working space.
 * Replay with {@code -Dquiver.seed=<seed>}.
 */
class LaneMathTest {
    private static final long SEED = Long.getLong("quiver.seed", 20261201L);
    /** Values per function: enough calls for C2 to compile each function (its tiers agree: DeterminismTest). */
    private static final int VALUES = 400_000;

    private static final int CHUNK = 4096;

    private static final double[] SPECIAL = {
        0.0,
        -0.0,
        Double.NaN,
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
        -2.0,
        3.0,
        -3.0,
        1e300,
        -1e300,
        0x1p-28,
        0x1p-54,
        0.9999999999999999,
        1.0000000000000002,
        Math.PI,
        Math.PI / 2,
        Math.PI / 4,
        3 * Math.PI / 4,
        0x1p19 * Math.PI / 2,
        0x1p20 * Math.PI / 2,
        709.782712893384,
        -745.1332191019411,
        22.0,
        0.6744,
        0.3,
        0.4375,
        2.4375,
        1024,
        -1075,
        0x1p31,
        0x1p53,
        0x1p52 + 1,
        -0x1p53 - 2
    };

    private static double special(Random r) {
        return SPECIAL[r.nextInt(SPECIAL.length)];
    }

    /** An argument of a unary function: special, of any magnitude, near 0, 1 or a multiple of pi/2. */
    static double argument(Random r) {
        return switch (r.nextInt(9)) {
            case 0 -> special(r);
            case 1 -> Math.scalb(r.nextDouble() * 2 - 1, r.nextInt(2100) - 1075);
            case 2 -> 1 + r.nextGaussian() * Math.scalb(1.0, -r.nextInt(50));
            case 3 -> r.nextGaussian() * Math.scalb(1.0, -r.nextInt(60));
            case 4 -> { // near k pi/2: the reduction's hard cases, with k up to past its vector range
                double x = (1 + r.nextInt(1 << (1 + r.nextInt(22)))) * (Math.PI / 2);
                for (int steps = r.nextInt(9) - 4; steps != 0; steps -= Integer.signum(steps)) {
                    x = steps > 0 ? Math.nextUp(x) : Math.nextDown(x);
                }
                yield r.nextBoolean() ? x : -x;
            }
            case 5 -> r.nextDouble() * 1500 - 750;
            case 6 -> r.nextDouble() * 2 - 1;
            case 7 -> r.nextGaussian() * Math.scalb(1.0, r.nextInt(30));
            default -> r.nextGaussian() * 10;
        };
    }

    /** A pair {x, y} for pow(x, y) (and the other binary functions). */
    static double[] pair(Random r) {
        return switch (r.nextInt(8)) {
            case 0 -> new double[] {special(r), special(r)};
            case 1 -> new double[] {r.nextDouble() * 20 - 10, r.nextInt(61) - 30};
            case 2 -> new double[] {-r.nextDouble() * 5, (r.nextInt(41) - 20) + (r.nextBoolean() ? 0.5 : 0)};
            case 3 ->
                new double[] {
                    1 + r.nextGaussian() * Math.scalb(1.0, -r.nextInt(40)),
                    r.nextGaussian() * Math.scalb(1.0, r.nextInt(64))
                };
            case 4 ->
                new double[] {r.nextBoolean() ? 2.0 : 0.5, (r.nextBoolean() ? 1 : -1) * (1020 + r.nextDouble() * 60)};
            case 5 -> new double[] {Math.scalb(1 + r.nextDouble(), r.nextInt(2100) - 1075), r.nextGaussian() * 3};
            case 6 -> new double[] {argument(r), argument(r)};
            default -> new double[] {r.nextDouble() * 3, r.nextDouble() * 1500 - 750};
        };
    }

    private static DoubleUnaryOperator reference(UnaryOp op) {
        IrNode node = new IrNode.Unary(op, Ir.arg(0, ElementType.FLOAT64));
        return x -> RowInterpreter.evaluate(node, new Number[] {x}).doubleValue();
    }

    private static DoubleBinaryOperator reference(BinaryOp op) {
        IrNode node = new IrNode.Binary(op, Ir.arg(0, ElementType.FLOAT64), Ir.arg(1, ElementType.FLOAT64));
        return (x, y) -> RowInterpreter.evaluate(node, new Number[] {x, y}).doubleValue();
    }

    private static boolean same(double expected, double actual) {
        return Double.doubleToLongBits(expected) == Double.doubleToLongBits(actual);
    }

    private static void apply(Class<?> function, double[] a, double[] b, int n) {
        try {
            if (b == null) {
                function.getMethod("apply", double[].class, int.class).invoke(null, a, n);
            } else {
                function.getMethod("apply", double[].class, double[].class, int.class)
                        .invoke(null, a, b, n);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(function + ".apply", e);
        }
    }

    @Test
    void everyUnaryFunctionIsTheReferenceBitForBit() {
        List<String> failures = new ArrayList<>();
        for (UnaryOp op : UnaryOp.values()) {
            LaneMath.of(op).ifPresent(function -> {
                DoubleUnaryOperator ref = reference(op);
                Random r = new Random(SEED ^ op.hashCode());
                double[] in = new double[CHUNK];
                double[] a = new double[LaneMath.scratchLength(CHUNK)];
                int bad = 0;
                for (int done = 0; done < VALUES; done += CHUNK) {
                    for (int i = 0; i < CHUNK; i++) {
                        in[i] = argument(r);
                    }
                    System.arraycopy(in, 0, a, 0, CHUNK);
                    apply(function, a, null, CHUNK);
                    for (int i = 0; i < CHUNK; i++) {
                        double e = ref.applyAsDouble(in[i]);
                        if (!same(e, a[i]) && bad++ < 5) {
                            failures.add(
                                    op + "(" + in[i] + ") = " + a[i] + ", reference " + e + " (seed " + SEED + ")");
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void everyBinaryFunctionIsTheReferenceBitForBit() {
        List<String> failures = new ArrayList<>();
        for (BinaryOp op : BinaryOp.values()) {
            LaneMath.of(op).ifPresent(function -> {
                DoubleBinaryOperator ref = reference(op);
                Random r = new Random(SEED ^ op.hashCode());
                double[] in0 = new double[CHUNK], in1 = new double[CHUNK];
                double[] a = new double[LaneMath.scratchLength(CHUNK)], b = new double[LaneMath.scratchLength(CHUNK)];
                int bad = 0;
                for (int done = 0; done < VALUES; done += CHUNK) {
                    for (int i = 0; i < CHUNK; i++) {
                        double[] p = pair(r);
                        in0[i] = p[0];
                        in1[i] = p[1];
                    }
                    System.arraycopy(in0, 0, a, 0, CHUNK);
                    System.arraycopy(in1, 0, b, 0, CHUNK);
                    apply(function, a, b, CHUNK);
                    for (int i = 0; i < CHUNK; i++) {
                        double e = ref.applyAsDouble(in0[i], in1[i]);
                        boolean canonical = !Double.isNaN(a[i])
                                || Double.doubleToRawLongBits(a[i]) == Double.doubleToRawLongBits(Double.NaN);
                        if ((!same(e, a[i]) || !canonical) && bad++ < 5) {
                            failures.add(op + "(" + in0[i] + ", " + in1[i] + ") = " + a[i] + ", reference " + e
                                    + " (seed " + SEED + ")");
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    /** The first n values, whatever n and whatever the working space holds before: as if computed one by one. */
    @Test
    void everyCountOfValuesIsComputedAlikeWhateverTheWorkingSpaceHolds() {
        Random r = new Random(SEED);
        int most = 3 * LaneMath.lanes() + LaneMath.lanes() / 2 + 1;
        for (UnaryOp op : UnaryOp.values()) {
            LaneMath.of(op).ifPresent(function -> {
                DoubleUnaryOperator ref = reference(op);
                for (int n = 1; n <= most; n++) {
                    double[] a = new double[LaneMath.scratchLength(n)];
                    for (int i = 0; i < a.length; i++) {
                        a[i] = argument(r); // garbage past n
                    }
                    double[] in = Arrays.copyOf(a, n);
                    apply(function, a, null, n);
                    for (int i = 0; i < n; i++) {
                        assertEquals(
                                Double.doubleToLongBits(ref.applyAsDouble(in[i])),
                                Double.doubleToLongBits(a[i]),
                                op + "(" + in[i] + ") with n = " + n);
                    }
                }
            });
        }
        for (BinaryOp op : BinaryOp.values()) {
            LaneMath.of(op).ifPresent(function -> {
                DoubleBinaryOperator ref = reference(op);
                for (int n = 1; n <= most; n++) {
                    double[] a = new double[LaneMath.scratchLength(n)], b = new double[LaneMath.scratchLength(n)];
                    for (int i = 0; i < a.length; i++) {
                        double[] p = pair(r);
                        a[i] = p[0];
                        b[i] = p[1];
                    }
                    double[] in0 = Arrays.copyOf(a, n), in1 = Arrays.copyOf(b, n);
                    apply(function, a, b, n);
                    for (int i = 0; i < n; i++) {
                        assertEquals(
                                Double.doubleToLongBits(ref.applyAsDouble(in0[i], in1[i])),
                                Double.doubleToLongBits(a[i]),
                                op + "(" + in0[i] + ", " + in1[i] + ") with n = " + n);
                    }
                }
            });
        }
    }
}
