package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.IS_NEGATIVE;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.NEG;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code asin(x)}, bit for bit as {@link StrictMath#asin}: fdlibm's {@code e_asin.c} in lanes.
 * Below 1/2 {@code x + x R(x^2)} with a rational {@code R}; from 1/2 to 1
 * {@code pi/2 - 2 asin(sqrt((1 - |x|) / 2))}, the square root split into a 26-bit head and its
 * tail below 0.975; ±1, beyond ±1 and NaN as fdlibm. Every range is computed for every lane and
 * blended.
 */
public final class Asin {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double PIO2_HI = 0x1.921fb54442d18p0;
    private static final double PIO2_LO = 0x1.1a62633145c07p-54;
    private static final double PIO4_HI = 0x1.921fb54442d18p-1;
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

    private Asin() {}

    /** Replaces {@code x[0..n)} by {@code asin(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> small = ix.compare(LT, 0x3fe0_0000L).cast(D); // |x| < 0.5
            // t = x^2 below 1/2, (1 - |x|) / 2 above; the same rational function of t.
            DoubleVector t =
                    x.mul(x).blend(DoubleVector.broadcast(D, 1.0).sub(x.abs()).mul(0.5), small.not());
            DoubleVector p =
                    t.mul(t.mul(t.mul(t.mul(t.mul(t.mul(PS5).add(PS4)).add(PS3)).add(PS2))
                                    .add(PS1))
                            .add(PS0));
            DoubleVector q =
                    t.mul(t.mul(t.mul(t.mul(QS4).add(QS3)).add(QS2)).add(QS1)).add(1.0);
            DoubleVector below = x.add(x.mul(p.div(q)));

            DoubleVector s = t.sqrt();
            DoubleVector pq = p.div(q);
            DoubleVector nearOne = DoubleVector.broadcast(D, PIO2_HI)
                    .sub(s.add(s.mul(pq)).mul(2.0).sub(PIO2_LO));
            DoubleVector w = s.viewAsIntegralLanes().and(0xFFFF_FFFF_0000_0000L).viewAsFloatingLanes();
            DoubleVector c = t.sub(w.mul(w)).div(s.add(w));
            DoubleVector pp =
                    s.mul(2.0).mul(pq).sub(DoubleVector.broadcast(D, PIO2_LO).sub(c.mul(2.0)));
            DoubleVector qq = DoubleVector.broadcast(D, PIO4_HI).sub(w.mul(2.0));
            DoubleVector middle = DoubleVector.broadcast(D, PIO4_HI).sub(pp.sub(qq));
            DoubleVector above = middle.blend(
                            nearOne, ix.compare(GE, 0x3FEF_3333L).cast(D)) // |x| > 0.975
                    .lanewise(NEG, x.test(IS_NEGATIVE));

            DoubleVector result = above.blend(below, small);
            result = result.blend(x, ix.compare(LT, 0x3e40_0000L).cast(D)); // |x| < 2^-27
            VectorMask<Double> outside = ix.compare(GE, 0x3ff0_0000L).cast(D); // |x| >= 1, NaN
            DoubleVector one = x.mul(PIO2_HI).add(x.mul(PIO2_LO)); // asin(±1)
            result = result.blend(x.sub(x).div(x.sub(x)).blend(one, x.abs().compare(EQ, 1.0)), outside);
            result.intoArray(a, i);
        }
    }
}
