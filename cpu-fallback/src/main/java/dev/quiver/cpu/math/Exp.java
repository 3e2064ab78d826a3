package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_NAN;
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
 * {@code exp(x)}, bit for bit as {@link StrictMath#exp}: fdlibm's {@code e_exp.c} in lanes. With
 * {@code x = k ln2 + r}, {@code |r| <= ln2 / 2}, {@code exp(r)} is a rational approximation and
 * {@code 2^k} goes into the exponent; each lane's reduction (none, {@code k = ±1}, or {@code k}
 * truncated from {@code x / ln2 ± 1/2}) and its special case (NaN, ±Infinity, overflow,
 * underflow, tiny {@code x}) are computed for all lanes and blended.
 */
public final class Exp {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final double HUGE = 1.0e+300;
    private static final double TWO_M1000 = 0x1.0p-1000;
    private static final double O_THRESHOLD = 0x1.62e42fefa39efp9;
    private static final double U_THRESHOLD = -0x1.74910d52d3051p9;
    private static final double LN2_HI = 0x1.62e42feep-1;
    private static final double LN2_LO = 0x1.a39ef35793c76p-33;
    private static final double INV_LN2 = 0x1.71547652b82fep0;
    private static final double P1 = 0x1.555555555553ep-3;
    private static final double P2 = -0x1.6c16c16bebd93p-9;
    private static final double P3 = 0x1.1566aaf25de2cp-14;
    private static final double P4 = -0x1.bbd41c5d26bf1p-20;
    private static final double P5 = 0x1.6376972bea4d0p-25;

    private Exp() {}

    /** Replaces {@code x[0..n)} by {@code exp(x)} of each ({@link LaneMath}). */
    public static void apply(double[] in, int n) {
        apply(in, 0, n);
    }

    /** Replaces {@code a[from..from+n)} by {@code exp(x)} of each; {@code a} holds {@code from + LaneMath.room(n)} values. */
    static void apply(double[] in, int from, int n) {
        for (int i = from; i < from + n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, in, i);
            LongVector ahx = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL); // high word of |x|
            VectorMask<Double> negative = x.test(IS_NEGATIVE);

            // Reduction: k = ±1 for 0.5 ln2 < |x| < 1.5 ln2, else k = (int) (x / ln2 ± 1/2); none below.
            VectorMask<Double> reduced = ahx.compare(GT, 0x3fd6_2e42L).cast(D);
            VectorMask<Double> near = ahx.compare(LT, 0x3FF0_A2B2L).cast(D);
            DoubleVector v = x.mul(INV_LN2).add(DoubleVector.broadcast(D, 0.5).blend(-0.5, negative));
            DoubleVector va = v.abs();
            DoubleVector vr = va.add(LaneMath.TWO52).sub(LaneMath.TWO52);
            DoubleVector t = vr.sub(1.0, vr.compare(GT, va)).lanewise(NEG, negative); // (int) v, exactly
            DoubleVector sign = DoubleVector.broadcast(D, 1.0).blend(-1.0, negative);
            DoubleVector k = t.blend(sign, near).blend(0.0, reduced.not());
            // Unreduced lanes: hi = x, lo = 0 (below, fdlibm's 1 - ((x*c)/(c-2) - x) is this formula's value, exactly).
            DoubleVector hi =
                    x.sub(t.mul(LN2_HI)).blend(x.sub(sign.mul(LN2_HI)), near).blend(x, reduced.not());
            DoubleVector lo = t.mul(LN2_LO).blend(sign.mul(LN2_LO), near).blend(0.0, reduced.not());
            DoubleVector r = hi.sub(lo);

            DoubleVector rr = r.mul(r);
            DoubleVector c = r.sub(rr.mul(rr.mul(
                            rr.mul(rr.mul(rr.mul(P5).add(P4)).add(P3)).add(P2))
                    .add(P1)));
            DoubleVector y = DoubleVector.broadcast(D, 1.0)
                    .sub(lo.sub(r.mul(c).div(DoubleVector.broadcast(D, 2.0).sub(c)))
                            .sub(hi));
            // 2^k into the exponent: k as a long from the low bits of k + 1.5 * 2^52, added at bit 52.
            LongVector kl = k.add(LaneMath.INTEGER_BIAS)
                    .viewAsIntegralLanes()
                    .and(LaneMath.LOW52)
                    .sub(1L << 51);
            LongVector yBits = y.viewAsIntegralLanes();
            // Below 2^-1021: 2^(k + 1000) first, then 2^-1000, rounding once. Elsewhere 2^0 (a subnormal from a lane
            // that does not use it would only cost time: arithmetic on subnormals is slow).
            VectorMask<Double> deep = k.compare(LT, -1021.0);
            LongVector deepK = kl.add(1000).blend(0L, deep.not().cast(L));
            DoubleVector scaled = yBits.add(kl.lanewise(LSHL, 52))
                    .viewAsFloatingLanes()
                    .blend(
                            yBits.add(deepK.lanewise(LSHL, 52))
                                    .viewAsFloatingLanes()
                                    .mul(TWO_M1000),
                            deep);
            DoubleVector result = scaled.blend(y, k.compare(EQ, 0.0));

            // |x| < 2^-28: 1 + x.
            result = result.blend(x.add(1.0), ahx.compare(LT, 0x3e30_0000L).cast(D));
            // |x| >= 709.78...: overflow, underflow, ±Infinity, NaN.
            VectorMask<Double> big = ahx.compare(GE, 0x4086_2E42L).cast(D);
            result = result.blend(HUGE * HUGE, big.and(x.compare(GT, O_THRESHOLD)));
            result = result.blend(TWO_M1000 * TWO_M1000, big.and(x.compare(LT, U_THRESHOLD)));
            result = result.blend(
                    x.blend(0.0, negative), ahx.compare(GE, 0x7ff0_0000L).cast(D));
            result.blend(x.add(x), x.test(IS_NAN)).intoArray(in, i);
        }
    }
}
