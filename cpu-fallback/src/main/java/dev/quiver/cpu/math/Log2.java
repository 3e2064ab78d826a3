package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.FMA;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_INFINITE;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * Base-2 logarithm, bit for bit as the reference ({@code RowInterpreter.log2}): {@code x = m 2^e}
 * with {@code m} in {@code [sqrt(1/2), sqrt(2))} (a subnormal scaled by 2<sup>54</sup> first),
 * then {@code e + ln(m) / ln 2} with {@code 1 / ln 2} as two doubles and both steps fused, so
 * powers of two are exact. {@code ln(m)} is {@link Ln}'s, run on the significands kept in the
 * working space; NaN, zeros, negative numbers and +Infinity go through {@link Ln} unchanged, as
 * the reference gives {@code StrictMath.log(x)} for them.
 */
public final class Log2 {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double INV_LN2_HI = 1.4426950408889634;
    private static final double INV_LN2_LO = 2.0355273740931033e-17;
    private static final double SQRT2 = 1.4142135623730951;
    private static final double TWO54 = 0x1.0p54;

    private Log2() {}

    /** Replaces {@code x[0..n)} by {@code log2(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        int room = LaneMath.room(n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            VectorMask<Double> special = x.compare(GT, 0.0).not().or(x.test(IS_INFINITE));
            VectorMask<Double> subnormal = x.compare(LT, Double.MIN_NORMAL);
            LongVector bits = x.mul(TWO54, subnormal).viewAsIntegralLanes();
            DoubleVector m =
                    bits.and((1L << 52) - 1).or(Double.doubleToRawLongBits(1.0)).viewAsFloatingLanes(); // [1, 2)
            // The exponent field, exactly: the double 2^52 + field, less 2^52 + 1023 (and 54 for a subnormal).
            DoubleVector e = bits.lanewise(LSHR, 52)
                    .and(0x7FFL)
                    .or(Double.doubleToRawLongBits(LaneMath.TWO52))
                    .viewAsFloatingLanes()
                    .sub(LaneMath.TWO52 + 1023)
                    .sub(54.0, subnormal);
            VectorMask<Double> high = m.compare(GT, SQRT2);
            m.mul(0.5, high).blend(x, special).intoArray(a, i);
            e.add(1.0, high).intoArray(a, room + i);
            x.intoArray(a, 2 * room + i);
        }
        Ln.apply(a, n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector lnM = DoubleVector.fromArray(D, a, i);
            DoubleVector e = DoubleVector.fromArray(D, a, room + i);
            DoubleVector x = DoubleVector.fromArray(D, a, 2 * room + i);
            VectorMask<Double> special = x.compare(GT, 0.0).not().or(x.test(IS_INFINITE));
            // m == 1 has ln(m) == 0, and then the sum is e exactly.
            lnM.lanewise(FMA, INV_LN2_HI, lnM.lanewise(FMA, INV_LN2_LO, e))
                    .blend(lnM, special)
                    .intoArray(a, i);
        }
    }
}
