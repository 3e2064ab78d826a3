package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code ln(1 + x)}, bit for bit as {@link StrictMath#log1p}: fdlibm's {@code s_log1p.c} in lanes.
 * {@code 1 + x = 2^k (1 + f)} with the rounding error of {@code 1 + x} kept as a correction
 * ({@code k = 0}, {@code f = x} where fdlibm takes {@code x} itself), then {@link Ln}'s
 * approximation of {@code ln(1 + f)}; every lane's path (by {@code x}, and {@code |f| < 2^-20})
 * and the special cases (-1, below -1, tiny {@code x}, +Infinity, NaN) computed and blended.
 */
public final class Log1p {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final double TWO54 = 0x1.0p54;
    private static final double LN2_HI = 0x1.62e42feep-1;
    private static final double LN2_LO = 0x1.a39ef35793c76p-33;
    private static final double LP1 = 0x1.5555555555593p-1;
    private static final double LP2 = 0x1.999999997fa04p-2;
    private static final double LP3 = 0x1.2492494229359p-2;
    private static final double LP4 = 0x1.c71c51d8e78afp-3;
    private static final double LP5 = 0x1.7466496cb03dep-3;
    private static final double LP6 = 0x1.39a09d078c69fp-3;
    private static final double LP7 = 0x1.2f112df3e5244p-3;

    private Log1p() {}

    /** Replaces {@code x[0..n)} by {@code ln(1 + x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            LongVector ax = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> negative = x.test(IS_NEGATIVE);
            // fdlibm's k = 0, f = x: -0.2929 < x < 0.41422 (x's high word in (0xbfd2bec3, 0x3FDA827A) as a signed int).
            VectorMask<Double> direct = negative.not()
                    .and(ax.compare(GT, 0L).cast(D))
                    .and(ax.compare(LT, 0x3FDA_827AL).cast(D))
                    .or(negative.and(ax.compare(LE, 0x3fd2_bec3L).cast(D)));

            // 1 + x = 2^k u, u normalized into [sqrt(2)/2, sqrt(2)), c the rounding error of 1 + x (relative to u).
            VectorMask<Double> sum = x.compare(LT, 0x1.0p53);
            DoubleVector u = x.add(1.0).blend(x, sum.not());
            LongVector uBits = u.viewAsIntegralLanes();
            LongVector hu = uBits.lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            LongVector k = hu.lanewise(LSHR, 20).sub(1023);
            VectorMask<Double> kPositive = k.compare(GT, 0L).cast(D);
            DoubleVector c = DoubleVector.broadcast(D, 1.0)
                    .sub(u.sub(x))
                    .blend(x.sub(u.sub(1.0)), kPositive.not())
                    .div(u)
                    .blend(0.0, sum.not());
            hu = hu.and(0x000f_ffffL);
            VectorMask<Long> halve = hu.compare(GE, 0x6_a09eL);
            k = k.add(LongVector.zero(L).blend(1L, halve));
            DoubleVector un = uBits.and(0xFFFF_FFFFL)
                    .or(hu.or(LongVector.broadcast(L, 0x3ff0_0000L).blend(0x3fe0_0000L, halve))
                            .lanewise(LSHL, 32))
                    .viewAsFloatingLanes();
            hu = hu.blend(LongVector.broadcast(L, 0x0010_0000L).sub(hu).lanewise(LSHR, 2), halve);
            DoubleVector f = un.sub(1.0).blend(x, direct);
            c = c.blend(0.0, direct);
            k = k.blend(0L, direct.cast(L));
            hu = hu.blend(1L, direct.cast(L));
            DoubleVector dk =
                    k.add(LaneMath.INTEGER_BIAS_BITS).viewAsFloatingLanes().sub(LaneMath.INTEGER_BIAS);
            VectorMask<Double> kZero = k.compare(EQ, 0L).cast(D);

            DoubleVector hfsq = f.mul(0.5).mul(f);
            // |f| < 2^-20 (hu == 0).
            DoubleVector rTiny = hfsq.mul(DoubleVector.broadcast(D, 1.0).sub(f.mul(0.66666666666666666)));
            DoubleVector tiny = dk.mul(LN2_HI)
                    .sub(rTiny.sub(dk.mul(LN2_LO).add(c)).sub(f))
                    .blend(f.sub(rTiny), kZero)
                    .blend(dk.mul(LN2_HI).add(c.add(dk.mul(LN2_LO))).blend(0.0, kZero), f.compare(EQ, 0.0));
            DoubleVector s = f.div(f.add(2.0));
            DoubleVector z = s.mul(s);
            DoubleVector r =
                    z.mul(z.mul(z.mul(z.mul(z.mul(z.mul(z.mul(LP7).add(LP6)).add(LP5))
                                                    .add(LP4))
                                            .add(LP3))
                                    .add(LP2))
                            .add(LP1));
            DoubleVector sR = s.mul(hfsq.add(r));
            DoubleVector result = dk.mul(LN2_HI)
                    .sub(hfsq.sub(sR.add(dk.mul(LN2_LO).add(c))).sub(f))
                    .blend(f.sub(hfsq.sub(sR)), kZero)
                    .blend(tiny, hu.compare(EQ, 0L).cast(D));

            // |x| < 2^-29: x below 2^-54, else x - x^2/2.
            VectorMask<Double> small = ax.compare(LT, 0x3e20_0000L).cast(D);
            VectorMask<Double> tinyX = x.add(TWO54)
                    .compare(GT, 0.0)
                    .and(ax.compare(LT, 0x3c90_0000L).cast(D));
            result = result.blend(x.sub(x.mul(x).mul(0.5)).blend(x, tinyX), small);
            // x <= -1: -Infinity at -1, NaN below (and for -Infinity, negative NaNs); +Infinity, NaN themselves.
            result = result.blend(
                    x.add(x), negative.not().and(ax.compare(GE, 0x7ff0_0000L).cast(D)));
            VectorMask<Double> atMost =
                    negative.and(ax.compare(GE, 0x3ff0_0000L).cast(D));
            result = result.blend(
                    DoubleVector.broadcast(D, Double.NaN).blend(Double.NEGATIVE_INFINITY, x.compare(EQ, -1.0)), atMost);
            result.intoArray(a, i);
        }
    }
}
