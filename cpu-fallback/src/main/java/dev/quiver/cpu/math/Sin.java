package dev.quiver.cpu.math;

/**
 * {@code sin(x)}, bit for bit as {@link StrictMath#sin}: fdlibm's {@code s_sin.c} in lanes, on
 * {@link Trigonometry}'s reduction and kernels.
 */
public final class Sin {
    private Sin() {}

    /** Replaces {@code x[0..n)} by {@code sin(x)} of each ({@link LaneMath}). */
    public static void apply(double[] x, int n) {
        Trigonometry.sinCos(x, n, false);
    }
}
