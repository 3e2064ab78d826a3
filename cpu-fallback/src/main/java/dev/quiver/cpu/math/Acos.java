package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code acos(x)}, bit for bit as {@link StrictMath#acos}: fdlibm's {@code e_acos.c} in lanes.
 * Below 1/2 {@code pi/2 - (x + x R(x^2))}; above, {@code 2 asin(sqrt((1 - x) / 2))} (the square
 * root split into a 26-bit head and its tail) or {@code pi - 2 asin(sqrt((1 + x) / 2))} for
 * negative {@code x}; ±1, beyond ±1 and NaN as fdlibm. Every range is computed for every lane and
 * blended.
 */
public final class Acos {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double PIO2_HI = 0x1.921fb54442d18p0;
    private static final double PIO2_LO = 0x1.1a62633145c07p-54;
    private static final double PS0 = 0x1.5555555555555p-3;
    private static final double PS1 = -0x1.4d61203eb6f7dp-2;
    private static final double PS2 = 0x1.9c1550e884455p-3;
    private static final double PS3 = -0x1.48228b5688f3bp-5;
    private static final double PS4 = 0x1.9efe07501b288p-11;
    private static final double PS5 = 0x1.23de10dfdf709p-15;
    private static final double QS1 = -0x1.33a271c8a2d4bp1;
    private static final double QS2 = 0x1.02ae59c598ac8p1;
    private static final double QS3 = -0x1.6066c1b8d0159p-1;
    private static final double QS4 = 0x1.3b8c5b12e9282p-4;

    private Acos() {}

    /** Replaces {@code x[0..n)} by {@code acos(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> small = ix.compare(LT, 0x3fe0_0000L).cast(D); // |x| < 0.5
            VectorMask<Double> negative = x.test(IS_NEGATIVE);
            // z = x^2 below 1/2, (1 + x) / 2 for x < -1/2, (1 - x) / 2 for x > 1/2; the same rational function of z.
            DoubleVector z = DoubleVector.broadcast(D, 1.0)
                    .sub(x)
                    .mul(0.5)
                    .blend(DoubleVector.broadcast(D, 1.0).add(x).mul(0.5), negative)
                    .blend(x.mul(x), small);
            DoubleVector p =
                    z.mul(z.mul(z.mul(z.mul(z.mul(z.mul(PS5).add(PS4)).add(PS3)).add(PS2))
                                    .add(PS1))
                            .add(PS0));
            DoubleVector q =
                    z.mul(z.mul(z.mul(z.mul(QS4).add(QS3)).add(QS2)).add(QS1)).add(1.0);
            DoubleVector r = p.div(q);
            DoubleVector below = DoubleVector.broadcast(D, PIO2_HI)
                    .sub(x.sub(DoubleVector.broadcast(D, PIO2_LO).sub(x.mul(r))));

            DoubleVector s = z.sqrt();
            DoubleVector negativeSide = DoubleVector.broadcast(D, Math.PI)
                    .sub(s.add(r.mul(s).sub(PIO2_LO)).mul(2.0));
            DoubleVector df =
                    s.viewAsIntegralLanes().and(0xFFFF_FFFF_0000_0000L).viewAsFloatingLanes();
            DoubleVector c = z.sub(df.mul(df)).div(s.add(df));
            DoubleVector positiveSide = df.add(r.mul(s).add(c)).mul(2.0);

            DoubleVector result = positiveSide.blend(negativeSide, negative).blend(below, small);
            result =
                    result.blend(PIO2_HI + PIO2_LO, ix.compare(LE, 0x3c60_0000L).cast(D)); // |x| < 2^-57
            VectorMask<Double> outside = ix.compare(GE, 0x3ff0_0000L).cast(D); // |x| >= 1, NaN
            DoubleVector one = DoubleVector.broadcast(D, 0.0).blend(Math.PI + 2.0 * PIO2_LO, negative); // acos(±1)
            result = result.blend(x.sub(x).div(x.sub(x)).blend(one, x.abs().compare(EQ, 1.0)), outside);
            result.intoArray(a, i);
        }
    }
}
