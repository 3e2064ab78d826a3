package dev.quiver.cpu.math;

/** {@code cosh(x)}, as {@link StrictMath#cosh}: per lane. */
public final class Cosh {
    private Cosh() {
    }

    /** Replaces {@code x[0..n)} by {@code cosh(x)} of each ({@link LaneMath}). */
    public static void apply(double[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = StrictMath.cosh(x[i]);
        }
    }
}
