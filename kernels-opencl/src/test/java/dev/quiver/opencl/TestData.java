package dev.quiver.opencl;

import dev.quiver.types.ElementType;
import java.util.SplittableRandom;

/**
 * Random values of each element type, mixed with the values that break kernels: NaN (with
 * payloads and either sign), ±0, ±infinity, subnormals, the extremes, cast and rounding edges,
 * integer extremes and shift counts past the width.
 */
final class TestData {
    private TestData() {}

    static final double[] DOUBLES = {
        Double.NaN,
        Double.longBitsToDouble(0xfff8_0000_0000_0123L),
        Double.longBitsToDouble(0x7ff0_0000_0000_0001L),
        0.0,
        -0.0,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Math.nextDown(Double.MIN_NORMAL),
        -Math.nextDown(Double.MIN_NORMAL),
        Double.MIN_NORMAL,
        3 * Double.MIN_VALUE,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        3.5,
        -3.5,
        0.1,
        -0.1,
        Math.PI,
        -Math.E,
        2.0,
        10.0,
        100.0,
        1e-5,
        0x1p52 + 0.5,
        -0x1p52 - 0.5,
        0x1p53,
        0x1p63,
        -0x1p63,
        0x1p64,
        9.223372036854775E18,
        2147483647.0,
        2147483647.9,
        2147483648.0,
        -2147483648.0,
        -2147483648.9,
        -2147483649.0,
        4294967296.5,
        1e300,
        -1e300,
        1e-300,
        1e154,
        709.78,
        -745.2,
        710.0,
        1 + 0x1p-30,
        1 - 0x1p-30,
        1e22,
        1e23,
    };

    static final float[] FLOATS = {
        Float.NaN,
        Float.intBitsToFloat(0xffc0_0123),
        Float.intBitsToFloat(0x7f80_0001),
        0.0f,
        -0.0f,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        Float.MIN_VALUE,
        -Float.MIN_VALUE,
        Math.nextDown(Float.MIN_NORMAL),
        -Math.nextDown(Float.MIN_NORMAL),
        Float.MIN_NORMAL,
        3 * Float.MIN_VALUE,
        Float.MAX_VALUE,
        -Float.MAX_VALUE,
        1.0f,
        -1.0f,
        0.5f,
        -0.5f,
        1.5f,
        -1.5f,
        2.5f,
        -2.5f,
        3.5f,
        -3.5f,
        0.1f,
        -0.1f,
        (float) Math.PI,
        2.0f,
        10.0f,
        0x1p23f + 0.5f,
        -0x1p23f - 0.5f,
        0x1p24f,
        0x1p31f,
        -0x1p31f,
        0x1p63f,
        -0x1p63f,
        0x1p64f,
        2147483520f,
        1e38f,
        -1e38f,
        1e-38f,
        1e19f,
        88.72f,
        -103.9f,
        89.0f,
        1 + 0x1p-13f,
        1 - 0x1p-13f,
        1e10f,
        1e11f,
    };

    static final int[] INTS = {
        Integer.MIN_VALUE,
        Integer.MIN_VALUE + 1,
        Integer.MAX_VALUE,
        Integer.MAX_VALUE - 1,
        -1,
        0,
        1,
        2,
        -2,
        3,
        -3,
        7,
        -7,
        31,
        32,
        33,
        63,
        64,
        65,
        -31,
        -32,
        -33,
        46341,
        1 << 16,
        16_777_217,
        -16_777_217,
        0x5555_5555,
        0xAAAA_AAAA,
    };

    static final long[] LONGS = {
        Long.MIN_VALUE,
        Long.MIN_VALUE + 1,
        Long.MAX_VALUE,
        Long.MAX_VALUE - 1,
        -1,
        0,
        1,
        2,
        -2,
        3,
        -3,
        7,
        -7,
        31,
        32,
        63,
        64,
        65,
        127,
        -63,
        -64,
        -65,
        3_037_000_500L,
        (1L << 53) + 1,
        -(1L << 53) - 1,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
        1L << 31,
        (1L << 32) + 5,
        0x5555_5555_5555_5555L,
        0xAAAA_AAAA_AAAA_AAAAL,
    };

    /** A value of {@code type}: a third hostile values, the rest random across magnitudes and bit patterns. */
    static Number any(ElementType type, SplittableRandom r) {
        int pick = r.nextInt(6);
        return switch (type) {
            case FLOAT64 ->
                switch (pick) {
                    case 0, 1 -> DOUBLES[r.nextInt(DOUBLES.length)];
                    case 2 -> Double.longBitsToDouble(r.nextLong());
                    case 3 -> (double) r.nextInt(-100, 100) / (1 << r.nextInt(3)); // integers and halves
                    default -> (r.nextDouble() - 0.5) * Math.scalb(1.0, r.nextInt(-60, 70));
                };
            case FLOAT32 ->
                switch (pick) {
                    case 0, 1 -> FLOATS[r.nextInt(FLOATS.length)];
                    case 2 -> Float.intBitsToFloat(r.nextInt());
                    case 3 -> (float) r.nextInt(-100, 100) / (1 << r.nextInt(3));
                    default -> (float) ((r.nextDouble() - 0.5) * Math.scalb(1.0, r.nextInt(-30, 40)));
                };
            case INT32 ->
                switch (pick) {
                    case 0, 1 -> INTS[r.nextInt(INTS.length)];
                    case 2 -> r.nextInt(-70, 70);
                    default -> r.nextInt() >> r.nextInt(32);
                };
            case INT64 ->
                switch (pick) {
                    case 0, 1 -> LONGS[r.nextInt(LONGS.length)];
                    case 2 -> (long) r.nextInt(-130, 130);
                    default -> r.nextLong() >> r.nextInt(64);
                };
            case BOOL -> r.nextBoolean() ? 1 : 0;
        };
    }
}
