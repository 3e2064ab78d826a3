package dev.quiver.cpu.math;

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
 * {@code tanh(x)}, bit for bit as {@link StrictMath#tanh}: fdlibm's {@code s_tanh.c} in lanes, on
 * {@link Expm1} of {@code ±2|x|} (kept in the working space): {@code 1 - 2 / (expm1(2|x|) + 2)} from 1
 * to 22, {@code -t / (t + 2)} with {@code t = expm1(-2|x|)} below 1, ±1 from 22, and fdlibm's
 * values for tiny {@code x}, ±Infinity and NaN.
 */
public final class Tanh {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double TINY = 1.0e-300;

    private Tanh() {}

    /** Replaces {@code x[0..n)} by {@code tanh(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        int room = LaneMath.room(n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            DoubleVector twice = x.abs().mul(2.0);
            twice.lanewise(NEG, ix.compare(LT, 0x3ff0_0000L).cast(D)).intoArray(a, room + i);
        }
        Expm1.apply(a, room, n);
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            DoubleVector t = DoubleVector.fromArray(D, a, room + i);
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            VectorMask<Double> negative = x.test(IS_NEGATIVE);
            DoubleVector z = DoubleVector.broadcast(D, 1.0)
                    .sub(DoubleVector.broadcast(D, 2.0).div(t.add(2.0)))
                    .blend(t.neg().div(t.add(2.0)), ix.compare(LT, 0x3ff0_0000L).cast(D))
                    .blend(1.0 - TINY, ix.compare(GE, 0x4036_0000L).cast(D)); // |x| >= 22
            DoubleVector result = z.lanewise(NEG, negative);
            result =
                    result.blend(x.mul(x.add(1.0)), ix.compare(LT, 0x3c80_0000L).cast(D)); // |x| < 2^-55
            DoubleVector reciprocal = DoubleVector.broadcast(D, 1.0).div(x);
            result = result.blend(
                    reciprocal.add(1.0).blend(reciprocal.sub(1.0), negative),
                    ix.compare(GE, 0x7ff0_0000L).cast(D));
            result.intoArray(a, i);
        }
    }
}
