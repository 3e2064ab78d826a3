package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * Random hostile columns for the predicate kernel tests (IN, BETWEEN, LIKE): values drawn from a
 * per-type pool with the edge values, nulls with random garbage behind them (a fixed-width slot
 * holds another value, a string slot a non-empty string), and independent SQL references for
 * equality and order.
 */
final class PredicateTestData {
    static final int[] BATCH_SIZES = {0, 1, 63, 64, 65, 1000};

    /** How many rows of a column are NULL. */
    enum Nulls {
        NONE,
        SOME,
        ALL
    }

    private PredicateTestData() {}

    /** The seed of a randomized test: {@code -Dquiver.seed=<n>} replays one; printed either way. */
    static long seed(String test) {
        long seed = Long.getLong("quiver.seed", System.nanoTime());
        System.out.println(test + " seed " + seed + " (replay with -Dquiver.seed=" + seed + ")");
        return seed;
    }

    /**
     * A vector of {@code values} (null entries are NULL) whose null slots hold garbage: the vector
     * is written with a random non-null value in every slot, then those slots' validity is cleared.
     */
    static FieldVector vectorWithGarbage(
            DataType type, List<Object> values, List<Object> pool, Random random, BufferAllocator allocator) {
        List<Object> filled = new ArrayList<>(values.size());
        List<Object> nonNullPool = pool.stream().filter(o -> o != null).toList();
        for (Object v : values) {
            filled.add(v != null || nonNullPool.isEmpty() ? v : nonNullPool.get(random.nextInt(nonNullPool.size())));
        }
        FieldVector vector = Values.of(type, "in", filled, allocator);
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                BitVectorHelper.unsetBit(vector.getValidityBuffer(), i);
            }
        }
        return vector;
    }

    /** {@code rows} values drawn from {@code pool}, with {@code nulls} NULL rows. */
    static List<Object> column(List<Object> pool, int rows, Nulls nulls, Random random) {
        List<Object> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            boolean isNull = nulls == Nulls.ALL || (nulls == Nulls.SOME && random.nextInt(5) == 0);
            out.add(isNull ? null : pool.get(random.nextInt(pool.size())));
        }
        return out;
    }

    /** A pool of values of {@code type}: its edge values and random ones (some close together, some far apart). */
    static List<Object> pool(DataType type, Random r) {
        List<Object> p = new ArrayList<>();
        switch (type) {
            case DataType.Bool _ -> p.addAll(List.of(true, false));
            case DataType.Int i
            when i.signed() -> {
                long min = -(1L << (i.bitWidth() - 1));
                long max = (1L << (i.bitWidth() - 1)) - 1;
                for (long v : new long[] {min, max, 0, -1, 1, min + 1, max - 1}) {
                    p.add(box(i, v));
                }
                for (int k = 0; k < 30; k++) {
                    p.add(box(
                            i, k % 2 == 0 ? r.nextInt(40) - 20 : min + (long) (r.nextDouble() * ((double) max - min))));
                }
            }
            case DataType.Int i -> {
                if (i.bitWidth() == 64) {
                    BigInteger top = BigInteger.ONE.shiftLeft(64);
                    for (BigInteger v : List.of(
                            BigInteger.ZERO,
                            BigInteger.ONE,
                            top.subtract(BigInteger.ONE),
                            BigInteger.ONE.shiftLeft(63),
                            BigInteger.ONE.shiftLeft(63).subtract(BigInteger.ONE))) {
                        p.add(v);
                    }
                    for (int k = 0; k < 30; k++) {
                        p.add(k % 2 == 0 ? BigInteger.valueOf(r.nextInt(40)) : new BigInteger(64, r));
                    }
                } else {
                    long max = (1L << i.bitWidth()) - 1;
                    for (long v : new long[] {0, 1, max, max - 1, max / 2, max / 2 + 1}) {
                        p.add(box(i, v));
                    }
                    for (int k = 0; k < 30; k++) {
                        p.add(box(i, k % 2 == 0 ? r.nextInt(40) : (long) (r.nextDouble() * max)));
                    }
                }
            }
            case DataType.FloatingPoint f -> {
                double[] edges = {
                    Double.NaN,
                    -0.0,
                    0.0,
                    Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY,
                    1.0,
                    -1.0,
                    0.5,
                    f.bitWidth() == 32 ? Float.MIN_VALUE : Double.MIN_VALUE,
                    f.bitWidth() == 32 ? Float.MAX_VALUE : Double.MAX_VALUE,
                    f.bitWidth() == 32 ? -Float.MAX_VALUE : -Double.MAX_VALUE
                };
                for (double d : edges) {
                    p.add(f.bitWidth() == 32 ? (Object) (float) d : (Object) d);
                }
                p.add(
                        f.bitWidth() == 32
                                ? (Object) Float.intBitsToFloat(0x7fc00001)
                                : (Object) Double.longBitsToDouble(0x7ff8000000000001L));
                for (int k = 0; k < 30; k++) {
                    double d = k % 2 == 0 ? r.nextInt(20) / 4.0 - 2 : r.nextGaussian() * 1e6;
                    p.add(f.bitWidth() == 32 ? (Object) (float) d : (Object) d);
                }
            }
            case DataType.Decimal d -> {
                BigDecimal big =
                        BigDecimal.TEN.pow(d.precision() - d.scale()).subtract(BigDecimal.ONE.movePointLeft(d.scale()));
                for (BigDecimal v : List.of(
                        BigDecimal.ZERO,
                        BigDecimal.ONE,
                        big,
                        big.negate(),
                        BigDecimal.ONE.movePointLeft(d.scale()),
                        new BigDecimal("9223372036854775807").movePointLeft(d.scale()),
                        new BigDecimal("9223372036854775808").movePointLeft(d.scale()),
                        new BigDecimal("-9223372036854775808").movePointLeft(d.scale()),
                        new BigDecimal("-9223372036854775809").movePointLeft(d.scale()))) {
                    p.add(v.setScale(d.scale()));
                }
                for (int k = 0; k < 30; k++) {
                    BigInteger unscaled = k % 2 == 0
                            ? BigInteger.valueOf(r.nextInt(40) - 20)
                            : new BigInteger(100, r).mod(BigInteger.TEN.pow(d.precision()));
                    p.add(new BigDecimal(r.nextBoolean() ? unscaled : unscaled.negate(), d.scale()));
                }
                BigInteger limit = BigInteger.TEN.pow(d.precision());
                p.removeIf(v -> ((BigDecimal) v).unscaledValue().abs().compareTo(limit) >= 0); // beyond the precision
            }
            case DataType.Utf8 _ -> {
                p.addAll(List.of(
                        "",
                        "a",
                        "A",
                        "ab",
                        "abc",
                        "ABC",
                        "aBc",
                        "%",
                        "_",
                        "\\",
                        "!",
                        "a%b",
                        "a_b",
                        "ſ",
                        "S",
                        "s",
                        "K",
                        "\u212A",
                        "k",
                        "é",
                        "É",
                        "😀",
                        "日本語",
                        "a😀c",
                        "a日xy",
                        "日x",
                        "a😀xy",
                        "naïve",
                        "straße",
                        "STRASSE",
                        "abcdefghijklmnop",
                        "abcdefghijklmnopq",
                        "abcdefghijklmnopr",
                        "abcdefghijklmnopqrstuvwxyz-1",
                        "abcdefghijklmnopqrstuvwxyz-2",
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-the-quick-brown-fox"));
                String alphabet = "abcAB%_\\!éÉſ😀日 ";
                int[] cps = alphabet.codePoints().toArray();
                for (int k = 0; k < 40; k++) {
                    StringBuilder sb = new StringBuilder();
                    int n = r.nextInt(k % 4 == 0 ? 40 : 8);
                    for (int j = 0; j < n; j++) {
                        sb.appendCodePoint(cps[r.nextInt(cps.length)]);
                    }
                    p.add(sb.toString());
                }
            }
            case DataType.Binary _ -> {
                p.addAll(List.of(
                        new byte[0],
                        new byte[] {0},
                        new byte[] {(byte) 0xFF},
                        new byte[] {0, 0},
                        new byte[17],
                        "abc".getBytes(),
                        "abcdefghijklmnopq".getBytes(),
                        "abcdefghijklmnopr".getBytes()));
                for (int k = 0; k < 30; k++) {
                    byte[] bytes = new byte[r.nextInt(k % 3 == 0 ? 40 : 6)];
                    r.nextBytes(bytes);
                    p.add(bytes);
                }
            }
            case DataType.Date32 _ -> {
                p.addAll(List.of(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 1, 19_000));
                for (int k = 0; k < 30; k++) {
                    p.add(k % 2 == 0 ? 19_000 + r.nextInt(40) : r.nextInt());
                }
            }
            case DataType.Timestamp _ -> {
                p.addAll(List.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L));
                for (int k = 0; k < 30; k++) {
                    p.add(k % 2 == 0 ? 1_700_000_000_000_000L + r.nextInt(40) : r.nextLong());
                }
            }
            default -> throw new IllegalArgumentException("no pool for " + type);
        }
        return p;
    }

    private static Object box(DataType.Int i, long v) {
        if (i.signed()) {
            return switch (i.bitWidth()) {
                case 8 -> (byte) v;
                case 16 -> (short) v;
                case 32 -> (int) v;
                default -> v;
            };
        }
        return switch (i.bitWidth()) {
            case 8 -> (short) v;
            case 16 -> (int) v;
            default -> v;
        };
    }

    /** SQL equality of two non-null values of one type: floats in the total order (-0.0 = 0.0, NaN = NaN), decimals by value. */
    static boolean sqlEquals(Object a, Object b) {
        return compare(a, b) == 0;
    }

    /** SQL order of two non-null values of one type (floats: NaN above everything, -0.0 = 0.0; strings by code point; bytes unsigned). */
    static int compare(Object a, Object b) {
        return switch (a) {
            case Float x -> compareFloats(x, (Float) b);
            case Double x -> compareFloats(x, (Double) b);
            case BigDecimal x -> x.compareTo((BigDecimal) b);
            case BigInteger x -> x.compareTo((BigInteger) b);
            case Boolean x -> Boolean.compare(x, (Boolean) b);
            case String x ->
                Arrays.compare(
                        x.codePoints().toArray(), ((String) b).codePoints().toArray());
            case byte[] x -> Arrays.compareUnsigned(x, (byte[]) b);
            case Number x -> Long.compare(x.longValue(), ((Number) b).longValue());
            default -> throw new IllegalArgumentException("cannot compare " + a.getClass());
        };
    }

    private static int compareFloats(double x, double y) {
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Boolean.compare(Double.isNaN(x), Double.isNaN(y));
        }
        return x < y ? -1 : x > y ? 1 : 0; // IEEE: -0.0 == 0.0
    }

    /** Kleene AND. */
    static Boolean and(Boolean a, Boolean b) {
        if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
            return false;
        }
        return a == null || b == null ? null : true;
    }

    static Boolean not(Boolean a) {
        return a == null ? null : !a;
    }

    /** A value for messages: byte arrays as hex, floats with their bits. */
    static String show(Object o) {
        return switch (o) {
            case null -> "NULL";
            case byte[] b -> "0x" + HexFormat.of().formatHex(b);
            case Double d -> d + "(" + Long.toHexString(Double.doubleToRawLongBits(d)) + ")";
            case Float f -> f + "f(" + Integer.toHexString(Float.floatToRawIntBits(f)) + ")";
            case String s -> "'" + s + "'";
            default -> o.toString();
        };
    }

    /**
     * {@code result}, after checking that an array result's validity bits past its last row (in
     * its last byte) are clear, as every kernel leaves them.
     */
    static ColumnarValue cleanTail(ColumnarValue result) {
        if (result instanceof ColumnarValue.Array a) {
            int rows = a.vector().getValueCount();
            ArrowBuf validity = a.vector().getValidityBuffer();
            for (int i = rows; i < ((rows + 7) & ~7); i++) {
                if (((validity.getByte(i >>> 3) >>> (i & 7)) & 1) != 0) {
                    throw new AssertionError("validity bit " + i + " past the last row (" + rows + " rows) is set");
                }
            }
        }
        return result;
    }
}
