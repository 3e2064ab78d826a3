package dev.quiver.cpu.math;

/** {@code cbrt(x)}, as {@link StrictMath#cbrt}: per lane. */
public final class Cbrt {
    private Cbrt() {
    }

    /** Replaces {@code x[0..n)} by {@code cbrt(x)} of each ({@link LaneMath}). */
    public static void apply(double[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = StrictMath.cbrt(x[i]);
        }
    }
}
