package dev.quiver.cpu.math;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.UnaryOp;
import java.util.Optional;
import jdk.incubator.vector.DoubleVector;

/**
 * The math functions of the fused loops: the IR's inexact floating-point operations, each
 * computed exactly as the reference computes it ({@link StrictMath}, fdlibm; {@code log2} as
 * {@code RowInterpreter.log2}), bit for bit, whatever code the JIT runs.
 *
 * <p>Why not the Vector API's operators ({@code VectorOperators.SIN}, {@code EXP}, ...): C2
 * runs them with a vector math library (SVML on x86, SLEEF on ARM) and the interpreter and C1
 * with {@code Math.sin} per lane, so the same batch gave up to four different last bits while
 * the JIT warmed up. What these classes use instead is exact in every tier: additions,
 * multiplications, divisions, square roots and fused multiply-adds are correctly rounded
 * (IEEE 754), comparisons, blends and bit operations are exact, and no Vector API call here
 * depends on a library. Each function is fdlibm's algorithm in lanes (every branch computed,
 * the lane's own one blended in; a rare branch only when some lane takes it), and where a lane
 * needs what does not vectorise (the sine of 10<sup>300</sup>) {@link StrictMath} itself on that
 * lane. A NaN that two NaNs make (a binary function's) is the canonical NaN: which operand's
 * payload {@code NaN + NaN} keeps depends on the JIT.
 *
 * <p>How the loop calls them: a function's class has a static method {@code apply(double[] x, int n)}
 * (two arrays {@code apply(double[] y, double[] x, int n)} for two arguments, the result in
 * the first) that replaces the first {@code n} values of its first array with their results.
 * Each array is {@link #scratchLength}{@code (n)} long: past its first {@code n} values it is the
 * function's working space (a function built on another, as {@link Log10} on {@link Ln}, keeps
 * its reduced arguments there while the other one runs). The loop stores a vector into a
 * scratch array of its own, calls the function and loads the result back; a Float32 lane is
 * widened to Float64 first and the result rounded once ({@link #widen}, {@link #narrow}), as the
 * reference does. A call per step, not per row: the function runs as its own compiled method,
 * outside the loop's inlining budget.
 *
 * <p>Why each function is one loop of Vector API calls, with no method of its own inside: C2
 * inlines the Vector API's methods (they are marked to be) however large the method it compiles
 * grows, but no other method once that method has some 18,000 nodes (NodeCountInliningCutoff),
 * and a vector passed to a method that is not inlined is an object on the heap: a helper taking
 * vectors made {@code exp} five times slower. Functions built on others call them on arrays.
 */
public final class LaneMath {
    private static final int LANES = DoubleVector.SPECIES_PREFERRED.length();
    /** Adding and subtracting 2^52 rounds a double below 2^52 in magnitude to an integer (ties to even). */
    static final double TWO52 = 0x1p52;
    /** 1.5 * 2^52: an integer {@code k}, {@code |k| < 2^51}, plus this has {@code k + 2^51} in its low 52 bits. */
    static final double INTEGER_BIAS = 0x1.8p52;

    static final long LOW52 = (1L << 52) - 1;
    /** The bits of {@link #INTEGER_BIAS}: plus an integer {@code k}, {@code |k| < 2^51}, the bits of the double 1.5 * 2^52 + k. */
    static final long INTEGER_BIAS_BITS = Double.doubleToRawLongBits(INTEGER_BIAS);

    private LaneMath() {}

    /** The lanes the functions compute at once: their arrays hold a multiple of this. */
    public static int lanes() {
        return LANES;
    }

    /** The length of an array for {@code n} values: four times {@code n} rounded up to a multiple of {@link #lanes()}. */
    public static int scratchLength(int n) {
        return 4 * room(n);
    }

    /** {@code n} rounded up to a multiple of {@link #lanes()}: where the second third of an array starts. */
    static int room(int n) {
        return (n + LANES - 1) / LANES * LANES;
    }

    /** The class whose {@code apply(double[], int)} computes {@code op}, if {@code op} is one of these functions. */
    public static Optional<Class<?>> of(UnaryOp op) {
        return Optional.ofNullable(
                switch (op) {
                    case CBRT -> Cbrt.class;
                    case EXP -> Exp.class;
                    case EXPM1 -> Expm1.class;
                    case LOG -> Ln.class;
                    case LOG1P -> Log1p.class;
                    case LOG2 -> Log2.class;
                    case LOG10 -> Log10.class;
                    case SIN -> Sin.class;
                    case COS -> Cos.class;
                    case TAN -> Tan.class;
                    case ASIN -> Asin.class;
                    case ACOS -> Acos.class;
                    case ATAN -> Atan.class;
                    case SINH -> Sinh.class;
                    case COSH -> Cosh.class;
                    case TANH -> Tanh.class;
                    case NEG, ABS, NOT, SQRT, FLOOR, CEIL, TRUNC, RINT -> null;
                });
    }

    /** The class whose {@code apply(double[], double[], int)} computes {@code op}, if {@code op} is one of these functions. */
    public static Optional<Class<?>> of(BinaryOp op) {
        return Optional.ofNullable(
                switch (op) {
                    case POW -> Pow.class;
                    case ATAN2 -> Atan2.class;
                    case HYPOT -> Hypot.class;
                    default -> null;
                });
    }

    /** {@code to[i] = from[i]} for the first {@code n} values: a Float32 lane as the Float64 the reference computes in. */
    public static void widen(float[] from, double[] to, int n) {
        for (int i = 0; i < n; i++) {
            to[i] = from[i];
        }
    }

    /** {@code to[i] = (float) from[i]} for the first {@code n} values: the reference's one rounding to Float32. */
    public static void narrow(double[] from, float[] to, int n) {
        for (int i = 0; i < n; i++) {
            to[i] = (float) from[i];
        }
    }
}
