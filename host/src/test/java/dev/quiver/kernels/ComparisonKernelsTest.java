package dev.quiver.kernels;

import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

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

class ComparisonKernelsTest extends KernelTestBase {
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
                expected.add(switch (op) {
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
        return java.util.Arrays.asList(v);
    }

    @Test
    void signedIntegers() {
        checkOrder(DataType.INT32, list(1, 2, 2, Integer.MIN_VALUE, null, 5, null), list(2, 2, 1, Integer.MAX_VALUE, 1, null, null),
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
        checkOrder(DataType.FLOAT64,
                list(-0.0, nan, nan, inf, -inf, 1.0, nan, Double.MIN_VALUE, null),
                list(0.0, nan, inf, nan, -1e308, 1.0, 1.0, 0.0, nan),
                ints(0, 0, 1, -1, -1, 0, 1, 1, null));
        checkOrder(DataType.FLOAT32, list(-0.0f, Float.NaN, 1.5f), list(0.0f, Float.POSITIVE_INFINITY, 2.5f), ints(0, 1, -1));
    }

    @Test
    void decimalsOfEqualAndDifferentScales() {
        DataType d52 = new DataType.Decimal(5, 2);
        DataType d41 = new DataType.Decimal(4, 1);
        checkOrder(d52, d41, list(new BigDecimal("1.50"), new BigDecimal("1.51"), new BigDecimal("-1.51"), null),
                list(new BigDecimal("1.5"), new BigDecimal("1.5"), new BigDecimal("-1.5"), new BigDecimal("0.0")), ints(0, 1, -1, null));
        DataType d38 = new DataType.Decimal(38, 2);
        BigDecimal huge = new BigDecimal("123456789012345678901234567890.12");
        checkOrder(d38, list(huge, huge.negate(), new BigDecimal("-0.01"), new BigDecimal("0.01"), huge),
                list(huge.negate(), huge, new BigDecimal("0.01"), new BigDecimal("-0.01"), huge), ints(1, -1, -1, 1, 0));
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
        checkOrder(DataType.BINARY, list(new byte[]{1}, new byte[]{(byte) 0xFF}, new byte[]{}, new byte[]{1, 2}),
                list(new byte[]{(byte) 0xFF}, new byte[]{(byte) 0x7F}, new byte[]{0}, new byte[]{1, 2}), ints(-1, 1, -1, 0));
    }

    @Test
    void booleansDatesAndTimestamps() {
        checkOrder(DataType.BOOLEAN, list(false, true, true, null), list(true, false, true, false), ints(-1, 1, 0, null));
        checkOrder(DataType.DATE32, list(-1, 10, 3), list(1, 10, -3), ints(-1, 0, 1));
        DataType ts = new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null);
        checkOrder(ts, new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC"), list(-5L, 7L), list(5L, 7L), ints(-1, 0));
    }

    @Test
    void nullTypedOperandsAndDistinctForms() {
        assertEquals(list(null, null), values(Kernels.compare(EQ, arr(DataType.INT32, 1, null), sc(DataType.INT32, null), 2, allocator), 2));
        assertEquals(list(true, false), values(Kernels.compare(IS_DISTINCT_FROM, arr(DataType.INT32, 1, null), sc(DataType.INT32, null), 2, allocator), 2));
        assertEquals(list(true, false), values(Kernels.compare(IS_DISTINCT_FROM, arr(DataType.INT32, 1, null), arr(DataType.NULL, null, null), 2, allocator), 2));
        assertEquals(false, scalar(Kernels.compare(IS_DISTINCT_FROM, sc(DataType.NULL, null), sc(DataType.NULL, null), 1, allocator)));
        assertEquals(null, scalar(Kernels.compare(LT, sc(DataType.UTF8, null), sc(DataType.UTF8, "a"), 1, allocator)));
    }

    @Test
    void mismatchedTypesAreRejected() {
        assertThrows(UnsupportedOperationException.class, () -> Kernels.compare(EQ, arr(DataType.INT32, 1), arr(DataType.INT64, 1L), 1, allocator));
        assertThrows(UnsupportedOperationException.class, () -> Kernels.compare(EQ, arr(DataType.UTF8, "1"), arr(DataType.BINARY, new byte[]{1}), 1, allocator));
        assertThrows(UnsupportedOperationException.class, () -> Kernels.compare(LT,
                arr(new DataType.Timestamp(DataType.TimeUnit.SECOND, null), 1L), arr(new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, null), 1L), 1, allocator));
        assertThrows(IllegalArgumentException.class, () -> Kernels.compare(Operator.PLUS, arr(DataType.INT32, 1), arr(DataType.INT32, 1), 1, allocator));
    }
}
