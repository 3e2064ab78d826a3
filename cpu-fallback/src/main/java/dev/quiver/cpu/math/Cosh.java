package dev.quiver.cpu.math;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.LT;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code cosh(x)}, bit for bit as {@link StrictMath#cosh}: fdlibm's {@code e_cosh.c} in lanes, on
 * {@link Expm1} of {@code |x|} and {@link Exp} of {@code |x|} or {@code |x|/2} (both kept in the
 * working space): {@code 1 + t^2/(2(1 + t))} with {@code t = expm1(|x|)} below {@code ln2/2},
 * {@code (exp(|x|) + 1/exp(|x|))/2} below 22, {@code exp(|x|)/2} up to {@code ln(MAX_VALUE)},
 * {@code (exp(|x|/2)/2) exp(|x|/2)} up to where it overflows, and fdlibm's values for tiny
 * {@code x}, overflow, ±Infinity and NaN.
 */
public final class Cosh {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double HUGE = 1.0e300;

    private Cosh() {}

    /** Replaces {@code x[0..n)} by {@code cosh(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        int room = LaneMath.room(n);
        boolean expm1 = false, exp = false; // which of the two some lane needs (the other one's work is skipped)
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            DoubleVector abs = x.abs();
            abs.intoArray(a, room + i);
            abs.blend(abs.mul(0.5), ix.compare(GE, 0x4086_2E42L).cast(D)).intoArray(a, 2 * room + i);
            expm1 |= ix.compare(LT, 0x3fd6_2e43L).anyTrue();
            exp |= ix.compare(GE, 0x3fd6_2e43L).anyTrue();
        }
        if (expm1) {
            Expm1.apply(a, room, n);
        }
        if (exp) {
            Exp.apply(a, 2 * room, n);
        }
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            DoubleVector t = DoubleVector.fromArray(D, a, room + i);
            DoubleVector e = DoubleVector.fromArray(D, a, 2 * room + i);
            LongVector bits = x.viewAsIntegralLanes();
            LongVector ix = bits.lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            DoubleVector w = t.add(1.0);
            DoubleVector small = t.mul(t)
                    .div(w.add(w))
                    .add(1.0)
                    .blend(w, ix.compare(LT, 0x3c80_0000L).cast(D));
            DoubleVector result = e.mul(0.5)
                    .blend(
                            e.mul(0.5).add(DoubleVector.broadcast(D, 0.5).div(e)),
                            ix.compare(LT, 0x4036_0000L).cast(D))
                    .blend(small, ix.compare(LT, 0x3fd6_2e43L).cast(D));
            VectorMask<Double> beforeOverflow = ix.compare(LT, 0x4086_33CEL)
                    .or(ix.compare(EQ, 0x4086_33ceL).and(bits.and(0xFFFF_FFFFL).compare(LE, 0x8fb9_f87dL)))
                    .cast(D);
            DoubleVector squared = e.mul(0.5).mul(e);
            result = result.blend(
                    squared.blend(HUGE * HUGE, beforeOverflow.not()),
                    ix.compare(GE, 0x4086_2E42L).cast(D));
            result.blend(x.mul(x), ix.compare(GE, 0x7ff0_0000L).cast(D)).intoArray(a, i);
        }
    }
}
