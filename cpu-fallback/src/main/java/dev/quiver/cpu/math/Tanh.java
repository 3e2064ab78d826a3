package dev.quiver.cpu.math;

/** {@code tanh(x)}, as {@link StrictMath#tanh}: per lane. */
public final class Tanh {
    private Tanh() {
    }

    /** Replaces {@code x[0..n)} by {@code tanh(x)} of each ({@link LaneMath}). */
    public static void apply(double[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = StrictMath.tanh(x[i]);
        }
    }
}
