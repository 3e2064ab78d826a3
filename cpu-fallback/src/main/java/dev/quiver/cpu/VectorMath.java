package dev.quiver.cpu;

import dev.quiver.cpu.VectorCode.Val;
import dev.quiver.types.ElementType;

/**
 * The exact operations of the IR that have no {@link jdk.incubator.vector.VectorOperators}
 * operator (rounding to an integral value, Int32 division), emitted into the fused loop as
 * Vector API calls on its locals (lanewise operations, comparisons and blends only: no per-lane
 * code, no conversions that some x86 levels lack). The inexact functions ({@code sin},
 * {@code exp}, {@code pow}, ...) are {@link dev.quiver.cpu.math.LaneMath}'s, called from the loop. Each method documents the Java it
 * is equivalent to, for Float64 {@code x}; Float32 is the same with 2<sup>23</sup>, the float
 * exponent field and the float constants.
 *
 * <p>Why not helper methods taking vectors: the JIT compiles a helper on its own once loops
 * running in the interpreter have called it often enough, and then may refuse to inline that
 * compiled code into a loop it compiles later ("already compiled into a big method"); a vector
 * passed to a call that is not inlined is a heap object, and the loop runs some 50 times slower.
 */
final class VectorMath {
    private static final double TWO52 = 0x1p52;
    private static final double TWO23 = 0x1p23;

    private VectorMath() {}

    private static double big(ElementType t) {
        return t == ElementType.FLOAT64 ? TWO52 : TWO23;
    }

    /**
     * {@code floor}, {@code ceil}, {@code trunc} or {@code rint} of {@code x}, exact, as
     * {@link Math#floor} and friends (rint: ties to even). {@code |x|} is rounded to an integer
     * by adding and subtracting 2<sup>52</sup>, which in round-to-nearest-even is
     * {@code rint(|x|)} for {@code |x| < 2^52}; a step by one fixes the direction; the result
     * gets the sign of {@code x} (so {@code ceil(-0.5)} is {@code -0.0}). Values with
     * {@code |x| >= 2^52} are integral already and are returned unchanged, as are NaN and the
     * infinities:
     *
     * <pre>{@code
     * DoubleVector a = x.lanewise(ABS);
     * DoubleVector r = a.lanewise(ADD, 0x1p52).lanewise(SUB, 0x1p52);   // rint(|x|)
     * VectorMask<Double> neg = x.test(IS_NEGATIVE);                      // the sign bit: -0.0 too
     * DoubleVector down = r.lanewise(SUB, 1.0, r.compare(GT, a));        // floor(|x|)
     * DoubleVector up = r.lanewise(ADD, 1.0, r.compare(LT, a));          // ceil(|x|)
     * DoubleVector magnitude = down.blend(up, neg);                      // floor; ceil: up.blend(down, neg),
     *                                                                     // trunc: down, rint: r
     * return x.blend(magnitude.lanewise(NEG, neg), a.compare(LT, 0x1p52));
     * }</pre>
     */
    static Val round(VectorCode c, String op, Val x) {
        double big = big(x.type());
        Val a = c.unary("ABS", x);
        Val r = c.binary("SUB", c.binary("ADD", a, big), big);
        Val neg = c.test("IS_NEGATIVE", x);
        Val magnitude = switch (op) {
            case "RINT" -> r;
            case "TRUNC" -> c.binary("SUB", r, 1, c.compare("GT", r, a));
            case "FLOOR", "CEIL" -> {
                Val down = c.binary("SUB", r, 1, c.compare("GT", r, a));
                Val up = c.binary("ADD", r, 1, c.compare("LT", r, a));
                yield op.equals("FLOOR") ? c.blend(down, up, neg) : c.blend(up, down, neg);
            }
            default -> throw new IllegalArgumentException(op);
        };
        return c.blend(x, c.unary("NEG", magnitude, neg), c.compare("LT", a, big));
    }

    /**
     * {@code a / d} for Int32 vectors, {@code d} without zeros, in doubles: exact for every pair
     * of 32-bit integers (the rounded double quotient never crosses an integer: it is within
     * {@code |a| * 2^-53 / |d|} of {@code a / d}, closer than any integer that is not the
     * quotient), truncated by the conversion back; {@code MIN_VALUE / -1} is 2<sup>31</sup>,
     * which the conversion saturates, and Java wraps it to {@code MIN_VALUE}: {@code -a} is the
     * quotient whenever {@code d} is -1. Programs that divide Int32s run at the 64-bit lane count
     * ({@link FusedLoopCompiler#lanesFor}), so the lanes fit one double vector:
     *
     * <pre>{@code
     * DoubleVector q = ((DoubleVector) a.convertShape(I2D, FLOAT64_512, 0))
     *         .lanewise(DIV, (DoubleVector) d.convertShape(I2D, FLOAT64_512, 0));
     * return ((IntVector) q.convertShape(D2I, INT32_256, 0)).blend(a.lanewise(NEG), d.compare(EQ, -1));
     * }</pre>
     */
    static Val int32Quotient(VectorCode c, Val a, Val d) {
        Val q = c.binary("DIV", c.convert(a, ElementType.FLOAT64), c.convert(d, ElementType.FLOAT64));
        return c.blend(c.convert(q, ElementType.INT32), c.unary("NEG", a), c.compare("EQ", d, -1));
    }
}
