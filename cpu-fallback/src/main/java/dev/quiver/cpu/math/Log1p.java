package dev.quiver.cpu.math;

/** {@code ln(1 + x)}, as {@link StrictMath#log1p}: per lane. */
public final class Log1p {
    private Log1p() {
    }

    /** Replaces {@code x[0..n)} by {@code ln(1 + x)} of each ({@link LaneMath}). */
    public static void apply(double[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = StrictMath.log1p(x[i]);
        }
    }
}
