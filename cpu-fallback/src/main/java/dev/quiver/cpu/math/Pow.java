package dev.quiver.cpu.math;

/** {@code pow(y, x)}, as {@link StrictMath#pow}: per lane. */
public final class Pow {
    private Pow() {
    }

    /** Replaces {@code y[0..n)} by {@code pow(y, x)} of each pair ({@link LaneMath}). */
    public static void apply(double[] y, double[] x, int n) {
        for (int i = 0; i < n; i++) {
            double r = StrictMath.pow(y[i], x[i]);
            y[i] = r != r ? Double.NaN : r; // the canonical NaN: which operand's payload StrictMath keeps depends on the JIT
        }
    }
}
