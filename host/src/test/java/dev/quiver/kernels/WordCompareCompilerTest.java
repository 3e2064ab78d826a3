package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.kernels.WordCompareCompiler.Lanes;
import dev.quiver.kernels.WordCompareCompiler.Shape;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Every generated loop against a plain Java reference of SQL's total order (NaN equal to NaN and
 * above everything, -0.0 equal to 0.0), over values that stress it: NaNs with payloads and signs,
 * zeros of both signs, infinities, the extremes, and many repeats so that equal pairs are common.
 */
class WordCompareCompilerTest {
    private static final int WORDS = 37;
    private static final int ROWS = 64 * WORDS;
    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Test
    void everyLoopAgreesWithTheTotalOrder() {
        SplittableRandom rnd = new SplittableRandom(20261202);
        try (Arena arena = Arena.ofConfined()) {
            for (Lanes lanes : Lanes.values()) {
                MemorySegment a = arena.allocate((long) ROWS << lanes.shift, 64);
                MemorySegment b = arena.allocate((long) ROWS << lanes.shift, 64);
                long[] pool = pool(lanes, rnd);
                for (int i = 0; i < ROWS; i++) {
                    put(lanes, a, i, pool[rnd.nextInt(pool.length)]);
                    put(lanes, b, i, pool[rnd.nextInt(pool.length)]);
                }
                for (Shape shape : Shape.values()) {
                    if (shape == Shape.NAN_SCALAR && !lanes.floating) {
                        continue;
                    }
                    VectorComparisons.WordCompare loop = WordCompareCompiler.compile(lanes, shape);
                    long[] scalars = shape == Shape.COLUMN
                            ? new long[] {0}
                            : shape == Shape.NAN_SCALAR ? new long[] {nan(lanes)} : nonNan(lanes, pool);
                    for (long s : scalars) {
                        // From word 3 on, over 30 words: the loop must start at `from` and stop after n rows.
                        long[] lt = new long[WORDS];
                        long[] eq = new long[WORDS];
                        lt[30] = 0x5555;
                        eq[30] = 0x5555;
                        loop.words(a, shape == Shape.COLUMN ? b : null, s, 3 * 64, 27 * 64, lt, eq);
                        for (int k = 0; k < 27; k++) {
                            long el = 0;
                            long ee = 0;
                            for (int j = 0; j < 64; j++) {
                                int row = 3 * 64 + 64 * k + j;
                                long x = get(lanes, a, row);
                                long y = shape == Shape.COLUMN ? get(lanes, b, row) : s;
                                int c = order(lanes, x, y);
                                el |= (c < 0 ? 1L : 0) << j;
                                ee |= (c == 0 ? 1L : 0) << j;
                            }
                            String what = lanes + " against " + shape + " " + s + ", word " + k;
                            assertEquals(el, lt[k], what + ": less");
                            assertEquals(ee, eq[k], what + ": equal");
                        }
                        assertEquals(0x5555, lt[30], "a word past n is not written");
                        assertEquals(0x5555, eq[30], "a word past n is not written");
                    }
                }
            }
        }
    }

    @Test
    void integersHaveNoNanLoop() {
        assertThrows(IllegalArgumentException.class, () -> WordCompareCompiler.compile(Lanes.INT32, Shape.NAN_SCALAR));
    }

    /** A handful of values of the type, as bits (floats) or values (integers), hostile ones included. */
    private static long[] pool(Lanes lanes, SplittableRandom rnd) {
        return switch (lanes) {
            case FLOAT64 ->
                new long[] {
                    Double.doubleToRawLongBits(Double.NaN),
                    0xfff8_0000_0000_0001L, // a negative NaN with a payload
                    Double.doubleToRawLongBits(0.0),
                    Double.doubleToRawLongBits(-0.0),
                    Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
                    Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY),
                    Double.doubleToRawLongBits(Double.MAX_VALUE),
                    Double.doubleToRawLongBits(Double.MIN_VALUE),
                    Double.doubleToRawLongBits(rnd.nextDouble(-5, 5)),
                    Double.doubleToRawLongBits(1.5)
                };
            case FLOAT32 ->
                new long[] {
                    Float.floatToRawIntBits(Float.NaN),
                    0xffc0_0001L,
                    Float.floatToRawIntBits(0.0f),
                    Float.floatToRawIntBits(-0.0f),
                    Float.floatToRawIntBits(Float.POSITIVE_INFINITY),
                    Float.floatToRawIntBits(Float.NEGATIVE_INFINITY),
                    Float.floatToRawIntBits(Float.MAX_VALUE),
                    Float.floatToRawIntBits(Float.MIN_VALUE),
                    Float.floatToRawIntBits((float) rnd.nextDouble(-5, 5)),
                    Float.floatToRawIntBits(1.5f)
                };
            case INT32 -> new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0, 1, rnd.nextInt(), 7};
            case INT64 -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1, rnd.nextLong(), 1L << 40};
        };
    }

    private static long[] nonNan(Lanes lanes, long[] pool) {
        return Arrays.stream(pool).filter(v -> !isNan(lanes, v)).toArray();
    }

    private static long nan(Lanes lanes) {
        return lanes == Lanes.FLOAT64 ? Double.doubleToRawLongBits(Double.NaN) : Float.floatToRawIntBits(Float.NaN);
    }

    private static boolean isNan(Lanes lanes, long v) {
        return switch (lanes) {
            case FLOAT64 -> Double.isNaN(Double.longBitsToDouble(v));
            case FLOAT32 -> Float.isNaN(Float.intBitsToFloat((int) v));
            default -> false;
        };
    }

    /** SQL's total order: NaN above everything and equal to itself; -0.0 equal to 0.0. */
    private static int order(Lanes lanes, long x, long y) {
        return switch (lanes) {
            case FLOAT64 -> floats(Double.longBitsToDouble(x), Double.longBitsToDouble(y));
            case FLOAT32 -> floats(Float.intBitsToFloat((int) x), Float.intBitsToFloat((int) y));
            case INT32 -> Integer.compare((int) x, (int) y);
            case INT64 -> Long.compare(x, y);
        };
    }

    private static int floats(double x, double y) {
        boolean xn = Double.isNaN(x);
        boolean yn = Double.isNaN(y);
        if (xn || yn) {
            return xn && yn ? 0 : xn ? 1 : -1;
        }
        return x < y ? -1 : x == y ? 0 : 1;
    }

    private static void put(Lanes lanes, MemorySegment m, int row, long v) {
        switch (lanes) {
            case FLOAT64, INT64 -> m.setAtIndex(LE_LONG, row, v);
            case FLOAT32, INT32 -> m.setAtIndex(LE_INT, row, (int) v);
        }
    }

    private static long get(Lanes lanes, MemorySegment m, int row) {
        return switch (lanes) {
            case FLOAT64, INT64 -> m.getAtIndex(LE_LONG, row);
            case FLOAT32, INT32 -> m.getAtIndex(LE_INT, row);
        };
    }
}
