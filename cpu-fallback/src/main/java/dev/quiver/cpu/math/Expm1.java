package dev.quiver.cpu.math;

/** {@code exp(x) - 1}, as {@link StrictMath#expm1}: per lane. */
public final class Expm1 {
    private Expm1() {
    }

    /** Replaces {@code x[0..n)} by {@code exp(x) - 1} of each ({@link LaneMath}). */
    public static void apply(double[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = StrictMath.expm1(x[i]);
        }
    }
}
