package dev.quiver.kernels;

import dev.quiver.types.DataType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Hostile random columns for the kernel tests: edge values (integer extremes, -1, 0, NaN, ±0.0,
 * ±infinity, subnormals, empty and non-ASCII strings), nulls at a chosen rate, and random
 * garbage written behind the nulls. Seeded: a failing run is replayed with
 * {@code -Dquiver.seed=<seed>}.
 */
final class HostileColumns {
    /** Batch sizes: empty, one row, around a 64-row word, 1000, and (see {@link #sizes}) around the kernels' 1024-row chunks. */
    private static final int[] SIZES = {0, 1, 63, 64, 65, 1000};

    private static final int[] CHUNK_SIZES = {1024, 1025, 2100};
    /** Null rates: none, some, half, all. */
    static final double[] NULL_RATES = {0.0, 0.1, 0.5, 1.0};

    final long seed;
    final Random rnd;

    /** Values for one test: seeded from the run's seed and {@code label}, so one test replays alone too. */
    HostileColumns(long seed, String label) {
        this.seed = seed;
        this.rnd = new Random(seed ^ label.hashCode() * 0x9E3779B97F4A7C15L);
    }

    /** The run's seed: {@code -Dquiver.seed=<n>}, or a new one (also for {@code -Dquiver.seed=random}); printed. */
    static long seed(Class<?> test) {
        String property = System.getProperty("quiver.seed");
        long seed = property == null || property.equals("random") ? System.nanoTime() : Long.parseLong(property);
        System.out.println(test.getSimpleName() + " seed " + seed + " (replay with -Dquiver.seed=" + seed + ")");
        return seed;
    }

    /** The batch sizes of one randomized case: every size of {@link #SIZES} and one that crosses a chunk boundary. */
    int[] sizes() {
        int[] out = Arrays.copyOf(SIZES, SIZES.length + 1);
        out[SIZES.length] = CHUNK_SIZES[rnd.nextInt(CHUNK_SIZES.length)];
        return out;
    }

    /** Values of a column: {@code n} values, null with probability {@code nullRate}; {@code tame}: mostly small values. */
    List<Object> column(DataType t, int n, double nullRate, boolean tame) {
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(rnd.nextDouble() < nullRate ? null : value(t, tame));
        }
        return out;
    }

    /** A non-null value of {@code t}. */
    Object value(DataType t, boolean tame) {
        return switch (t) {
            case DataType.Bool _ -> rnd.nextBoolean();
            case DataType.Int i -> integer(i, tame);
            case DataType.FloatingPoint f ->
                f.bitWidth() == 32 ? (Object) (float) floating(tame, true) : (Object) floating(tame, false);
            case DataType.Decimal d -> decimal(d, tame);
            case DataType.Date32 _ -> (int) longIn(Integer.MIN_VALUE, Integer.MAX_VALUE, tame ? 100_000 : -1);
            case DataType.Timestamp _ -> longIn(Long.MIN_VALUE, Long.MAX_VALUE, tame ? 1_000_000_000L : -1);
            case DataType.Utf8 _ -> string();
            case DataType.Binary _ -> bytes();
            default -> throw new IllegalArgumentException("no random values of " + t);
        };
    }

    private long longIn(long min, long max, long tameBound) {
        int pick = rnd.nextInt(10);
        if (tameBound > 0 && pick < 8) {
            long lo = Math.max(min, -tameBound);
            return lo + (long) (rnd.nextDouble() * (Math.min(max, tameBound) - lo + 1));
        }
        return switch (pick % 5) {
            case 0 -> min;
            case 1 -> max;
            case 2 -> min + rnd.nextInt(3);
            case 3 -> max - rnd.nextInt(3);
            default -> {
                long r = rnd.nextLong();
                // r mod (max - min + 1) into the range, for every width but 64 bits (where r is already in it).
                yield min == Long.MIN_VALUE && max == Long.MAX_VALUE ? r : min + Math.floorMod(r, max - min + 1);
            }
        };
    }

    private Object integer(DataType.Int t, boolean tame) {
        FixedWidth.IntKind k = FixedWidth.intKind(t);
        if (t.equals(DataType.UINT64)) {
            BigInteger two64 = BigInteger.ONE.shiftLeft(64);
            long bits = switch (rnd.nextInt(tame ? 2 : 8)) {
                case 0, 1 -> rnd.nextInt(1000);
                case 2 -> -1L;
                case 3 -> -2L;
                case 4 -> Long.MIN_VALUE;
                case 5 -> Long.MAX_VALUE;
                case 6 -> rnd.nextInt(3);
                default -> rnd.nextLong();
            };
            BigInteger v = BigInteger.valueOf(bits);
            return v.signum() < 0 ? v.add(two64) : v;
        }
        long small = tame ? (k.signed ? 100 : 200) : 3;
        long v;
        int pick = rnd.nextInt(10);
        if (pick < (tame ? 9 : 3)) {
            long lo = k.signed ? -small : 0;
            v = Math.max(k.min, lo + rnd.nextLong(2 * small + 1));
            v = Math.min(v, k.max);
        } else {
            v = switch (pick % 6) {
                case 0 -> k.min;
                case 1 -> k.max;
                case 2 -> k.signed ? -1 : k.max - 1;
                case 3 -> k.min + 1;
                case 4 -> 0;
                default -> k.wide() ? rnd.nextLong() : k.min + Math.floorMod(rnd.nextLong(), k.max - k.min + 1);
            };
        }
        return switch (t.bitWidth()) {
            case 8 -> t.signed() ? (Object) (byte) v : (Object) (short) v;
            case 16 -> t.signed() ? (Object) (short) v : (Object) (int) v;
            case 32 -> t.signed() ? (Object) (int) v : (Object) v;
            default -> v;
        };
    }

    private static final double[] FLOAT_EDGES = {
        Double.NaN,
        0.0,
        -0.0,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        Double.MIN_NORMAL,
        1.0,
        -1.0,
        0.5,
        3.0
    };
    private static final float[] FLOAT32_EDGES = {
        Float.NaN,
        0f,
        -0f,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        Float.MIN_VALUE,
        -Float.MIN_VALUE,
        Float.MAX_VALUE,
        -Float.MAX_VALUE,
        Float.MIN_NORMAL,
        1f,
        -1f,
        0.5f,
        3f
    };

    private double floating(boolean tame, boolean f32) {
        if (rnd.nextInt(10) < (tame ? 1 : 4)) {
            return f32
                    ? FLOAT32_EDGES[rnd.nextInt(FLOAT32_EDGES.length)]
                    : FLOAT_EDGES[rnd.nextInt(FLOAT_EDGES.length)];
        }
        // Few distinct values, so equal pairs are common.
        return rnd.nextBoolean() ? rnd.nextInt(7) - 3 : (rnd.nextDouble() - 0.5) * 1000;
    }

    private BigDecimal decimal(DataType.Decimal d, boolean tame) {
        BigInteger max = BigInteger.TEN.pow(d.precision()).subtract(BigInteger.ONE);
        BigInteger u = switch (rnd.nextInt(tame ? 3 : 8)) {
            case 0, 1 -> BigInteger.valueOf(rnd.nextInt(2001) - 1000);
            case 2 -> BigInteger.valueOf(rnd.nextInt(3) - 1);
            case 3 -> max;
            case 4 -> max.negate();
            default ->
                new BigInteger(max.bitLength() + 2, rnd)
                        .mod(max.add(BigInteger.ONE))
                        .multiply(BigInteger.valueOf(rnd.nextBoolean() ? 1 : -1));
        };
        if (u.abs().compareTo(max) > 0) {
            u = u.signum() < 0 ? max.negate() : max;
        }
        return new BigDecimal(u, d.scale());
    }

    private static final String[] STRINGS = {
        "",
        "a",
        "ab",
        "abc",
        "b",
        "é",
        "e\u0301",
        "\uD83D\uDE00",
        "\uFFFF",
        "abcdefghij",
        "abcdefghijklmnopq",
        "abcdefghijklmnopr",
        "zz",
        "\u0000",
        "A"
    };

    private String string() {
        if (rnd.nextInt(3) > 0) {
            return STRINGS[rnd.nextInt(STRINGS.length)];
        }
        StringBuilder sb = new StringBuilder(STRINGS[rnd.nextInt(STRINGS.length)]);
        int extra = rnd.nextInt(20);
        for (int i = 0; i < extra; i++) {
            sb.appendCodePoint(
                    switch (rnd.nextInt(4)) {
                        case 0 -> 'a' + rnd.nextInt(3);
                        case 1 -> 0xE9;
                        case 2 -> 0x1F600 + rnd.nextInt(2);
                        default -> 0x7F + rnd.nextInt(3);
                    });
        }
        return sb.toString();
    }

    private byte[] bytes() {
        byte[] b = new byte[rnd.nextInt(12)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte)
                    switch (rnd.nextInt(4)) {
                        case 0 -> 0;
                        case 1 -> 0xFF;
                        case 2 -> 0x7F + rnd.nextInt(3);
                        default -> 'a' + rnd.nextInt(2);
                    };
        }
        return b;
    }

    private static final byte[] GARBAGE = {0, (byte) 0xFF, (byte) 0x80, 0x7F, 0x01};

    /** Writes random bytes behind every null row of a fixed-width vector (random bits for Booleans). */
    void scribble(FieldVector v, List<Object> values) {
        if (v.getField().getType() instanceof ArrowType.Bool) {
            ArrowBuf data = v.getDataBuffer();
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i) == null) {
                    ResultVector.setBit(data, i, rnd.nextBoolean());
                }
            }
        } else if (v instanceof BaseFixedWidthVector f) {
            ArrowBuf data = f.getDataBuffer();
            int w = f.getTypeWidth();
            // One garbage pattern per column, sometimes varied per row.
            byte pattern = GARBAGE[rnd.nextInt(GARBAGE.length)];
            boolean vary = rnd.nextBoolean();
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i) == null) {
                    for (int k = 0; k < w; k++) {
                        data.setByte((long) i * w + k, vary ? (byte) rnd.nextInt() : pattern);
                    }
                }
            }
        }
    }

    static List<Object> nulls(int n) {
        return Arrays.asList(new Object[n]);
    }
}
