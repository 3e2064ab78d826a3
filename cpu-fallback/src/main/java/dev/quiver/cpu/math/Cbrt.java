package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_FINITE;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.NEG;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * The cube root, bit for bit as {@link StrictMath#cbrt}: fdlibm's {@code s_cbrt.c} in lanes. A
 * first guess from the exponent (its high word divided by 3, exactly, in doubles), a rational
 * step to 23 bits, and one Newton step on the guess chopped to 20 bits; the sign put back; zeros,
 * infinities and NaN are themselves.
 */
public final class Cbrt {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final long B1 = 715094163;
    private static final long B2 = 696219795;
    private static final double C = 0x1.15f15f15f15f1p-1;
    private static final double DD = -0x1.691de2532c834p-1;
    private static final double E = 0x1.6a0ea0ea0ea0fp0;
    private static final double F = 0x1.9b6db6db6db6ep0;
    private static final double G = 0x1.6db6db6db6db7p-2;

    private Cbrt() {}

    /** Replaces {@code x[0..n)} by {@code cbrt(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x0 = DoubleVector.fromArray(D, a, i);
            DoubleVector x = x0.abs();
            VectorMask<Double> subnormal = x.compare(LT, 0x1.0p-1022);
            // The guess: the high word of x (of 2^54 x for a subnormal, whose low word the guess keeps) / 3 + B.
            DoubleVector base = DoubleVector.zero(D).blend(x.mul(0x1.0p54), subnormal);
            LongVector hx = x.viewAsIntegralLanes()
                    .blend(base.viewAsIntegralLanes(), subnormal.cast(L))
                    .lanewise(LSHR, 32);
            DoubleVector third = hx.add(LaneMath.INTEGER_BIAS_BITS)
                    .viewAsFloatingLanes()
                    .sub(LaneMath.INTEGER_BIAS)
                    .div(3.0);
            DoubleVector rounded = third.add(LaneMath.TWO52).sub(LaneMath.TWO52);
            rounded = rounded.sub(1.0, rounded.compare(GT, third)); // hx / 3, exactly
            LongVector quotient = rounded.add(LaneMath.INTEGER_BIAS)
                    .viewAsIntegralLanes()
                    .and(LaneMath.LOW52)
                    .sub(1L << 51);
            LongVector high = quotient.add(LongVector.broadcast(L, B1).blend(B2, subnormal.cast(L)));
            DoubleVector t = base.viewAsIntegralLanes()
                    .and(0xFFFF_FFFFL)
                    .or(high.lanewise(LSHL, 32))
                    .viewAsFloatingLanes();

            DoubleVector r = t.mul(t).div(x);
            DoubleVector s = r.mul(t).add(C);
            t = t.mul(DoubleVector.broadcast(D, F)
                    .div(s.add(E).add(DoubleVector.broadcast(D, DD).div(s)))
                    .add(G));
            // Chopped to 20 bits, one unit up in the high word.
            t = t.viewAsIntegralLanes()
                    .and(0xFFFF_FFFF_0000_0000L)
                    .add(1L << 32)
                    .viewAsFloatingLanes();
            s = t.mul(t);
            r = x.div(s);
            DoubleVector w = t.add(t);
            r = r.sub(t).div(w.add(r));
            t = t.add(t.mul(r));
            DoubleVector result = t.lanewise(NEG, x0.test(IS_NEGATIVE));
            result.blend(x0, x0.compare(EQ, 0.0).or(x0.test(IS_FINITE).not())).intoArray(a, i);
        }
    }
}
