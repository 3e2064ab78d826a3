package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * Base-10 logarithm, bit for bit as {@link StrictMath#log10}: fdlibm's {@code e_log10.c} in
 * lanes. {@code x = 2^n x'} with {@code x'} in {@code [1, 2)} ({@code [1/2, 1)} when {@code n < 0};
 * a subnormal scaled by 2<sup>54</sup> first), then
 * {@code n log10(2)_lo + ln(x') / ln 10 + n log10(2)_hi}; {@code ln(x')} is {@link Ln}'s, run on
 * the reduced arguments kept in the working space. Zeros, negative numbers, +Infinity and NaN go
 * through {@link Ln} unchanged: fdlibm gives them the same results as {@code log} does.
 */
public final class Log10 {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final double TWO54 = 0x1.0p54;
    private static final double IVLN10 = 0x1.bcb7b1526e50ep-2;
    private static final double LOG10_2HI = 0x1.34413509f6p-2;
    private static final double LOG10_2LO = 0x1.9fef311f12b36p-42;

    private Log10() {}

    /** Replaces {@code x[0..n)} by {@code log10(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        int room = LaneMath.room(n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            LongVector ahx = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> special = x.test(IS_NEGATIVE)
                    .or(x.compare(EQ, 0.0))
                    .or(ahx.compare(GE, 0x7ff0_0000L).cast(D));
            VectorMask<Double> subnormal = ahx.compare(LT, 0x0010_0000L).cast(D);
            LongVector bits = x.mul(TWO54, subnormal).viewAsIntegralLanes();
            LongVector hx = bits.lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            LongVector k =
                    hx.lanewise(LSHR, 20).sub(1023).sub(LongVector.zero(L).blend(54L, subnormal.cast(L)));
            LongVector neg = k.lanewise(LSHR, 63); // 1 where k < 0
            LongVector hi = hx.and(0x000f_ffffL)
                    .or(LongVector.broadcast(L, 0x3ffL).sub(neg).lanewise(LSHL, 20));
            DoubleVector reduced =
                    bits.and(0xFFFF_FFFFL).or(hi.lanewise(LSHL, 32)).viewAsFloatingLanes();
            // y = k + i as a double: the bits of 1.5 * 2^52 plus an integer are the double 1.5 * 2^52 plus it.
            DoubleVector y = k.add(neg)
                    .add(LaneMath.INTEGER_BIAS_BITS)
                    .viewAsFloatingLanes()
                    .sub(LaneMath.INTEGER_BIAS);
            reduced.blend(x, special).intoArray(a, i);
            y.intoArray(a, room + i);
            x.intoArray(a, 2 * room + i);
        }
        Ln.apply(a, n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector ln = DoubleVector.fromArray(D, a, i);
            DoubleVector y = DoubleVector.fromArray(D, a, room + i);
            DoubleVector x = DoubleVector.fromArray(D, a, 2 * room + i);
            LongVector ahx = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> special = x.test(IS_NEGATIVE)
                    .or(x.compare(EQ, 0.0))
                    .or(ahx.compare(GE, 0x7ff0_0000L).cast(D));
            DoubleVector z = y.mul(LOG10_2LO).add(ln.mul(IVLN10));
            z.add(y.mul(LOG10_2HI)).blend(ln, special).intoArray(a, i);
        }
    }
}
