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
import static jdk.incubator.vector.VectorOperators.NE;
import static jdk.incubator.vector.VectorOperators.NEG;
import static jdk.incubator.vector.VectorOperators.XOR;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code pow(x, y)} (the base first), bit for bit as {@link StrictMath#pow} (a NaN result is the
 * canonical NaN): fdlibm's {@code e_pow.c}, as the JDK's {@code FdLibm.Pow} writes it, in lanes.
 * {@code log2(|x|)} in about 70 bits (a 53-bit head and its tail: from {@code (x - 1)/(x + 1)} or
 * {@code (x - 1.5)/(x + 1.5)} and a polynomial, or near 1 from {@code x - 1} where {@code |y|} is
 * huge), times {@code y} split likewise, then {@code 2^z} as {@link Exp} does, with the integer part
 * of {@code z} added to the exponent (a subnormal result rounded once). Every lane's path and
 * fdlibm's special cases, in its order: {@code y = 0}, NaN, {@code y} = 2, 1/2, ±1, ±Infinity;
 * {@code x} = ±0, ±1, ±Infinity; a negative {@code x} with an integer or other {@code y};
 * overflow and underflow.
 */
public final class Pow {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final long HIGH_WORD = 0xFFFF_FFFF_0000_0000L;

    private static final double INV_LN2 = 0x1.7154_7652_b82fep0;
    private static final double INV_LN2_H = 0x1.715476p0;
    private static final double INV_LN2_L = 0x1.4ae0_bf85_ddf44p-26;
    private static final double CP = 0x1.ec70_9dc3_a03fdp-1;
    private static final double CP_H = 0x1.ec709ep-1;
    private static final double CP_L = -0x1.e2fe_0145_b01f5p-28;
    private static final double DP_H1 = 0x1.2b80_34p-1;
    private static final double DP_L1 = 0x1.cfde_b43c_fd006p-27;
    private static final double L1 = 0x1.3333_3333_33303p-1;
    private static final double L2 = 0x1.b6db_6db6_fabffp-2;
    private static final double L3 = 0x1.5555_5518_f264dp-2;
    private static final double L4 = 0x1.1746_0a91_d4101p-2;
    private static final double L5 = 0x1.d864_a93c_9db65p-3;
    private static final double L6 = 0x1.a7e2_84a4_54eefp-3;
    private static final double OVT = 8.0085662595372944372e-0017;
    private static final double P1 = 0x1.5555_5555_5553ep-3;
    private static final double P2 = -0x1.6c16_c16b_ebd93p-9;
    private static final double P3 = 0x1.1566_aaf2_5de2cp-14;
    private static final double P4 = -0x1.bbd4_1c5d_26bf1p-20;
    private static final double P5 = 0x1.6376_972b_ea4d0p-25;
    private static final double LG2 = 0x1.62e4_2fef_a39efp-1;
    private static final double LG2_H = 0x1.62e43p-1;
    private static final double LG2_L = -0x1.05c6_10ca_86c39p-29;

    private Pow() {}

    /** Replaces {@code x[0..n)} by {@code pow(x, y)} of each pair ({@link LaneMath}). */
    public static void apply(double[] xs, double[] ys, int n) {
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, xs, i);
            DoubleVector y = DoubleVector.fromArray(D, ys, i);
            DoubleVector yAbs = y.abs();
            DoubleVector xAbs0 = x.abs();
            VectorMask<Double> xNegative = x.test(IS_NEGATIVE);
            LongVector ix0 = xAbs0.viewAsIntegralLanes().lanewise(LSHR, 32);

            // y an integer, odd or even (fdlibm's y_is_int, for a negative x only: 0 otherwise).
            DoubleVector half = yAbs.mul(0.5);
            DoubleVector halfRounded = half.add(LaneMath.TWO52).sub(LaneMath.TWO52);
            DoubleVector yRounded = yAbs.add(LaneMath.TWO52).sub(LaneMath.TWO52);
            VectorMask<Double> integer = yAbs.compare(GE, 0x1.0p53)
                    .or(yAbs.compare(GE, 1.0).and(yRounded.compare(EQ, yAbs).or(yAbs.compare(GE, 0x1.0p52))));
            VectorMask<Double> odd = integer.and(yAbs.compare(LT, 0x1.0p53)).and(halfRounded.compare(NE, half));
            VectorMask<Double> oddNegative = xNegative.and(odd);
            DoubleVector s = DoubleVector.broadcast(D, 1.0).blend(-1.0, oddNegative);

            // log2(|x|) = t1 + t2, the normal way: |x| = 2^n (1 + f) reduced around 1 or 1.5.
            VectorMask<Double> subnormal = ix0.compare(LT, 0x0010_0000L).cast(D);
            DoubleVector xAbs = xAbs0.mul(0x1.0p53, subnormal);
            LongVector ix = xAbs.viewAsIntegralLanes().lanewise(LSHR, 32);
            LongVector nn =
                    ix.lanewise(LSHR, 20).sub(0x3ff).sub(LongVector.zero(L).blend(53L, subnormal.cast(L)));
            LongVector j = ix.and(0x000f_ffffL);
            ix = j.or(0x3ff0_0000L);
            VectorMask<Long> k1 = j.compare(GT, 0x3988EL).and(j.compare(LT, 0xBB67AL));
            VectorMask<Long> next = j.compare(GE, 0xBB67AL);
            nn = nn.add(LongVector.zero(L).blend(1L, next));
            ix = ix.sub(LongVector.zero(L).blend(0x0010_0000L, next));
            xAbs = xAbs.viewAsIntegralLanes()
                    .and(0xFFFF_FFFFL)
                    .or(ix.lanewise(LSHL, 32))
                    .viewAsFloatingLanes();
            VectorMask<Double> k1d = k1.cast(D);
            DoubleVector bp = DoubleVector.broadcast(D, 1.0).blend(1.5, k1d);
            DoubleVector dpH = DoubleVector.zero(D).blend(DP_H1, k1d);
            DoubleVector dpL = DoubleVector.zero(D).blend(DP_L1, k1d);
            DoubleVector u = xAbs.sub(bp);
            DoubleVector v = DoubleVector.broadcast(D, 1.0).div(xAbs.add(bp));
            DoubleVector ss = u.mul(v);
            DoubleVector sH = ss.viewAsIntegralLanes().and(HIGH_WORD).viewAsFloatingLanes();
            LongVector tHigh = ix.lanewise(LSHR, 1)
                    .or(0x2000_0000L)
                    .add(0x0008_0000L)
                    .add(LongVector.zero(L).blend(1L << 18, k1));
            DoubleVector tH = tHigh.lanewise(LSHL, 32).viewAsFloatingLanes();
            DoubleVector tL = xAbs.sub(tH.sub(bp));
            DoubleVector sL = v.mul(u.sub(sH.mul(tH)).sub(sH.mul(tL)));
            DoubleVector s2 = ss.mul(ss);
            DoubleVector r = s2.mul(s2)
                    .mul(s2.mul(s2.mul(s2.mul(s2.mul(s2.mul(L6).add(L5)).add(L4))
                                            .add(L3))
                                    .add(L2))
                            .add(L1));
            r = r.add(sL.mul(sH.add(ss)));
            s2 = sH.mul(sH);
            tH = DoubleVector.broadcast(D, 3.0)
                    .add(s2)
                    .add(r)
                    .viewAsIntegralLanes()
                    .and(HIGH_WORD)
                    .viewAsFloatingLanes();
            tL = r.sub(tH.sub(3.0).sub(s2));
            u = sH.mul(tH);
            v = sL.mul(tH).add(tL.mul(ss));
            DoubleVector pH = u.add(v).viewAsIntegralLanes().and(HIGH_WORD).viewAsFloatingLanes();
            DoubleVector pL = v.sub(pH.sub(u));
            DoubleVector zH = pH.mul(CP_H);
            DoubleVector zL = pH.mul(CP_L).add(pL.mul(CP)).add(dpL);
            DoubleVector t =
                    nn.add(LaneMath.INTEGER_BIAS_BITS).viewAsFloatingLanes().sub(LaneMath.INTEGER_BIAS);
            DoubleVector t1 = zH.add(zL)
                    .add(dpH)
                    .add(t)
                    .viewAsIntegralLanes()
                    .and(HIGH_WORD)
                    .viewAsFloatingLanes();
            DoubleVector t2 = zL.sub(t1.sub(t).sub(dpH).sub(zH));

            // |y| > ~2^31 and |x| near 1: log2(|x|) from t = |x| - 1 directly.
            VectorMask<Double> hugeY = yAbs.compare(GT, 0x1.00000_ffff_ffffp31);
            DoubleVector tt = xAbs0.sub(1.0);
            DoubleVector w = tt.mul(tt)
                    .mul(DoubleVector.broadcast(D, 0.5)
                            .sub(tt.mul(DoubleVector.broadcast(D, 0.3333333333333333333333)
                                    .sub(tt.mul(0.25)))));
            DoubleVector hu = tt.mul(INV_LN2_H);
            DoubleVector hv = tt.mul(INV_LN2_L).sub(w.mul(INV_LN2));
            DoubleVector ht1 = hu.add(hv).viewAsIntegralLanes().and(HIGH_WORD).viewAsFloatingLanes();
            DoubleVector ht2 = hv.sub(ht1.sub(hu));
            t1 = t1.blend(ht1, hugeY);
            t2 = t2.blend(ht2, hugeY);

            // y log2(|x|), split: y = y1 + (y - y1).
            DoubleVector y1 = y.viewAsIntegralLanes().and(HIGH_WORD).viewAsFloatingLanes();
            pL = y.sub(y1).mul(t1).add(y.mul(t2));
            pH = y1.mul(t1);
            DoubleVector z = pL.add(pH);
            LongVector zBits = z.viewAsIntegralLanes();
            LongVector zj = zBits.lanewise(LSHR, 32).lanewise(XOR, 0x8000_0000L).sub(0x8000_0000L); // signed
            VectorMask<Double> zNegative = z.test(IS_NEGATIVE);
            LongVector zAbsHi = zj.and(0x7FFF_FFFFL);
            VectorMask<Double> overflow = zj.compare(GE, 0x4090_0000L)
                    .cast(D)
                    .and(z.compare(NE, 1024.0).or(pL.add(OVT).compare(GT, z.sub(pH))));
            VectorMask<Double> underflow = zj.compare(LT, 0x4090_0000L)
                    .and(zAbsHi.compare(GE, 0x4090_cc00L))
                    .cast(D)
                    .and(z.compare(NE, -1075.0).or(pL.compare(LE, z.sub(pH))));

            // 2^z: z = m + r with m the nearest integer when |z| > 1/2, r reduced as exp reduces.
            LongVector kz = zAbsHi.lanewise(LSHR, 20).sub(0x3ff);
            VectorMask<Long> rounds = zAbsHi.compare(GT, 0x3fe0_0000L);
            LongVector m = zj.add(LongVector.broadcast(L, 0x0010_0000L)
                    .lanewise(LSHR, kz.add(1).and(63L)));
            LongVector km = m.and(0x7FFF_FFFFL).lanewise(LSHR, 20).sub(0x3ff).and(63L);
            DoubleVector integral = m.and(LongVector.broadcast(L, 0x000f_ffffL)
                            .lanewise(LSHR, km)
                            .not())
                    .and(0xFFFF_FFFFL)
                    .lanewise(LSHL, 32)
                    .viewAsFloatingLanes();
            m = m.and(0x000f_ffffL)
                    .or(0x0010_0000L)
                    .lanewise(LSHR, LongVector.broadcast(L, 20L).sub(km).and(63L));
            m = m.lanewise(NEG, zNegative.cast(L));
            m = m.blend(0L, rounds.not());
            pH = pH.sub(integral.blend(0.0, rounds.cast(D).not()));
            t = pL.add(pH).viewAsIntegralLanes().and(HIGH_WORD).viewAsFloatingLanes();
            u = t.mul(LG2_H);
            v = pL.sub(t.sub(pH)).mul(LG2).add(t.mul(LG2_L));
            z = u.add(v);
            w = v.sub(z.sub(u));
            t = z.mul(z);
            t1 = z.sub(t.mul(t.mul(t.mul(t.mul(t.mul(P5).add(P4)).add(P3)).add(P2))
                    .add(P1)));
            r = z.mul(t1).div(t1.sub(2.0)).sub(w.add(z.mul(w)));
            z = DoubleVector.broadcast(D, 1.0).sub(r.sub(z));
            LongVector zHigh = z.viewAsIntegralLanes().lanewise(LSHR, 32).add(m.lanewise(LSHL, 20));
            DoubleVector scaled =
                    z.viewAsIntegralLanes().add(m.lanewise(LSHL, 52)).viewAsFloatingLanes();
            // A subnormal result: z 2^m, rounded once (exact steps by 2^(m + 600), then 2^-600); 2^0 in the other lanes
            // (a subnormal there would only cost time).
            VectorMask<Double> tiny = zHigh.compare(LT, 0x0010_0000L).cast(D);
            LongVector tinyM = m.blend(0L, tiny.not().cast(L));
            DoubleVector subnormalResult = z.mul(
                            tinyM.add(600 + 1023).lanewise(LSHL, 52).viewAsFloatingLanes())
                    .mul(0x1.0p-600);
            DoubleVector result = scaled.blend(subnormalResult, tiny).mul(s);

            result = result.blend(s.mul(Double.POSITIVE_INFINITY), overflow);
            result = result.blend(s.mul(0.0), underflow);
            // |y| > ~2^31: over- or underflow unless |x| is near 1.
            VectorMask<Double> below = hugeY.and(xAbs0.compare(LT, 0x1.fffff_0000_0000p-1));
            VectorMask<Double> above = hugeY.and(xAbs0.compare(GT, 0x1.00000_ffff_ffffp0));
            DoubleVector infinity = s.mul(Double.POSITIVE_INFINITY);
            DoubleVector zero = s.mul(0.0);
            result = result.blend(zero.blend(infinity, y.compare(LT, 0.0)), below);
            result = result.blend(zero.blend(infinity, y.compare(GT, 0.0)), above);
            // A negative x with y not an integer: NaN.
            result = result.blend(Double.NaN, xNegative.andNot(integer));
            // x = ±0, ±Infinity, ±1.
            DoubleVector zx = xAbs0.blend(DoubleVector.broadcast(D, 1.0).div(xAbs0), y.compare(LT, 0.0));
            zx = zx.lanewise(NEG, oddNegative)
                    .blend(Double.NaN, xNegative.and(xAbs0.compare(EQ, 1.0)).andNot(integer));
            result = result.blend(
                    zx,
                    xAbs0.compare(EQ, 0.0)
                            .or(xAbs0.compare(EQ, Double.POSITIVE_INFINITY))
                            .or(xAbs0.compare(EQ, 1.0)));
            // y = ±Infinity, ±1, 1/2, 2.
            DoubleVector yInf = DoubleVector.zero(D)
                    .blend(y, y.compare(GE, 0.0))
                    .blend(DoubleVector.zero(D).blend(y.neg(), y.compare(LT, 0.0)), xAbs0.compare(LT, 1.0))
                    .blend(Double.NaN, xAbs0.compare(EQ, 1.0));
            result = result.blend(yInf, yAbs.compare(EQ, Double.POSITIVE_INFINITY));
            result = result.blend(
                    x.blend(DoubleVector.broadcast(D, 1.0).div(x), y.compare(NE, 1.0)), yAbs.compare(EQ, 1.0));
            // fdlibm takes sqrt only for x >= 0 (x + 0 makes -0 +0): the square root of a negative x would be the
            // hardware's NaN (sign bit set on x86), not the canonical NaN the lanes above give it.
            result = result.blend(x.add(0.0).sqrt(), y.compare(EQ, 0.5).and(x.compare(GE, 0.0)));
            result = result.blend(x.mul(x), y.compare(EQ, 2.0));
            result = result.blend(Double.NaN, x.test(IS_NAN).or(y.test(IS_NAN)));
            result.blend(1.0, y.compare(EQ, 0.0)).intoArray(xs, i);
        }
    }
}
