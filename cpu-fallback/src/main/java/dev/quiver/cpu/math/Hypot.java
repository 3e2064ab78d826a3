package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_FINITE;
import static jdk.incubator.vector.VectorOperators.IS_INFINITE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code sqrt(y^2 + x^2)} without undue overflow or underflow, bit for bit as
 * {@link StrictMath#hypot} (a NaN result is the canonical NaN): fdlibm's {@code e_hypot.c} in
 * lanes. With {@code a >= b} the magnitudes, scaled by 2<sup>∓600</sup> (or 2<sup>1022</sup> for a
 * subnormal {@code b}) into the middle of the range, the sum of squares is formed from 21-bit
 * heads and their tails so its rounding error stays below an ulp; {@code a + b} where
 * {@code a / b > 2^60}, Infinity where either is infinite (even with a NaN).
 */
public final class Hypot {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;

    private Hypot() {}

    /** Replaces {@code y[0..n)} by {@code hypot(y, x)} of each pair ({@link LaneMath}). */
    public static void apply(double[] ys, double[] xs, int n) {
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, xs, i);
            DoubleVector y = DoubleVector.fromArray(D, ys, i);
            DoubleVector a0 = y.abs();
            DoubleVector b0 = x.abs();
            VectorMask<Double> swap = b0.compare(GT, a0);
            DoubleVector a = a0.blend(b0, swap);
            DoubleVector b = b0.blend(a0, swap);
            LongVector ha = a.viewAsIntegralLanes().lanewise(LSHR, 32);
            LongVector hb = b.viewAsIntegralLanes().lanewise(LSHR, 32);
            VectorMask<Double> apart = ha.sub(hb).compare(GT, 0x3c0_0000L).cast(D); // a / b > 2^60
            DoubleVector sum = a.add(b);
            DoubleVector larger = a;
            VectorMask<Double> zero = b.compare(EQ, 0.0);

            // Scaling: 2^-600 above ~2^500; below 2^-500, 2^600 (fdlibm shifts the high words with it) or, for a
            // subnormal b, 2^1022 (it does not).
            VectorMask<Double> big = a.compare(GT, 0x1.00000_ffff_ffffp500);
            a = a.mul(0x1.0p-600, big);
            b = b.mul(0x1.0p-600, big);
            LongVector shift = LongVector.zero(L).blend(-0x2580_0000L, big.cast(L));
            DoubleVector scale = DoubleVector.broadcast(D, 1.0).blend(0x1.0p600, big);
            VectorMask<Double> small = b.compare(LT, 0x1.0p-500);
            VectorMask<Double> subnormal = small.and(b.compare(LT, Double.MIN_NORMAL));
            VectorMask<Double> tiny = small.andNot(subnormal);
            a = a.mul(0x1.0p1022, subnormal).mul(0x1.0p600, tiny);
            b = b.mul(0x1.0p1022, subnormal).mul(0x1.0p600, tiny);
            shift = shift.blend(0x2580_0000L, tiny.cast(L));
            scale = scale.blend(0x1.0p-1022, subnormal).blend(0x1.0p-600, tiny);
            ha = ha.add(shift);
            hb = hb.add(shift);

            DoubleVector w = a.sub(b);
            DoubleVector t1 = ha.lanewise(LSHL, 32).viewAsFloatingLanes();
            DoubleVector t2 = a.sub(t1);
            DoubleVector apartish =
                    t1.mul(t1).sub(b.mul(b.neg()).sub(t2.mul(a.add(t1)))).sqrt(); // w > b
            DoubleVector a2 = a.add(a);
            DoubleVector y1 = hb.lanewise(LSHL, 32).viewAsFloatingLanes();
            DoubleVector y2 = b.sub(y1);
            DoubleVector u1 = ha.add(0x0010_0000L).lanewise(LSHL, 32).viewAsFloatingLanes();
            DoubleVector u2 = a2.sub(u1);
            DoubleVector close = u1.mul(y1)
                    .sub(w.mul(w.neg()).sub(u1.mul(y2).add(u2.mul(b))))
                    .sqrt();
            DoubleVector result = close.blend(apartish, w.compare(GT, b));
            result = result.mul(scale, big.or(small));

            result = result.blend(larger, zero);
            result = result.blend(sum, apart);
            VectorMask<Double> special =
                    a0.test(IS_FINITE).and(b0.test(IS_FINITE)).not();
            DoubleVector infinite = DoubleVector.broadcast(D, Double.NaN)
                    .blend(Double.POSITIVE_INFINITY, a0.test(IS_INFINITE).or(b0.test(IS_INFINITE)));
            result.blend(infinite, special).intoArray(ys, i);
        }
    }
}
