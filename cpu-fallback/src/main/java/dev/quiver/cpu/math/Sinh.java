package dev.quiver.cpu.math;

/** {@code sinh(x)}, as {@link StrictMath#sinh}: per lane. */
public final class Sinh {
    private Sinh() {
    }

    /** Replaces {@code x[0..n)} by {@code sinh(x)} of each ({@link LaneMath}). */
    public static void apply(double[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = StrictMath.sinh(x[i]);
        }
    }
}
