package dev.quiver.cpu.math;

/**
 * {@code cos(x)}, bit for bit as {@link StrictMath#cos}: fdlibm's {@code s_cos.c} in lanes, on
 * {@link Trigonometry}'s reduction and kernels.
 */
public final class Cos {
    private Cos() {}

    /** Replaces {@code x[0..n)} by {@code cos(x)} of each ({@link LaneMath}). */
    public static void apply(double[] x, int n) {
        Trigonometry.sinCos(x, n, true);
    }
}
