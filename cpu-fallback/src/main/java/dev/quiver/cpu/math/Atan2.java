package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.IS_NAN;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.NEG;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code atan2(y, x)}, bit for bit as {@link StrictMath#atan2} (a NaN result is the canonical
 * NaN): fdlibm's {@code e_atan2.c} in lanes. {@link Atan} of {@code |y / x|}, run on the
 * quotients kept in the working space, moved to the quadrant of {@code (x, y)}; the special cases
 * (either argument NaN, {@code x = 1}, zeros, infinities, quotients beyond 2<sup>±60</sup>) in
 * fdlibm's order of precedence.
 */
public final class Atan2 {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double TINY = 1.0e-300;
    private static final double PI_O_4 = 0x1.921fb54442d18p-1;
    private static final double PI_O_2 = 0x1.921fb54442d18p0;
    private static final double PI_LO = 0x1.1a62633145c07p-53;

    private Atan2() {}

    /** Replaces {@code y[0..n)} by {@code atan2(y, x)} of each pair ({@link LaneMath}). */
    public static void apply(double[] ys, double[] xs, int n) {
        int room = LaneMath.room(n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector y = DoubleVector.fromArray(D, ys, i);
            DoubleVector x = DoubleVector.fromArray(D, xs, i);
            y.div(x).abs().intoArray(ys, room + i);
        }
        Atan.apply(ys, room, n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector y = DoubleVector.fromArray(D, ys, i);
            DoubleVector x = DoubleVector.fromArray(D, xs, i);
            DoubleVector atan = DoubleVector.fromArray(D, ys, room + i);
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            LongVector iy = y.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> yNegative = y.test(IS_NEGATIVE);
            VectorMask<Double> xNegative = x.test(IS_NEGATIVE);
            VectorMask<Double> yInfinite = iy.compare(EQ, 0x7ff0_0000L).cast(D).andNot(y.test(IS_NAN));
            VectorMask<Double> xInfinite = ix.compare(EQ, 0x7ff0_0000L).cast(D).andNot(x.test(IS_NAN));

            // The quadrant of atan(|y/x|), with |y/x| beyond 2^60 or below 2^-60 (x negative) decided without it.
            LongVector k = iy.sub(ix);
            DoubleVector z = atan.blend(
                            0.0, xNegative.and(k.compare(LT, -60L << 20).cast(D)))
                    .blend(PI_O_2 + 0.5 * PI_LO, k.compare(GE, 61L << 20).cast(D));
            DoubleVector zLo = z.sub(PI_LO);
            DoubleVector result = z.lanewise(NEG, yNegative)
                    .blend(DoubleVector.broadcast(D, Math.PI).sub(zLo).blend(zLo.sub(Math.PI), yNegative), xNegative);

            DoubleVector halfPi = DoubleVector.broadcast(D, PI_O_2 + TINY).blend(-PI_O_2 - TINY, yNegative);
            DoubleVector pi = DoubleVector.broadcast(D, Math.PI + TINY).blend(-Math.PI - TINY, yNegative);
            result = result.blend(halfPi, yInfinite);
            DoubleVector xInf =
                    DoubleVector.broadcast(D, 0.0).blend(-0.0, yNegative).blend(pi, xNegative);
            DoubleVector bothInf = DoubleVector.broadcast(D, PI_O_4 + TINY)
                    .blend(-PI_O_4 - TINY, yNegative)
                    .blend(
                            DoubleVector.broadcast(D, 3.0 * PI_O_4 + TINY).blend(-3.0 * PI_O_4 - TINY, yNegative),
                            xNegative);
            result = result.blend(xInf.blend(bothInf, yInfinite), xInfinite);
            result = result.blend(halfPi, x.compare(EQ, 0.0));
            result = result.blend(y.blend(pi, xNegative), y.compare(EQ, 0.0));
            result = result.blend(atan.lanewise(NEG, yNegative), x.compare(EQ, 1.0)); // atan(y)
            result.blend(Double.NaN, x.test(IS_NAN).or(y.test(IS_NAN))).intoArray(ys, i);
        }
    }
}
