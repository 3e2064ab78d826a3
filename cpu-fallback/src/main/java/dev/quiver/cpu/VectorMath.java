package dev.quiver.cpu;

import dev.quiver.cpu.VectorCode.Val;
import dev.quiver.types.ElementType;

/**
 * The math of the IR that has no {@link jdk.incubator.vector.VectorOperators} operator, and
 * the corrections the Vector API needs to follow Java's special cases, emitted into the fused
 * loop as Vector API calls on its locals (lanewise operations, comparisons and blends only: no
 * per-lane code, no conversions that some x86 levels lack). Each method documents the Java it
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
    private static final double INV_LN2 = 1.4426950408889634;
    private static final double SQRT2 = 1.4142135623730951;

    private VectorMath() {
    }

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
     * Base-2 logarithm: {@code x = m * 2^e} with {@code m} in {@code [sqrt(1/2), sqrt(2))}
     * (subnormals scaled into the normal range first), {@code e + ln(m) / ln 2}; powers of two give
     * {@code e} exactly. NaN and negative inputs give NaN, {@code ±0} gives {@code -Infinity},
     * {@code +Infinity} gives {@code +Infinity} (as {@code RowInterpreter.log2}):
     *
     * <pre>{@code
     * VectorMask<Double> subnormal = x.compare(LT, Double.MIN_NORMAL);
     * LongVector bits = x.lanewise(MUL, 0x1p54, subnormal).viewAsIntegralLanes();
     * DoubleVector m = bits.lanewise(AND, 0x000FFFFFFFFFFFFFL).lanewise(OR, 0x3FF0000000000000L)
     *         .viewAsFloatingLanes();                                                // [1, 2)
     * DoubleVector e = bits.lanewise(LSHR, 52).lanewise(AND, 0x7FF).lanewise(OR, 0x4330000000000000L)
     *         .viewAsFloatingLanes().lanewise(SUB, 0x1p52 + 1023).lanewise(SUB, 54, subnormal); // exact
     * VectorMask<Double> high = m.compare(GT, Math.sqrt(2));
     * m = m.lanewise(MUL, 0.5, high);
     * e = e.lanewise(ADD, 1, high);
     * DoubleVector r = m.lanewise(LOG).lanewise(MUL, 1 / Math.log(2)).lanewise(ADD, e)
     *         .blend(e, m.compare(EQ, 1.0));
     * VectorMask<Double> regular = x.compare(GT, 0.0).and(x.compare(LT, Double.POSITIVE_INFINITY));
     * DoubleVector special = DoubleVector.broadcast(S, Double.NaN)
     *         .blend(Double.NEGATIVE_INFINITY, x.compare(EQ, 0.0))
     *         .blend(Double.POSITIVE_INFINITY, x.compare(EQ, Double.POSITIVE_INFINITY));
     * return special.blend(r, regular);
     * }</pre>
     */
    static Val log2(VectorCode c, Val x) {
        ElementType t = x.type();
        boolean f64 = t == ElementType.FLOAT64;
        int mantissa = f64 ? 52 : 23;
        long exponentMask = f64 ? 0x7FF : 0xFF;
        int bias = f64 ? 1023 : 127;
        int scale = f64 ? 54 : 25;
        Val subnormal = c.compare("LT", x, f64 ? Double.MIN_NORMAL : Float.MIN_NORMAL);
        Val bits = c.integralView(c.binary("MUL", x, Math.scalb(1.0, scale), subnormal));
        Val m = c.floatingView(c.binaryBits("OR", c.binaryBits("AND", bits, (1L << mantissa) - 1),
                f64 ? Double.doubleToRawLongBits(1.0) : Float.floatToRawIntBits(1f)));
        Val field = c.binaryBits("AND", c.binaryBits("LSHR", bits, mantissa), exponentMask);
        Val e = c.floatingView(c.binaryBits("OR", field, f64 ? Double.doubleToRawLongBits(TWO52) : Float.floatToRawIntBits((float) TWO23)));
        e = c.binary("SUB", c.binary("SUB", e, big(t) + bias), scale, subnormal);
        Val high = c.compare("GT", m, f64 ? SQRT2 : (float) SQRT2);
        m = c.binary("MUL", m, 0.5, high);
        e = c.binary("ADD", e, 1, high);
        Val r = c.binary("ADD", c.binary("MUL", c.unary("LOG", m), f64 ? INV_LN2 : (float) INV_LN2), e);
        r = c.blend(r, e, c.compare("EQ", m, 1.0));
        Val regular = c.mask("and", c.compare("GT", x, 0.0), c.compare("LT", x, Double.POSITIVE_INFINITY));
        Val special = c.blend(c.blend(c.broadcast(t, Double.NaN), Double.NEGATIVE_INFINITY, c.compare("EQ", x, 0.0)),
                Double.POSITIVE_INFINITY, c.compare("EQ", x, Double.POSITIVE_INFINITY));
        return c.blend(special, r, regular);
    }

    /**
     * {@code pow} with Java's special cases ({@link StrictMath#pow}). The Vector API may use a C
     * library (SVML on x86) whose special cases differ: {@code pow(1, y)} is 1 for every y and
     * {@code pow(-1, ±Infinity)} is 1 (NaN in Java when y is NaN or infinite), and a negative
     * base with an odd exponent may lose the sign of a result that underflows to zero. So the
     * library computes {@code pow(|a|, b)} only, and the sign and the NaNs are decided here:
     *
     * <pre>{@code
     * DoubleVector r = a.lanewise(ABS).lanewise(POW, b);
     * DoubleVector half = b.lanewise(MUL, 0.5);
     * VectorMask<Double> integral = rint(b).compare(EQ, b);     // false for NaN and ±Infinity
     * VectorMask<Double> odd = integral.andNot(rint(half).compare(EQ, half));
     * r = r.lanewise(NEG, odd.and(a.test(IS_NEGATIVE)));       // -0.0 and -Infinity bases too
     * VectorMask<Double> nan = b.test(IS_NAN)
     *         .or(a.lanewise(ABS).compare(EQ, 1.0).and(b.test(IS_INFINITE)))
     *         .or(a.compare(LT, 0.0).and(a.test(IS_FINITE)).and(b.test(IS_FINITE)).andNot(integral));
     * return r.blend(Double.NaN, nan);
     * }</pre>
     */
    static Val pow(VectorCode c, Val a, Val b) {
        Val abs = c.unary("ABS", a);
        Val r = c.binary("POW", abs, b);
        Val half = c.binary("MUL", b, 0.5);
        Val integral = c.compare("EQ", round(c, "RINT", b), b);
        Val odd = c.mask("andNot", integral, c.compare("EQ", round(c, "RINT", half), half));
        r = c.unary("NEG", r, c.mask("and", odd, c.test("IS_NEGATIVE", a)));
        Val nan = c.mask("or", c.test("IS_NAN", b), c.mask("and", c.compare("EQ", abs, 1.0), c.test("IS_INFINITE", b)));
        Val negativeBase = c.mask("and", c.compare("LT", a, 0.0), c.test("IS_FINITE", a));
        nan = c.mask("or", nan, c.mask("andNot", c.mask("and", negativeBase, c.test("IS_FINITE", b)), integral));
        return c.blend(r, Double.NaN, nan);
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
