package dev.quiver.opencl;

/** Values that break naive kernels, and every combination of them as columns. */
final class Hostile {
    private Hostile() {}

    static final double[] DOUBLES = {
        Double.NaN,
        Double.longBitsToDouble(0xfff8_0000_0000_0123L),
        0.0,
        -0.0,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Math.nextDown(Double.MIN_NORMAL),
        Double.MIN_NORMAL,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        1e154,
        1e-160,
        1.0,
        -1.0,
        0.1,
        -2.5,
        Math.PI,
        // (1 + 2^-30)(1 - 2^-30) - 1 is 0 with two roundings and -2^-60 with one: catches contraction.
        1 + 0x1p-30,
        1 - 0x1p-30,
    };

    static final float[] FLOATS = {
        Float.NaN,
        0.0f,
        -0.0f,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        Float.MIN_VALUE,
        -Float.MIN_VALUE,
        Math.nextDown(Float.MIN_NORMAL),
        Float.MIN_NORMAL,
        Float.MAX_VALUE,
        -Float.MAX_VALUE,
        1e19f,
        1e-20f,
        1.0f,
        -1.0f,
        0.1f,
        -2.5f,
        (float) Math.PI,
        3.0f,
        1 + 0x1p-13f,
        1 - 0x1p-13f,
    };

    static final int[] INTS = {
        Integer.MIN_VALUE,
        Integer.MIN_VALUE + 1,
        Integer.MAX_VALUE,
        -1,
        0,
        1,
        2,
        -2,
        7,
        -7,
        3,
        46341,
        1 << 16,
        16_777_217,
        -16_777_217,
    };

    static final long[] LONGS = {
        Long.MIN_VALUE,
        Long.MIN_VALUE + 1,
        Long.MAX_VALUE,
        -1,
        0,
        1,
        2,
        -2,
        7,
        -7,
        3,
        3_037_000_500L,
        (1L << 53) + 1,
        -(1L << 53) - 1,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
    };

    /** Column {@code c} of every {@code arity}-tuple of {@code values}: {@code values.length^arity} rows. */
    static double[][] combinations(double[] values, int arity) {
        int rows = (int) Math.pow(values.length, arity);
        double[][] columns = new double[arity][rows];
        for (int r = 0; r < rows; r++) {
            int rest = r;
            for (int c = 0; c < arity; c++) {
                columns[c][r] = values[rest % values.length];
                rest /= values.length;
            }
        }
        return columns;
    }

    static float[][] combinations(float[] values, int arity) {
        double[] widened = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            widened[i] = values[i];
        }
        double[][] wide = combinations(widened, arity);
        float[][] columns = new float[arity][wide[0].length];
        for (int c = 0; c < arity; c++) {
            for (int r = 0; r < wide[c].length; r++) {
                columns[c][r] = (float) wide[c][r];
            }
        }
        return columns;
    }

    static int[][] combinations(int[] values, int arity) {
        int rows = (int) Math.pow(values.length, arity);
        int[][] columns = new int[arity][rows];
        for (int r = 0; r < rows; r++) {
            int rest = r;
            for (int c = 0; c < arity; c++) {
                columns[c][r] = values[rest % values.length];
                rest /= values.length;
            }
        }
        return columns;
    }

    static long[][] combinations(long[] values, int arity) {
        int rows = (int) Math.pow(values.length, arity);
        long[][] columns = new long[arity][rows];
        for (int r = 0; r < rows; r++) {
            int rest = r;
            for (int c = 0; c < arity; c++) {
                columns[c][r] = values[rest % values.length];
                rest /= values.length;
            }
        }
        return columns;
    }
}
