package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.NE;
import static jdk.incubator.vector.VectorOperators.NEG;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code tan(x)}, bit for bit as {@link StrictMath#tan}: fdlibm's {@code s_tan.c} and
 * {@code k_tan.c} in lanes, on {@link Trigonometry}'s reduction. On {@code [-pi/4, pi/4]} an odd
 * polynomial, evaluated from {@code pi/4 - |y|} above 0.6744; an odd quadrant gives
 * {@code -1/tan}, computed with the correction fdlibm makes to keep it within an ulp. Each lane's
 * path is computed for every lane and blended.
 */
public final class Tan {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double PIO4 = 0x1.921fb54442d18p-1;
    private static final double PIO4_LO = 0x1.1a62633145c07p-55;
    private static final double T0 = 0x1.5555555555563p-2;
    private static final double T1 = 0x1.111111110fe7ap-3;
    private static final double T2 = 0x1.ba1ba1bb341fep-5;
    private static final double T3 = 0x1.664f48406d637p-6;
    private static final double T4 = 0x1.226e3e96e8493p-7;
    private static final double T5 = 0x1.d6d22c9560328p-9;
    private static final double T6 = 0x1.7dbc8fee08315p-10;
    private static final double T7 = 0x1.344d8f2f26501p-11;
    private static final double T8 = 0x1.026f71a8d1068p-12;
    private static final double T9 = 0x1.47e88a03792a6p-14;
    private static final double T10 = 0x1.2b80f32f0a7e9p-14;
    private static final double T11 = -0x1.375cbdb605373p-16;
    private static final double T12 = 0x1.b2a7074bf7ad4p-16;

    private Tan() {}

    /** Replaces {@code x[0..n)} by {@code tan(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        Trigonometry.reduce(a, n);
        int room = LaneMath.room(n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            DoubleVector y0 = DoubleVector.fromArray(D, a, room + i);
            DoubleVector y1 = DoubleVector.fromArray(D, a, 2 * room + i);
            LongVector q = DoubleVector.fromArray(D, a, 3 * room + i).viewAsIntegralLanes();
            VectorMask<Double> odd = q.and(1L).compare(NE, 0L).cast(D); // iy = -1: -1/tan
            DoubleVector iy = DoubleVector.broadcast(D, 1.0).blend(-1.0, odd);
            LongVector iw = y0.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> tiny = iw.compare(LT, 0x3e30_0000L).cast(D); // |y0| < 2^-28
            VectorMask<Double> big = iw.compare(GE, 0x3FE5_9428L).cast(D); // |y0| >= 0.6744
            VectorMask<Double> negative = y0.test(IS_NEGATIVE);

            // Above 0.6744: tan(pi/4 - |y|), from |y0| and the correspondingly signed y1.
            VectorMask<Double> flip = big.and(negative);
            DoubleVector xr = DoubleVector.broadcast(D, PIO4)
                    .sub(y0.lanewise(NEG, flip))
                    .add(DoubleVector.broadcast(D, PIO4_LO).sub(y1.lanewise(NEG, flip)));
            DoubleVector xx = y0.blend(xr, big);
            DoubleVector yy = y1.blend(0.0, big);
            DoubleVector z = xx.mul(xx);
            DoubleVector w = z.mul(z);
            DoubleVector r = w.mul(w.mul(
                                    w.mul(w.mul(w.mul(T11).add(T9)).add(T7)).add(T5))
                            .add(T3))
                    .add(T1);
            DoubleVector v =
                    z.mul(w.mul(w.mul(w.mul(w.mul(w.mul(T12).add(T10)).add(T8)).add(T6))
                                    .add(T4))
                            .add(T2));
            DoubleVector s = z.mul(xx);
            r = yy.add(z.mul(s.mul(r.add(v)).add(yy)));
            r = r.add(s.mul(T0));
            w = xx.add(r);
            DoubleVector bigResult = w.mul(w).div(w.add(iy)).sub(r);
            bigResult = iy.sub(xx.sub(bigResult).mul(2.0)).lanewise(NEG, negative);

            // An odd quadrant: -1/(x + r) without losing its last bit (below 2^-28, x + y for x + r).
            DoubleVector xo = xx.blend(y0, tiny);
            DoubleVector ro = r.blend(y1, tiny);
            DoubleVector wo = w.blend(y0.add(y1), tiny);
            DoubleVector zo =
                    wo.viewAsIntegralLanes().and(0xFFFF_FFFF_0000_0000L).viewAsFloatingLanes();
            DoubleVector vo = ro.sub(zo.sub(xo));
            DoubleVector ao = DoubleVector.broadcast(D, -1.0).div(wo);
            DoubleVector to =
                    ao.viewAsIntegralLanes().and(0xFFFF_FFFF_0000_0000L).viewAsFloatingLanes();
            DoubleVector so = DoubleVector.broadcast(D, 1.0).add(to.mul(zo));
            DoubleVector oddResult = to.add(ao.mul(so.add(to.mul(vo))));

            DoubleVector result = w.blend(oddResult, odd).blend(bigResult, big);
            result = result.blend(y0.blend(oddResult, odd), tiny);
            // fdlibm's 1/|x| for x = 0 in an odd quadrant (which no finite reduction gives).
            result = result.blend(
                    DoubleVector.broadcast(D, 1.0).div(y0.abs()), tiny.and(odd).and(y0.compare(EQ, 0.0)));

            result = result.lanewise(NEG, x.test(IS_NEGATIVE));
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            result = result.blend(x.sub(x), ix.compare(GE, 0x7ff0_0000L).cast(D)); // NaN, ±Infinity
            result.intoArray(a, i);
            VectorMask<Double> huge = ix.compare(GT, Trigonometry.MEDIUM_LIMIT)
                    .and(ix.compare(LT, 0x7ff0_0000L))
                    .cast(D);
            if (huge.anyTrue()) {
                for (int lane = 0; lane < D.length(); lane++) {
                    if (huge.laneIsSet(lane)) {
                        a[i + lane] = StrictMath.tan(x.lane(lane));
                    }
                }
            }
        }
    }
}
