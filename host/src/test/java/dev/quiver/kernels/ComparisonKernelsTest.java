package dev.quiver.kernels;

import static dev.quiver.expr.Operator.EQ;
import static dev.quiver.expr.Operator.GT;
import static dev.quiver.expr.Operator.GT_EQ;
import static dev.quiver.expr.Operator.IS_DISTINCT_FROM;
import static dev.quiver.expr.Operator.IS_NOT_DISTINCT_FROM;
import static dev.quiver.expr.Operator.LT;
import static dev.quiver.expr.Operator.LT_EQ;
import static dev.quiver.expr.Operator.NOT_EQ;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class ComparisonKernelsTest extends KernelTestBase {
    private static final long SEED = HostileColumns.seed(ComparisonKernelsTest.class);
    private static final Operator[] ALL = {EQ, NOT_EQ, LT, LT_EQ, GT, GT_EQ, IS_DISTINCT_FROM, IS_NOT_DISTINCT_FROM};

    /**
     * Checks every operator on pairs whose order is given: {@code order[i]} is -1, 0 or 1 for
     * {@code l[i]} vs {@code r[i]}, or null when either side is null.
     */
    private void checkOrder(DataType lt, DataType rt, List<Object> l, List<Object> r, List<Integer> order) {
        for (Operator op : ALL) {
            List<Object> expected = new ArrayList<>();
            for (int i = 0; i < order.size(); i++) {
                Integer c = order.get(i);
                boolean bothNull = l.get(i) == null && r.get(i) == null;
                expected.add(
                        switch (op) {
                            case IS_DISTINCT_FROM -> c == null ? !bothNull : c != 0;
                            case IS_NOT_DISTINCT_FROM -> c == null ? bothNull : c == 0;
                            case EQ -> c == null ? null : c == 0;
                            case NOT_EQ -> c == null ? null : c != 0;
                            case LT -> c == null ? null : c < 0;
                            case LT_EQ -> c == null ? null : c <= 0;
                            case GT -> c == null ? null : c > 0;
                            case GT_EQ -> c == null ? null : c >= 0;
                            default -> throw new AssertionError(op);
                        });
            }
            assertBinary((a, b, rows) -> Kernels.compare(op, a, b, rows, allocator), lt, rt, l, r, expected);
        }
    }

    private void checkOrder(DataType t, List<Object> l, List<Object> r, List<Integer> order) {
        checkOrder(t, t, l, r, order);
    }

    private static List<Integer> ints(Integer... v) {
        return Arrays.asList(v);
    }

    @Test
    void signedIntegers() {
        checkOrder(
                DataType.INT32,
                list(1, 2, 2, Integer.MIN_VALUE, null, 5, null),
                list(2, 2, 1, Integer.MAX_VALUE, 1, null, null),
                ints(-1, 0, 1, -1, null, null, null));
        checkOrder(DataType.INT8, list((byte) -128, (byte) 127), list((byte) 127, (byte) -128), ints(-1, 1));
        checkOrder(DataType.INT64, list(Long.MIN_VALUE, 0L), list(Long.MAX_VALUE, -1L), ints(-1, 1));
        checkOrder(DataType.INT16, list((short) -1), list((short) 1), ints(-1));
    }

    @Test
    void unsignedIntegersCompareAsUnsigned() {
        checkOrder(DataType.UINT8, list((short) 200, (short) 1), list((short) 100, (short) 255), ints(1, -1));
        checkOrder(DataType.UINT32, list(4294967295L), list(1L), ints(1));
        BigInteger big = new BigInteger("18446744073709551615");
        checkOrder(DataType.UINT64, list(big, BigInteger.ONE, big), list(BigInteger.ONE, big, big), ints(1, -1, 0));
    }

    @Test
    void floatsUseTheSqlTotalOrder() {
        double nan = Double.NaN;
        double inf = Double.POSITIVE_INFINITY;
        checkOrder(
                DataType.FLOAT64,
                list(-0.0, nan, nan, inf, -inf, 1.0, nan, Double.MIN_VALUE, null),
                list(0.0, nan, inf, nan, -1e308, 1.0, 1.0, 0.0, nan),
                ints(0, 0, 1, -1, -1, 0, 1, 1, null));
        checkOrder(
                DataType.FLOAT32,
                list(-0.0f, Float.NaN, 1.5f),
                list(0.0f, Float.POSITIVE_INFINITY, 2.5f),
                ints(0, 1, -1));
    }

    @Test
    void decimalsOfEqualAndDifferentScales() {
        DataType d52 = new DataType.Decimal(5, 2);
        DataType d41 = new DataType.Decimal(4, 1);
        checkOrder(
                d52,
                d41,
                list(new BigDecimal("1.50"), new BigDecimal("1.51"), new BigDecimal("-1.51"), null),
                list(new BigDecimal("1.5"), new BigDecimal("1.5"), new BigDecimal("-1.5"), new BigDecimal("0.0")),
                ints(0, 1, -1, null));
        DataType d38 = new DataType.Decimal(38, 2);
        BigDecimal huge = new BigDecimal("123456789012345678901234567890.12");
        checkOrder(
                d38,
                list(huge, huge.negate(), new BigDecimal("-0.01"), new BigDecimal("0.01"), huge),
                list(huge.negate(), huge, new BigDecimal("0.01"), new BigDecimal("-0.01"), huge),
                ints(1, -1, -1, 1, 0));
    }

    @Test
    void stringsInCodePointOrder() {
        List<Object> l = list("a", "é", "", "ab", "\uD83D\uDE00", "abcdefghij", "abcdefghijklmnopq", "same", null);
        List<Object> r = list("b", "z", "a", "abc", "\uFFFF", "abcdefghik", "abcdefghijklmnopr", "same", "x");
        List<Integer> order = ints(-1, 1, -1, -1, 1, -1, -1, 0, null);
        checkOrder(DataType.UTF8, l, r, order);
        checkOrder(DataType.LARGE_UTF8, l, r, order);
        checkOrder(DataType.UTF8, DataType.LARGE_UTF8, l, r, order);
    }

    @Test
    void binariesAsUnsignedBytes() {
        checkOrder(
                DataType.BINARY,
                list(new byte[] {1}, new byte[] {(byte) 0xFF}, new byte[] {}, new byte[] {1, 2}),
                list(new byte[] {(byte) 0xFF}, new byte[] {(byte) 0x7F}, new byte[] {0}, new byte[] {1, 2}),
                ints(-1, 1, -1, 0));
    }

    @Test
    void booleansDatesAndTimestamps() {
        checkOrder(
                DataType.BOOLEAN, list(false, true, true, null), list(true, false, true, false), ints(-1, 1, 0, null));
        checkOrder(DataType.DATE32, list(-1, 10, 3), list(1, 10, -3), ints(-1, 0, 1));
        DataType ts = new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null);
        checkOrder(
                ts,
                new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC"),
                list(-5L, 7L),
                list(5L, 7L),
                ints(-1, 0));
    }

    @Test
    void nullTypedOperandsAndDistinctForms() {
        assertEquals(
                list(null, null),
                values(Kernels.compare(EQ, arr(DataType.INT32, 1, null), sc(DataType.INT32, null), 2, allocator), 2));
        assertEquals(
                list(true, false),
                values(
                        Kernels.compare(
                                IS_DISTINCT_FROM, arr(DataType.INT32, 1, null), sc(DataType.INT32, null), 2, allocator),
                        2));
        assertEquals(
                list(true, false),
                values(
                        Kernels.compare(
                                IS_DISTINCT_FROM,
                                arr(DataType.INT32, 1, null),
                                arr(DataType.NULL, null, null),
                                2,
                                allocator),
                        2));
        assertEquals(
                false,
                scalar(Kernels.compare(
                        IS_DISTINCT_FROM, sc(DataType.NULL, null), sc(DataType.NULL, null), 1, allocator)));
        assertEquals(null, scalar(Kernels.compare(LT, sc(DataType.UTF8, null), sc(DataType.UTF8, "a"), 1, allocator)));
    }

    @Test
    void mismatchedTypesAreRejected() {
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.compare(EQ, arr(DataType.INT32, 1), arr(DataType.INT64, 1L), 1, allocator));
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.compare(EQ, arr(DataType.UTF8, "1"), arr(DataType.BINARY, new byte[] {1}), 1, allocator));
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.compare(
                        LT,
                        arr(new DataType.Timestamp(DataType.TimeUnit.SECOND, null), 1L),
                        arr(new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, null), 1L),
                        1,
                        allocator));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.compare(Operator.PLUS, arr(DataType.INT32, 1), arr(DataType.INT32, 1), 1, allocator));
    }

    @Test
    void onlyTheFirstRowsAreRead() {
        ColumnarValue v = arr(DataType.FLOAT64, 1.0, 2.0, 3.0, null, 5.0);
        assertEquals(
                list(false, true, false), values(Kernels.compare(EQ, v, sc(DataType.FLOAT64, 2.0), 3, allocator), 3));
        assertThrows(
                IllegalArgumentException.class, () -> Kernels.compare(EQ, v, sc(DataType.FLOAT64, 2.0), 6, allocator));
    }

    // ---- randomized: every type, operator and operand shape against a per-row reference order

    @Test
    void randomComparisons() {
        HostileColumns random = new HostileColumns(SEED, "randomComparisons");
        DataType tsUs = new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null);
        DataType tsUsUtc = new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC");
        List<DataType[]> pairs = new ArrayList<>();
        for (DataType t : List.of(
                DataType.INT8,
                DataType.INT16,
                DataType.INT32,
                DataType.INT64,
                DataType.UINT8,
                DataType.UINT16,
                DataType.UINT32,
                DataType.UINT64,
                DataType.FLOAT32,
                DataType.FLOAT64,
                DataType.BOOLEAN,
                DataType.DATE32,
                tsUs,
                new DataType.Decimal(5, 2),
                new DataType.Decimal(38, 10),
                DataType.UTF8,
                DataType.LARGE_UTF8,
                DataType.BINARY)) {
            pairs.add(new DataType[] {t, t});
        }
        pairs.add(new DataType[] {tsUs, tsUsUtc});
        pairs.add(new DataType[] {new DataType.Decimal(5, 2), new DataType.Decimal(6, 3)});
        pairs.add(new DataType[] {new DataType.Decimal(38, 2), new DataType.Decimal(10, 0)});
        pairs.add(new DataType[] {new DataType.Decimal(10, 0), new DataType.Decimal(38, 37)});
        pairs.add(new DataType[] {new DataType.Decimal(38, 37), new DataType.Decimal(38, 0)});
        pairs.add(new DataType[] {DataType.UTF8, DataType.LARGE_UTF8});
        for (DataType[] pair : pairs) {
            for (boolean tame : new boolean[] {true, false}) {
                randomCase(random, pair[0], pair[1], tame);
            }
        }
    }

    private void randomCase(HostileColumns random, DataType lt, DataType rt, boolean tame) {
        for (int n : random.sizes()) {
            double nullRate = HostileColumns.NULL_RATES[random.rnd.nextInt(HostileColumns.NULL_RATES.length)];
            // A few distinct values per batch, so that equal pairs are common.
            List<Object> pool = new ArrayList<>();
            for (int k = 0; k < 6; k++) {
                pool.add(random.value(lt, tame));
            }
            List<Object> xs = new ArrayList<>();
            List<Object> ys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                xs.add(random.rnd.nextDouble() < nullRate ? null : pool.get(random.rnd.nextInt(pool.size())));
                ys.add(
                        random.rnd.nextDouble() < nullRate
                                ? null
                                : like(random, rt, pool.get(random.rnd.nextInt(pool.size())), tame));
            }
            Object left = random.rnd.nextInt(8) == 0 ? null : pool.get(random.rnd.nextInt(pool.size()));
            Object right = random.rnd.nextInt(8) == 0
                    ? null
                    : like(random, rt, pool.get(random.rnd.nextInt(pool.size())), tame);
            for (Operator op : ALL) {
                for (boolean vectorApi : new boolean[] {true, false}) {
                    String what = lt + " " + op.sql() + " " + rt + (vectorApi ? "" : " (plain loops)") + ", " + n
                            + " rows, null rate " + nullRate + " (seed " + random.seed + ")";
                    List<Object> aa = new ArrayList<>();
                    List<Object> as = new ArrayList<>();
                    List<Object> sa = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        aa.add(expected(op, xs.get(i), ys.get(i)));
                        as.add(expected(op, xs.get(i), right));
                        sa.add(expected(op, left, ys.get(i)));
                    }
                    assertRows(
                            what + ", array op array",
                            xs,
                            ys,
                            aa,
                            values(
                                    ComparisonKernels.compare(
                                            op,
                                            hostile(random, lt, xs),
                                            hostile(random, rt, ys),
                                            n,
                                            allocator,
                                            vectorApi),
                                    n));
                    assertRows(
                            what + ", array op " + show(right),
                            xs,
                            HostileColumns.nulls(n),
                            as,
                            values(
                                    ComparisonKernels.compare(
                                            op, hostile(random, lt, xs), sc(rt, right), n, allocator, vectorApi),
                                    n));
                    assertRows(
                            what + ", " + show(left) + " op array",
                            HostileColumns.nulls(n),
                            ys,
                            sa,
                            values(
                                    ComparisonKernels.compare(
                                            op, sc(lt, left), hostile(random, rt, ys), n, allocator, vectorApi),
                                    n));
                    for (int i = 0; i < Math.min(n, 3); i++) {
                        assertEquals(
                                aa.get(i),
                                scalar(ComparisonKernels.compare(
                                        op, sc(lt, xs.get(i)), sc(rt, ys.get(i)), n, allocator, vectorApi)),
                                what + ", " + show(xs.get(i)) + " op " + show(ys.get(i)));
                    }
                }
            }
        }
    }

    /** {@code v} (a value of the left type) as a value of {@code t} when it converts exactly, else a random value of {@code t}. */
    private static Object like(HostileColumns random, DataType t, Object v, boolean tame) {
        if (t instanceof DataType.Decimal d && v instanceof BigDecimal b) {
            try {
                BigDecimal c = b.setScale(d.scale(), RoundingMode.UNNECESSARY);
                return c.precision() <= d.precision() ? c : random.value(t, tame);
            } catch (ArithmeticException inexact) {
                return random.value(t, tame);
            }
        }
        return v;
    }

    private static void assertRows(
            String what, List<Object> xs, List<Object> ys, List<Object> expected, List<Object> actual) {
        for (int i = 0; i < expected.size(); i++) {
            if (!Objects.equals(expected.get(i), actual.get(i))) {
                fail(what + ": row " + i + " (" + show(xs.get(i)) + ", " + show(ys.get(i)) + "): expected "
                        + expected.get(i) + ", got " + actual.get(i));
            }
        }
    }

    private static String show(Object v) {
        return v instanceof byte[] b ? Arrays.toString(b) : String.valueOf(v);
    }

    private static Object expected(Operator op, Object x, Object y) {
        if (x == null || y == null) {
            boolean bothNull = x == null && y == null;
            return switch (op) {
                case IS_DISTINCT_FROM -> !bothNull;
                case IS_NOT_DISTINCT_FROM -> bothNull;
                default -> null;
            };
        }
        int c = order(x, y);
        return switch (op) {
            case EQ, IS_NOT_DISTINCT_FROM -> c == 0;
            case NOT_EQ, IS_DISTINCT_FROM -> c != 0;
            case LT -> c < 0;
            case LT_EQ -> c <= 0;
            case GT -> c > 0;
            case GT_EQ -> c >= 0;
            default -> throw new AssertionError(op);
        };
    }

    /** The reference order: numbers by value (floats: -0.0 = 0.0, NaN equal to NaN and above all), strings by code points, bytes unsigned. */
    private static int order(Object x, Object y) {
        return switch (x) {
            case Double a -> floatOrder(a, (Double) y);
            case Float a -> floatOrder(a, (Float) y);
            case BigDecimal a -> Integer.signum(a.compareTo((BigDecimal) y));
            case BigInteger a -> Integer.signum(a.compareTo((BigInteger) y));
            case Number a -> Long.compare(a.longValue(), ((Number) y).longValue());
            case Boolean a -> Boolean.compare(a, (Boolean) y);
            case String a ->
                Integer.signum(Arrays.compare(
                        a.codePoints().toArray(), ((String) y).codePoints().toArray()));
            case byte[] a -> Integer.signum(Arrays.compareUnsigned(a, (byte[]) y));
            default -> throw new AssertionError(x.getClass());
        };
    }

    private static int floatOrder(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return Double.isNaN(a) && Double.isNaN(b) ? 0 : Double.isNaN(a) ? 1 : -1;
        }
        return a == b ? 0 : a < b ? -1 : 1;
    }
}
