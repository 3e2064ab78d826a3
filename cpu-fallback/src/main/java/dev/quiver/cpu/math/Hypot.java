package dev.quiver.cpu.math;

/** {@code hypot(y, x)}, as {@link StrictMath#hypot}: per lane. */
public final class Hypot {
    private Hypot() {
    }

    /** Replaces {@code y[0..n)} by {@code hypot(y, x)} of each pair ({@link LaneMath}). */
    public static void apply(double[] y, double[] x, int n) {
        for (int i = 0; i < n; i++) {
            double r = StrictMath.hypot(y[i], x[i]);
            y[i] = r != r ? Double.NaN : r; // the canonical NaN: which operand's payload StrictMath keeps depends on the JIT
        }
    }
}
