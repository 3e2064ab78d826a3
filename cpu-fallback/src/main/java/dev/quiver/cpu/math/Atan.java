package dev.quiver.cpu.math;

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
 * {@code atan(x)}, bit for bit as {@link StrictMath#atan}: fdlibm's {@code s_atan.c} in lanes.
 * {@code |x|} is reduced to {@code [-7/16, 7/16]} by one of {@code atan(x) = atan(c) + atan((x - c) / (1 + cx))}
 * for {@code c} = 1/2, 1, 3/2 or infinity, chosen by the size of {@code |x|}, and the rest is an odd
 * polynomial; every lane's reduction is computed and its own one blended in.
 */
public final class Atan {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double[] ATAN_HI = {
        0x1.dac670561bb4fp-2, 0x1.921fb54442d18p-1, 0x1.f730bd281f69bp-1, 0x1.921fb54442d18p0
    };
    private static final double[] ATAN_LO = {
        0x1.a2b7f222f65e2p-56, 0x1.1a62633145c07p-55, 0x1.007887af0cbbdp-56, 0x1.1a62633145c07p-54
    };
    private static final double A0 = 0x1.555555555550dp-2;
    private static final double A1 = -0x1.999999998ebc4p-3;
    private static final double A2 = 0x1.24924920083ffp-3;
    private static final double A3 = -0x1.c71c6fe231671p-4;
    private static final double A4 = 0x1.745cdc54c206ep-4;
    private static final double A5 = -0x1.3b0f2af749a6dp-4;
    private static final double A6 = 0x1.10d66a0d03d51p-4;
    private static final double A7 = -0x1.dde2d52defd9ap-5;
    private static final double A8 = 0x1.97b4b24760debp-5;
    private static final double A9 = -0x1.2b4442c6a6c2fp-5;
    private static final double A10 = 0x1.0ad3ae322da11p-6;

    private Atan() {}

    /** Replaces {@code x[0..n)} by {@code atan(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        apply(a, 0, n);
    }

    /** Replaces {@code a[from..from+n)} by {@code atan} of each; {@code a} holds {@code from + LaneMath.room(n)} values. */
    static void apply(double[] a, int from, int n) {
        for (int i = from; i < from + n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            DoubleVector t = x.abs();
            VectorMask<Double> id0 = ix.compare(LT, 0x3fe6_0000L).cast(D); // 7/16 <= |x| < 11/16
            VectorMask<Double> id1 = ix.compare(LT, 0x3ff3_0000L).cast(D); // 11/16 <= |x| < 19/16
            VectorMask<Double> id2 = ix.compare(LT, 0x4003_8000L).cast(D); // 19/16 <= |x| < 39/16
            VectorMask<Double> reduced = ix.compare(GE, 0x3fdc_0000L).cast(D); // |x| >= 7/16
            DoubleVector num = DoubleVector.broadcast(D, -1.0)
                    .blend(t.sub(1.5), id2)
                    .blend(t.sub(1.0), id1)
                    .blend(t.mul(2.0).sub(1.0), id0);
            DoubleVector den =
                    t.blend(t.mul(1.5).add(1.0), id2).blend(t.add(1.0), id1).blend(t.add(2.0), id0);
            DoubleVector hi = DoubleVector.broadcast(D, ATAN_HI[3])
                    .blend(ATAN_HI[2], id2)
                    .blend(ATAN_HI[1], id1)
                    .blend(ATAN_HI[0], id0);
            DoubleVector lo = DoubleVector.broadcast(D, ATAN_LO[3])
                    .blend(ATAN_LO[2], id2)
                    .blend(ATAN_LO[1], id1)
                    .blend(ATAN_LO[0], id0);
            DoubleVector y = num.div(den).blend(x, reduced.not());

            DoubleVector z = y.mul(y);
            DoubleVector w = z.mul(z);
            DoubleVector s1 =
                    z.mul(w.mul(w.mul(w.mul(w.mul(w.mul(A10).add(A8)).add(A6)).add(A4))
                                    .add(A2))
                            .add(A0));
            DoubleVector s2 =
                    w.mul(w.mul(w.mul(w.mul(w.mul(A9).add(A7)).add(A5)).add(A3)).add(A1));
            DoubleVector sum = s1.add(s2);
            DoubleVector near = y.sub(y.mul(sum));
            DoubleVector far = hi.sub(y.mul(sum).sub(lo).sub(y)).lanewise(NEG, x.test(IS_NEGATIVE));
            DoubleVector result = far.blend(near, reduced.not());
            result = result.blend(x, ix.compare(LT, 0x3e20_0000L).cast(D)); // |x| < 2^-29
            // |x| >= 2^66: ±pi/2, NaN itself.
            result = result.blend(
                    DoubleVector.broadcast(D, ATAN_HI[3] + ATAN_LO[3]).lanewise(NEG, x.test(IS_NEGATIVE)),
                    ix.compare(GE, 0x4410_0000L).cast(D));
            result.blend(x.add(x), x.test(IS_NAN)).intoArray(a, i);
        }
    }
}
