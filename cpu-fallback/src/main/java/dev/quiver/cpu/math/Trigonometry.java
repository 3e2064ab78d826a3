package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.NE;
import static jdk.incubator.vector.VectorOperators.NEG;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * What {@link Sin}, {@link Cos} and {@link Tan} share, bit for bit as fdlibm: the argument
 * reduction ({@code __ieee754_rem_pio2}: {@code |x| = n pi/2 + y0 + y1}, {@code |y0 + y1| <= pi/4})
 * and the kernels of sine and cosine on {@code [-pi/4, pi/4]}.
 *
 * <p>The reduction is fdlibm's for {@code |x| <= 2^19 pi/2}: {@code n = ±1} with pi/2 in 33 + 53
 * bits (33 + 33 + 53 near pi/2) below 3pi/4, else {@code n} rounded from {@code |x| 2/pi} and up to
 * three rounds of subtraction with pi/2 in 33-bit parts (each lane takes as many as fdlibm
 * would, by the same tests of cancellation). It reduces {@code |x|}: fdlibm's reduction, and
 * its kernels, are odd in {@code x}, so {@code sin(-x) = -sin(x)} and {@code cos(-x) = cos(x)}
 * exactly. A lane beyond {@code 2^19 pi/2} takes {@code StrictMath} itself (Payne and Hanek's
 * reduction over 1,200 bits of 2/pi does not vectorise; such arguments are rare).
 *
 * <p>Memory: {@link #reduce} reads {@code x} from the first quarter of the array and writes
 * {@code y0}, {@code y1} and {@code n mod 4} (plus 4 where {@code |x| <= pi/4}, which fdlibm's sine
 * computes with a kernel of its own) into the other three ({@link LaneMath#room}).
 */
final class Trigonometry {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final double INV_PIO2 = 0x1.45f306dc9c883p-1;
    private static final double PIO2_1 = 0x1.921fb544p0;
    private static final double PIO2_1T = 0x1.0b4611a626331p-34;
    private static final double PIO2_2 = 0x1.0b4611a6p-34;
    private static final double PIO2_2T = 0x1.3198a2e037073p-69;
    private static final double PIO2_3 = 0x1.3198a2ep-69;
    private static final double PIO2_3T = 0x1.b839a252049c1p-104;

    private static final double S1 = -0x1.5555555555549p-3;
    private static final double S2 = 0x1.111111110f8a6p-7;
    private static final double S3 = -0x1.a01a019c161d5p-13;
    private static final double S4 = 0x1.71de357b1fe7dp-19;
    private static final double S5 = -0x1.ae5e68a2b9cebp-26;
    private static final double S6 = 0x1.5d93a5acfd57cp-33;
    private static final double C1 = 0x1.555555555554cp-5;
    private static final double C2 = -0x1.6c16c16c15177p-10;
    private static final double C3 = 0x1.a01a019cb159p-16;
    private static final double C4 = -0x1.27e4f809c52adp-22;
    private static final double C5 = 0x1.1ee9ebdb4b1c4p-29;
    private static final double C6 = -0x1.8fae9be8838d4p-37;

    /** The high word of 2^19 pi/2: above it, fdlibm reduces with Payne and Hanek's method. */
    static final long MEDIUM_LIMIT = 0x4139_21fbL;

    private Trigonometry() {}

    /** {@code y0}, {@code y1} and the quadrant of {@code |x|} for {@code x} in {@code a[0..n)} (see the class). */
    static void reduce(double[] a, int n) {
        int room = LaneMath.room(n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector t = DoubleVector.fromArray(D, a, i).abs();
            LongVector ix = t.viewAsIntegralLanes().lanewise(LSHR, 32);
            VectorMask<Double> small = ix.compare(LE, 0x3fe9_21fbL).cast(D); // |x| <= pi/4: no reduction
            VectorMask<Double> nearOne = ix.compare(LT, 0x4002_d97cL).cast(D); // |x| < 3pi/4: n = 1

            // n = 1: |x| - pi/2, pi/2 in 33 + 53 bits, or in 33 + 33 + 53 bits near pi/2.
            DoubleVector z = t.sub(PIO2_1);
            VectorMask<Double> nearPio2 = ix.compare(EQ, 0x3ff9_21fbL).cast(D);
            DoubleVector z2 = z.sub(PIO2_2);
            DoubleVector oneY0 = z.sub(PIO2_1T).blend(z2.sub(PIO2_2T), nearPio2);
            DoubleVector oneY1 = z.sub(oneY0).sub(PIO2_1T).blend(z2.sub(oneY0).sub(PIO2_2T), nearPio2);

            // Medium: n = (int) (|x| 2/pi + 1/2), a floor here, exactly.
            DoubleVector v = t.mul(INV_PIO2).add(0.5);
            DoubleVector rounded = v.add(LaneMath.TWO52).sub(LaneMath.TWO52);
            DoubleVector fn = rounded.sub(1.0, rounded.compare(GT, v));
            DoubleVector r = t.sub(fn.mul(PIO2_1));
            DoubleVector w = fn.mul(PIO2_1T);
            DoubleVector y0 = r.sub(w);
            // fdlibm's quick test: no cancellation unless |x| is near n pi/2 (its table npio2_hw holds the high words
            // of n * PIO2_1, which are exact products for n <= 32).
            VectorMask<Double> quick = fn.compare(LT, 32.0)
                    .and(ix.compare(NE, fn.mul(PIO2_1).viewAsIntegralLanes().lanewise(LSHR, 32))
                            .cast(D));
            LongVector j = ix.lanewise(LSHR, 20);
            VectorMask<Double> second = quick.not()
                    .and(j.sub(y0.viewAsIntegralLanes().lanewise(LSHR, 52).and(0x7FFL))
                            .compare(GT, 16L)
                            .cast(D));
            if (second.anyTrue()) { // rare: |x| within 2^-16 or so of a multiple of pi/2
                DoubleVector w2 = fn.mul(PIO2_2);
                DoubleVector r2 = r.sub(w2);
                w2 = fn.mul(PIO2_2T).sub(r.sub(r2).sub(w2));
                DoubleVector y02 = r2.sub(w2);
                VectorMask<Double> third = second.and(
                        j.sub(y02.viewAsIntegralLanes().lanewise(LSHR, 52).and(0x7FFL))
                                .compare(GT, 49L)
                                .cast(D));
                DoubleVector w3 = fn.mul(PIO2_3);
                DoubleVector r3 = r2.sub(w3);
                w3 = fn.mul(PIO2_3T).sub(r2.sub(r3).sub(w3));
                DoubleVector y03 = r3.sub(w3);
                r = r.blend(r2, second).blend(r3, third);
                w = w.blend(w2, second).blend(w3, third);
                y0 = y0.blend(y02, second).blend(y03, third);
            }
            DoubleVector y1 = r.sub(y0).sub(w);
            LongVector quadrant =
                    fn.add(LaneMath.INTEGER_BIAS).viewAsIntegralLanes().and(3L); // n mod 4: 1.5 * 2^52 is 0 mod 4

            y0 = y0.blend(oneY0, nearOne).blend(t, small);
            y1 = y1.blend(oneY1, nearOne).blend(0.0, small);
            quadrant = quadrant.blend(1L, nearOne.cast(L)).blend(4L, small.cast(L));
            y0.intoArray(a, room + i);
            y1.intoArray(a, 2 * room + i);
            quadrant.viewAsFloatingLanes().intoArray(a, 3 * room + i); // small integers, stored as their bits
        }
    }

    /**
     * {@code sin(x)} ({@code cos} false) or {@code cos(x)} of {@code a[0..n)}: {@link #reduce}, then
     * fdlibm's kernels on {@code y0 + y1}, chosen and signed by the quadrant (cosine's is sine's
     * plus one).
     */
    static void sinCos(double[] a, int n, boolean cos) {
        reduce(a, n);
        int room = LaneMath.room(n);
        long shift = cos ? 1 : 0;
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            DoubleVector y0 = DoubleVector.fromArray(D, a, room + i);
            DoubleVector y1 = DoubleVector.fromArray(D, a, 2 * room + i);
            LongVector q = DoubleVector.fromArray(D, a, 3 * room + i).viewAsIntegralLanes();
            LongVector iy = y0.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> tiny = iy.compare(LT, 0x3e40_0000L).cast(D); // |y0| < 2^-27

            DoubleVector zz = y0.mul(y0);
            DoubleVector vv = zz.mul(y0);
            DoubleVector rs =
                    zz.mul(zz.mul(zz.mul(zz.mul(S6).add(S5)).add(S4)).add(S3)).add(S2);
            DoubleVector sine = y0.sub(
                            zz.mul(y1.mul(0.5).sub(vv.mul(rs))).sub(y1).sub(vv.mul(S1)))
                    .blend(y0.add(vv.mul(zz.mul(rs).add(S1))), q.compare(GE, 4L).cast(D)) // |x| <= pi/4: iy = 0
                    .blend(y0, tiny);

            DoubleVector rc = zz.mul(zz.mul(zz.mul(
                                    zz.mul(zz.mul(zz.mul(C6).add(C5)).add(C4)).add(C3))
                            .add(C2))
                    .add(C1));
            DoubleVector hz = zz.mul(0.5);
            DoubleVector tail = zz.mul(rc).sub(y0.mul(y1));
            DoubleVector qx = iy.sub(0x0020_0000L)
                    .lanewise(LSHL, 32)
                    .viewAsFloatingLanes()
                    .blend(0.28125, iy.compare(GT, 0x3fe9_0000L).cast(D));
            DoubleVector cosine = DoubleVector.broadcast(D, 1.0)
                    .sub(qx)
                    .sub(hz.sub(qx).sub(tail))
                    .blend(
                            DoubleVector.broadcast(D, 1.0).sub(hz.sub(tail)),
                            iy.compare(LT, 0x3FD3_3333L).cast(D))
                    .blend(1.0, tiny);

            LongVector k = q.add(shift);
            DoubleVector result = sine.blend(cosine, k.and(1L).compare(NE, 0L).cast(D));
            result = result.lanewise(NEG, k.and(2L).compare(NE, 0L).cast(D));
            if (!cos) {
                result = result.lanewise(NEG, x.test(IS_NEGATIVE));
            }
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            result = result.blend(x.sub(x), ix.compare(GE, 0x7ff0_0000L).cast(D)); // NaN, ±Infinity
            result.intoArray(a, i);
            VectorMask<Double> huge = ix.compare(GT, MEDIUM_LIMIT)
                    .and(ix.compare(LT, 0x7ff0_0000L))
                    .cast(D);
            if (huge.anyTrue()) {
                for (int lane = 0; lane < D.length(); lane++) {
                    if (huge.laneIsSet(lane)) {
                        a[i + lane] = cos ? StrictMath.cos(x.lane(lane)) : StrictMath.sin(x.lane(lane));
                    }
                }
            }
        }
    }
}
