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
 * {@code sinh(x)}, bit for bit as {@link StrictMath#sinh}: fdlibm's {@code e_sinh.c} in lanes, on
 * {@link Expm1} of {@code |x|} and {@link Exp} of {@code |x|} or {@code |x|/2} (both kept in the
 * working space): {@code ±(2t - t^2/(t + 1))/2} or {@code ±(t + t/(t + 1))/2} with {@code t = expm1(|x|)}
 * below 22, {@code ±exp(|x|)/2} up to {@code ln(MAX_VALUE)}, {@code ±(exp(|x|/2)/2) exp(|x|/2)} up to
 * where it overflows, and fdlibm's values for tiny {@code x}, overflow, ±Infinity and NaN.
 */
public final class Sinh {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final double SHUGE = 1.0e307;

    private Sinh() {}

    /** Replaces {@code x[0..n)} by {@code sinh(x)} of each ({@link LaneMath}). */
    public static void apply(double[] a, int n) {
        int room = LaneMath.room(n);
        boolean expm1 = false, exp = false; // which of the two some lane needs (the other one's work is skipped)
        for (int i = 0; i < n; i += D.length()) {
            DoubleVector x = DoubleVector.fromArray(D, a, i);
            LongVector ix = x.viewAsIntegralLanes().lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            DoubleVector abs = x.abs();
            abs.intoArray(a, room + i);
            abs.blend(abs.mul(0.5), ix.compare(GE, 0x4086_2E42L).cast(D)).intoArray(a, 2 * room + i);
            expm1 |= ix.compare(LT, 0x4036_0000L).anyTrue();
            exp |= ix.compare(GE, 0x4036_0000L).anyTrue();
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
            DoubleVector w = DoubleVector.fromArray(D, a, 2 * room + i);
            LongVector bits = x.viewAsIntegralLanes();
            LongVector ix = bits.lanewise(LSHR, 32).and(0x7FFF_FFFFL);
            DoubleVector h = DoubleVector.broadcast(D, 0.5).blend(-0.5, x.test(IS_NEGATIVE));
            DoubleVector tp1 = t.add(1.0);
            DoubleVector result = h.mul(t.add(t.div(tp1)))
                    .blend(
                            h.mul(t.mul(2.0).sub(t.mul(t).div(tp1))),
                            ix.compare(LT, 0x3ff0_0000L).cast(D));
            result = result.blend(x, ix.compare(LT, 0x3e30_0000L).cast(D)); // |x| < 2^-28
            VectorMask<Double> upToLnMax = ix.compare(LT, 0x4086_2E42L).cast(D);
            result = h.mul(w)
                    .blend(result, ix.compare(LT, 0x4036_0000L).cast(D))
                    .blend(h.mul(w), upToLnMax.and(ix.compare(GE, 0x4036_0000L).cast(D)));
            VectorMask<Double> beforeOverflow = ix.compare(LT, 0x4086_33CEL)
                    .or(ix.compare(EQ, 0x4086_33ceL).and(bits.and(0xFFFF_FFFFL).compare(LE, 0x8fb9_f87dL)))
                    .cast(D);
            DoubleVector squared = h.mul(w).mul(w);
            result = result.blend(squared.blend(x.mul(SHUGE), beforeOverflow.not()), upToLnMax.not());
            result.blend(x.add(x), ix.compare(GE, 0x7ff0_0000L).cast(D)).intoArray(a, i);
        }
    }
}
