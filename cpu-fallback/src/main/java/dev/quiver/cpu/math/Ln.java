package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.XOR;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * The natural logarithm, bit for bit as {@link StrictMath#log}: fdlibm's {@code e_log.c} in
 * lanes. {@code x = 2^k (1 + f)} with {@code 1 + f} in {@code [sqrt(2)/2, sqrt(2))} (a subnormal
 * scaled by 2<sup>54</sup> first), {@code ln(1 + f)} from {@code s = f / (2 + f)} and a
 * polynomial in {@code s^2}, plus {@code k ln2}; fdlibm's four ways of adding the parts (by the
 * size of {@code f} and whether {@code k} is 0), its path for {@code |f| < 2^-20} and its
 * special cases (±0, negative numbers, +Infinity, NaN) computed for every lane and blended.
 * {@link Log2} and {@link Log10} run this on the significands they reduce their arguments to.
 */
public final class Ln {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final double TWO54 = 0x1.0p54;
    private static final double LN2_HI = 0x1.62e42feep-1;
    private static final double LN2_LO = 0x1.a39ef35793c76p-33;
    private static final double LG1 = 0x1.5555555555593p-1;
    private static final double LG2 = 0x1.999999997fa04p-2;
    private static final double LG3 = 0x1.2492494229359p-2;
    private static final double LG4 = 0x1.c71c51d8e78afp-3;
    private static final double LG5 = 0x1.7466496cb03dep-3;
    private static final double LG6 = 0x1.39a09d078c69fp-3;
    private static final double LG7 = 0x1.2f112df3e5244p-3;

    private Ln() {}

    /** Replaces {@code x[0..n)} by {@code ln(x)} of each ({@link LaneMath}). */
    public static void apply(double[] in, int n) {
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x0 = DoubleVector.fromArray(D, in, i);
            VectorMask<Double> negative = x0.test(IS_NEGATIVE);
            LongVector ahx0 = x0.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            // Subnormals (positive, below 2^-1022, not zero) are scaled by 2^54 first.
            VectorMask<Double> subnormal =
                    ahx0.compare(LT, 0x0010_0000L).cast(D).andNot(negative).andNot(x0.compare(EQ, 0.0));
            DoubleVector x = x0.mul(TWO54, subnormal);
            LongVector bits = x.viewAsIntegralLanes();
            LongVector hx = bits.lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            LongVector k =
                    hx.lanewise(LSHR, 20).sub(1023).sub(LongVector.zero(L).blend(54, subnormal.cast(L)));
            LongVector hm = hx.and(0x000f_ffffL);
            LongVector iBit = hm.add(0x9_5f64L).and(0x10_0000L);
            // Normalize: x or x/2, as fdlibm's __HI(x, hm | (i ^ 0x3ff00000)).
            x = bits.and(0xFFFF_FFFFL)
                    .or(hm.or(iBit.lanewise(XOR, 0x3ff0_0000L)).lanewise(LSHL, 32))
                    .viewAsFloatingLanes();
            k = k.add(iBit.lanewise(LSHR, 20));
            // k as a double: the bits of 1.5 * 2^52 plus k are the double 1.5 * 2^52 + k.
            DoubleVector dk =
                    k.add(LaneMath.INTEGER_BIAS_BITS).viewAsFloatingLanes().sub(LaneMath.INTEGER_BIAS);
            VectorMask<Double> kZero = k.compare(EQ, 0L).cast(D);
            DoubleVector f = x.sub(1.0);

            // |f| < 2^-20.
            DoubleVector r1 = f.mul(f).mul(DoubleVector.broadcast(D, 0.5).sub(f.mul(0.33333333333333333)));
            DoubleVector tiny =
                    dk.mul(LN2_HI).sub(r1.sub(dk.mul(LN2_LO)).sub(f)).blend(f.sub(r1), kZero);
            DoubleVector exactK = dk.mul(LN2_HI).add(dk.mul(LN2_LO)).blend(0.0, kZero);
            tiny = tiny.blend(exactK, f.compare(EQ, 0.0));

            DoubleVector s = f.div(f.add(2.0));
            DoubleVector z = s.mul(s);
            DoubleVector w = z.mul(z);
            DoubleVector t1 = w.mul(w.mul(w.mul(LG6).add(LG4)).add(LG2));
            DoubleVector t2 = z.mul(w.mul(w.mul(w.mul(LG7).add(LG5)).add(LG3)).add(LG1));
            DoubleVector rr = t2.add(t1);
            VectorMask<Double> wide = hm.sub(0x6_147aL)
                    .or(LongVector.broadcast(L, 0x6b851L).sub(hm))
                    .compare(GT, 0L)
                    .cast(D);
            DoubleVector hfsq = f.mul(0.5).mul(f);
            DoubleVector sHR = s.mul(hfsq.add(rr));
            DoubleVector sFR = s.mul(f.sub(rr));
            DoubleVector wideK =
                    dk.mul(LN2_HI).sub(hfsq.sub(sHR.add(dk.mul(LN2_LO))).sub(f)).blend(f.sub(hfsq.sub(sHR)), kZero);
            DoubleVector narrowK =
                    dk.mul(LN2_HI).sub(sFR.sub(dk.mul(LN2_LO)).sub(f)).blend(f.sub(sFR), kZero);
            DoubleVector result = narrowK.blend(wideK, wide)
                    .blend(tiny, hm.add(2).and(0x000f_ffffL).compare(LT, 3L).cast(D));

            // Special cases: ±0 gives -Infinity, a negative number NaN, +Infinity and NaN themselves.
            result = result.blend(Double.NEGATIVE_INFINITY, x0.compare(EQ, 0.0));
            result = result.blend(x0.add(x0), ahx0.compare(GE, 0x7ff0_0000L).cast(D));
            result.blend(x0.sub(x0).div(0.0), negative.andNot(x0.compare(EQ, 0.0)))
                    .intoArray(in, i);
        }
    }
}
