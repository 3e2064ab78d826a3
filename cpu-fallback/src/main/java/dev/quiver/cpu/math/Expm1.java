package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_NAN;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.NEG;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code exp(x) - 1}, bit for bit as {@link StrictMath#expm1}: fdlibm's {@code s_expm1.c} in
 * lanes. {@code x = k ln2 + r} as for {@link Exp} (with the correction {@code c} of the rounded
 * reduction), a rational approximation of {@code expm1(r)}, and {@code 2^k (1 + expm1(r)) - 1}
 * assembled in one of fdlibm's six ways by {@code k}, each computed for every lane and blended, as
 * are the special cases (NaN, ±Infinity, overflow, below {@code -56 ln2}, tiny {@code x}).
 */
public final class Expm1 {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final double HUGE = 1.0e+300;
    private static final double TINY = 1.0e-300;
    private static final double O_THRESHOLD = 0x1.62e42fefa39efp9;
    private static final double LN2_HI = 0x1.62e42feep-1;
    private static final double LN2_LO = 0x1.a39ef35793c76p-33;
    private static final double INV_LN2 = 0x1.71547652b82fep0;
    private static final double Q1 = -0x1.11111111110f4p-5;
    private static final double Q2 = 0x1.a01a019fe5585p-10;
    private static final double Q3 = -0x1.4ce199eaadbb7p-14;
    private static final double Q4 = 0x1.0cfca86e65239p-18;
    private static final double Q5 = -0x1.afdb76e09c32dp-23;

    private Expm1() {}

    /** Replaces {@code x[0..n)} by {@code exp(x) - 1} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        apply(a, 0, n);
    }

    /** Replaces {@code a[from..from+n)} by {@code exp(x) - 1} of each; {@code a} holds {@code from + LaneMath.room(n)} values. */
    static void apply(double[] a, int from, int n) {
        for (int i = from; i < from + n; i += D.length()) {
            DoubleVector x0 = DoubleVector.fromArray(D, a, i);
            LongVector ahx = x0.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> negative = x0.test(IS_NEGATIVE);

            // Reduction, as exp's, with c the error of rounding hi - lo.
            VectorMask<Double> reduced = ahx.compare(GT, 0x3fd6_2e42L).cast(D);
            VectorMask<Double> near = ahx.compare(LT, 0x3FF0_A2B2L).cast(D);
            DoubleVector v = x0.mul(INV_LN2).add(DoubleVector.broadcast(D, 0.5).blend(-0.5, negative));
            DoubleVector va = v.abs();
            DoubleVector vr = va.add(LaneMath.TWO52).sub(LaneMath.TWO52);
            DoubleVector t = vr.sub(1.0, vr.compare(GT, va)).lanewise(NEG, negative); // (int) v, exactly
            DoubleVector sign = DoubleVector.broadcast(D, 1.0).blend(-1.0, negative);
            DoubleVector k = t.blend(sign, near).blend(0.0, reduced.not());
            DoubleVector hi = x0.sub(t.mul(LN2_HI)).blend(x0.sub(sign.mul(LN2_HI)), near);
            DoubleVector lo = t.mul(LN2_LO).blend(sign.mul(LN2_LO), near);
            DoubleVector x = hi.sub(lo).blend(x0, reduced.not());
            DoubleVector c = hi.sub(x).sub(lo).blend(0.0, reduced.not());

            DoubleVector hfx = x.mul(0.5);
            DoubleVector hxs = x.mul(hfx);
            DoubleVector r1 = hxs.mul(hxs.mul(
                                    hxs.mul(hxs.mul(hxs.mul(Q5).add(Q4)).add(Q3))
                                            .add(Q2))
                            .add(Q1))
                    .add(1.0);
            DoubleVector tt = DoubleVector.broadcast(D, 3.0).sub(r1.mul(hfx));
            DoubleVector e =
                    hxs.mul(r1.sub(tt).div(DoubleVector.broadcast(D, 6.0).sub(x.mul(tt))));
            DoubleVector unreduced = x.sub(x.mul(e).sub(hxs)); // k == 0

            e = x.mul(e.sub(c)).sub(c).sub(hxs);
            DoubleVector minusOne = x.sub(e).mul(0.5).sub(0.5); // k == -1
            DoubleVector plusOne = DoubleVector.broadcast(D, 1.0)
                    .add(x.sub(e).mul(2.0))
                    .blend(e.sub(x.add(0.5)).mul(-2.0), x.compare(LT, -0.25)); // k == 1
            LongVector kl = k.add(LaneMath.INTEGER_BIAS)
                    .viewAsIntegralLanes()
                    .and(LaneMath.LOW52)
                    .sub(1L << 51);
            LongVector exponent = kl.lanewise(LSHL, 52);
            // k <= -2 or k > 56: 2^k (1 - (e - x)) - 1.
            DoubleVector far = DoubleVector.broadcast(D, 1.0)
                    .sub(e.sub(x))
                    .viewAsIntegralLanes()
                    .add(exponent)
                    .viewAsFloatingLanes()
                    .sub(1.0);
            // 2 <= k < 20: 2^k ((1 - 2^-k) - (e - x)).
            DoubleVector oneLess = LongVector.broadcast(L, 0x3ff0_0000L)
                    .sub(LongVector.broadcast(L, 0x20_0000L).lanewise(LSHR, kl))
                    .lanewise(LSHL, 32)
                    .viewAsFloatingLanes();
            DoubleVector lowK =
                    oneLess.sub(e.sub(x)).viewAsIntegralLanes().add(exponent).viewAsFloatingLanes();
            // 20 <= k <= 56: 2^k ((x - (e + 2^-k)) + 1).
            DoubleVector inverse =
                    LongVector.broadcast(L, 0x3ffL).sub(kl).lanewise(LSHL, 52).viewAsFloatingLanes();
            DoubleVector highK = x.sub(e.add(inverse))
                    .add(1.0)
                    .viewAsIntegralLanes()
                    .add(exponent)
                    .viewAsFloatingLanes();

            DoubleVector result = highK.blend(lowK, k.compare(LT, 20.0))
                    .blend(far, k.compare(LE, -2.0).or(k.compare(GT, 56.0)))
                    .blend(plusOne, k.compare(EQ, 1.0))
                    .blend(minusOne, k.compare(EQ, -1.0))
                    .blend(unreduced, k.compare(EQ, 0.0));

            // |x| < 2^-54: x itself (fdlibm's way).
            DoubleVector huge = DoubleVector.broadcast(D, HUGE).add(x0);
            result = result.blend(
                    x0.sub(huge.sub(DoubleVector.broadcast(D, HUGE).add(x0))),
                    ahx.compare(LT, 0x3c90_0000L).cast(D));
            // |x| >= 56 ln2: -1 below, overflow above 709.78..., ±Infinity, NaN.
            VectorMask<Double> large = ahx.compare(GE, 0x4043_687AL).cast(D);
            result = result.blend(TINY - 1.0, large.and(negative));
            result = result.blend(HUGE * HUGE, large.and(x0.compare(GT, O_THRESHOLD)));
            result = result.blend(
                    x0.blend(-1.0, negative), ahx.compare(GE, 0x7ff0_0000L).cast(D));
            result.blend(x0.add(x0), x0.test(IS_NAN)).intoArray(a, i);
        }
    }
}
