package dev.quiver.kernels;

import dev.quiver.backend.KernelArithmeticException;
import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;

import static dev.quiver.expr.Operator.DIVIDE;
import static dev.quiver.expr.Operator.MINUS;
import static dev.quiver.expr.Operator.MODULO;
import static dev.quiver.expr.Operator.MULTIPLY;
import static dev.quiver.expr.Operator.PLUS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArithmeticKernelsTest extends KernelTestBase {
    private void check(Operator op, DataType t, List<Object> l, List<Object> r, List<Object> expected) {
        check(op, t, t, t, l, r, expected);
    }

    private void check(Operator op, DataType lt, DataType rt, DataType result, List<Object> l, List<Object> r, List<Object> expected) {
        assertBinary((a, b, rows) -> Kernels.arithmetic(op, a, b, result, rows, allocator), lt, rt, l, r, expected);
    }

    @Test
    void int32AllOperatorsWrapAndTruncate() {
        int max = Integer.MAX_VALUE;
        int min = Integer.MIN_VALUE;
        List<Object> l = list(7, -7, 7, -7, max, min, null, 3);
        List<Object> r = list(2, 2, -2, -2, 1, -1, 5, null);
        check(PLUS, DataType.INT32, l, r, list(9, -5, 5, -9, min, max, null, null));
        check(MINUS, DataType.INT32, l, r, list(5, -9, 9, -5, max - 1, min + 1, null, null));
        check(MULTIPLY, DataType.INT32, l, r, list(14, -14, -14, 14, max, min, null, null));
        check(DIVIDE, DataType.INT32, l, r, list(3, -3, -3, 3, max, min, null, null));
        check(MODULO, DataType.INT32, l, r, list(1, -1, 1, -1, 0, 0, null, null));
    }

    @Test
    void smallAndWideSignedIntegersWrapAtTheirWidth() {
        check(PLUS, DataType.INT8, list((byte) 127, (byte) -128, null), list((byte) 1, (byte) -1, (byte) 1),
                list((byte) -128, (byte) 127, null));
        check(MULTIPLY, DataType.INT16, list((short) 300, (short) -2), list((short) 300, (short) 16384),
                list((short) (300 * 300), (short) -32768));
        long lmax = Long.MAX_VALUE;
        long lmin = Long.MIN_VALUE;
        check(PLUS, DataType.INT64, list(lmax, lmin, 1L), list(1L, -1L, 2L), list(lmin, lmax, 3L));
        check(DIVIDE, DataType.INT64, list(lmin, -9L, null), list(-1L, 4L, 0L), list(lmin, -2L, null));
        check(MODULO, DataType.INT64, list(lmin, -9L, 9L), list(-1L, 4L, -4L), list(0L, -1L, 1L));
    }

    @Test
    void unsignedIntegersWrapModuloTwoToTheN() {
        check(PLUS, DataType.UINT8, list((short) 255, (short) 0, null), list((short) 1, (short) 0, (short) 3), list((short) 0, (short) 0, null));
        check(MINUS, DataType.UINT8, list((short) 0, (short) 200), list((short) 1, (short) 100), list((short) 255, (short) 100));
        check(MULTIPLY, DataType.UINT8, list((short) 200), list((short) 2), list((short) 144));
        check(DIVIDE, DataType.UINT8, list((short) 200, (short) 255), list((short) 3, (short) 16), list((short) 66, (short) 15));
        check(MINUS, DataType.UINT16, list(0), list(1), list(65535));
        check(DIVIDE, DataType.UINT32, list(4294967295L, 10L), list(2L, 3L), list(2147483647L, 3L));
        check(MINUS, DataType.UINT32, list(0L), list(1L), list(4294967295L));
        BigInteger max = new BigInteger("18446744073709551615");
        check(PLUS, DataType.UINT64, list(max, BigInteger.ONE), list(BigInteger.ONE, BigInteger.TWO), list(BigInteger.ZERO, BigInteger.valueOf(3)));
        check(MINUS, DataType.UINT64, list(BigInteger.ZERO), list(BigInteger.ONE), list(max));
        check(DIVIDE, DataType.UINT64, list(max, max, null), list(BigInteger.TWO, max, BigInteger.ZERO),
                list(new BigInteger("9223372036854775807"), BigInteger.ONE, null));
        check(MODULO, DataType.UINT64, list(max), list(BigInteger.TEN), list(BigInteger.valueOf(5)));
    }

    @Test
    void integerDivisionByZeroOnAValidRowThrowsNamingTheRow() {
        for (Operator op : List.of(DIVIDE, MODULO)) {
            KernelArithmeticException e = assertThrows(KernelArithmeticException.class, () -> Kernels.arithmetic(op,
                    arr(DataType.INT32, 1, null, 3, 4), arr(DataType.INT32, 1, 0, 0, 0), DataType.INT32, 4, allocator));
            assertEquals(2, e.row());
            assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
            assertTrue(e.getMessage().contains("row 2"), e.getMessage());
        }
        assertThrows(KernelArithmeticException.class, () -> Kernels.arithmetic(DIVIDE, sc(DataType.INT64, 1L), sc(DataType.INT64, 0L),
                DataType.INT64, 1, allocator));
        assertThrows(KernelArithmeticException.class, () -> Kernels.arithmetic(DIVIDE, arr(DataType.INT8, (byte) 1, (byte) 2),
                sc(DataType.INT8, (byte) 0), DataType.INT8, 2, allocator));
        // A null dividend hides the zero divisor; a constant zero divisor over only null rows never fails.
        assertEquals(list(null, null), values(Kernels.arithmetic(DIVIDE, arr(DataType.INT32, null, null), sc(DataType.INT32, 0),
                DataType.INT32, 2, allocator), 2));
    }

    @Test
    void floatsAreIeee() {
        double inf = Double.POSITIVE_INFINITY;
        double nan = Double.NaN;
        List<Object> l = list(1.0, -1.0, 0.0, 5.5, -5.5, inf, -0.0, nan, null, 1e308);
        List<Object> r = list(0.0, 0.0, 0.0, 2.0, 2.0, inf, 0.0, 1.0, 0.0, 10.0);
        check(DIVIDE, DataType.FLOAT64, l, r, list(inf, -inf, nan, 2.75, -2.75, nan, nan, nan, null, 1e307));
        check(MODULO, DataType.FLOAT64, l, r, list(nan, nan, nan, 1.5, -1.5, nan, nan, nan, null, 1e308 % 10.0));
        check(PLUS, DataType.FLOAT64, l, r, list(1.0, -1.0, 0.0, 7.5, -3.5, inf, 0.0, nan, null, 1e308));
        check(MINUS, DataType.FLOAT64, l, r, list(1.0, -1.0, 0.0, 3.5, -7.5, nan, -0.0, nan, null, 1e308));
        check(MULTIPLY, DataType.FLOAT64, l, r, list(0.0, -0.0, 0.0, 11.0, -11.0, inf, -0.0, nan, null, inf));
        check(PLUS, DataType.FLOAT32, list(16777216f, 0.1f, null, Float.MAX_VALUE), list(1f, 0.2f, 1f, Float.MAX_VALUE),
                list(16777216f, 0.1f + 0.2f, null, Float.POSITIVE_INFINITY));
        check(DIVIDE, DataType.FLOAT32, list(1f, 1f), list(3f, 0f), list(1f / 3f, Float.POSITIVE_INFINITY));
        check(MODULO, DataType.FLOAT32, list(5.5f, -7f), list(2f, 3f), list(1.5f, -1f));
    }

    private static BigDecimal d(String s) {
        return new BigDecimal(s);
    }

    @Test
    void decimalsComputeExactlyAndRoundHalfUp() {
        DataType d52 = new DataType.Decimal(5, 2);
        DataType d63 = new DataType.Decimal(6, 3);
        DataType d41 = new DataType.Decimal(4, 1);
        check(PLUS, d52, d63, new DataType.Decimal(7, 3), list(d("1.23"), d("-1.00"), null), list(d("0.005"), d("0.001"), d("1.000")),
                list(d("1.235"), d("-0.999"), null));
        check(MINUS, d52, d63, new DataType.Decimal(7, 2), list(d("1.23"), d("-1.00")), list(d("0.005"), d("0.005")),
                list(d("1.23"), d("-1.01")));
        check(MULTIPLY, d52, d41, new DataType.Decimal(10, 2), list(d("1.25"), d("-1.25"), d("0.00")), list(d("1.5"), d("1.5"), d("-3.0")),
                list(d("1.88"), d("-1.88"), d("0.00")));
        check(DIVIDE, d52, d52, new DataType.Decimal(10, 4), list(d("1.00"), d("2.00"), d("-2.00"), null), list(d("3.00"), d("3.00"), d("3.00"), d("0.00")),
                list(d("0.3333"), d("0.6667"), d("-0.6667"), null));
        check(MODULO, d52, d41, new DataType.Decimal(5, 2), list(d("7.50"), d("-7.50")), list(d("2.0"), d("2.0")),
                list(d("1.50"), d("-1.50")));
    }

    @Test
    void decimalOverflowAndDivisionByZeroThrow() {
        DataType d30 = new DataType.Decimal(3, 0);
        ArithmeticException e = assertThrows(ArithmeticException.class, () -> Kernels.arithmetic(PLUS,
                arr(d30, d("1"), d("999")), sc(d30, d("1")), d30, 2, allocator));
        assertTrue(e.getMessage().contains("1000") && e.getMessage().contains("row 1"), e.getMessage());
        KernelArithmeticException z = assertThrows(KernelArithmeticException.class, () -> Kernels.arithmetic(DIVIDE,
                arr(d30, d("1"), d("2")), arr(d30, d("1"), d("0")), d30, 2, allocator));
        assertEquals(1, z.row());
        assertThrows(KernelArithmeticException.class, () -> Kernels.arithmetic(MODULO, sc(d30, d("1")), sc(d30, d("0")), d30, 1, allocator));
    }

    @Test
    void dateArithmetic() {
        check(PLUS, DataType.DATE32, DataType.INT32, DataType.DATE32, list(10, -1, null), list(5, 1, 1), list(15, 0, null));
        check(MINUS, DataType.DATE32, DataType.INT64, DataType.DATE32, list(10, 0), list(5L, 1L), list(5, -1));
        check(PLUS, DataType.INT32, DataType.DATE32, DataType.DATE32, list(5, null), list(10, 1), list(15, null));
        check(MINUS, DataType.DATE32, DataType.DATE32, DataType.INT64, list(10, Integer.MIN_VALUE, null), list(15, Integer.MAX_VALUE, 0),
                list(-5L, (long) Integer.MIN_VALUE - Integer.MAX_VALUE, null));
        assertThrows(ArithmeticException.class, () -> Kernels.arithmetic(PLUS, arr(DataType.DATE32, 1), sc(DataType.INT64, Long.MAX_VALUE),
                DataType.DATE32, 1, allocator));
        assertThrows(ArithmeticException.class, () -> Kernels.arithmetic(PLUS, arr(DataType.DATE32, Integer.MAX_VALUE), sc(DataType.INT32, 1),
                DataType.DATE32, 1, allocator));
        // A huge day count behind a null never fails.
        assertEquals(list(null, 2), values(Kernels.arithmetic(PLUS, arr(DataType.DATE32, 1, 1),
                garbage((byte) 0x7F, DataType.INT64, null, 1L), DataType.DATE32, 2, allocator), 2));
    }

    @Test
    void nullOperandsGiveNulls() {
        assertEquals(list(null, null), values(Kernels.arithmetic(PLUS, arr(DataType.INT32, 1, 2), sc(DataType.INT32, null),
                DataType.INT32, 2, allocator), 2));
        assertNull(scalar(Kernels.arithmetic(DIVIDE, sc(DataType.INT32, null), sc(DataType.INT32, 0), DataType.INT32, 1, allocator)));
        assertEquals(list(null, null), values(Kernels.arithmetic(PLUS, arr(DataType.NULL, null, null), arr(DataType.INT32, 1, 2),
                DataType.INT32, 2, allocator), 2));
    }

    @Test
    void unsupportedOperandTypesAreRejected() {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> Kernels.arithmetic(PLUS,
                arr(DataType.INT32, 1), arr(DataType.INT64, 1L), DataType.INT64, 1, allocator));
        assertTrue(e.getMessage().contains("Int32") && e.getMessage().contains("Int64"), e.getMessage());
        assertThrows(UnsupportedOperationException.class, () -> Kernels.arithmetic(PLUS, arr(DataType.UTF8, "a"),
                arr(DataType.UTF8, "b"), DataType.UTF8, 1, allocator));
        assertThrows(IllegalArgumentException.class, () -> Kernels.arithmetic(Operator.EQ, arr(DataType.INT32, 1),
                arr(DataType.INT32, 1), DataType.INT32, 1, allocator));
    }

    @Test
    void negate() {
        assertEquals(list(Integer.MIN_VALUE, -5, 5, null), values(Kernels.negate(arr(DataType.INT32, Integer.MIN_VALUE, 5, -5, null), 4, allocator), 4));
        assertEquals(list((byte) -128, (byte) -127), values(Kernels.negate(arr(DataType.INT8, (byte) -128, (byte) 127), 2, allocator), 2));
        assertEquals(list(-0.0, 0.0, Double.NaN, Double.NEGATIVE_INFINITY, null),
                values(Kernels.negate(arr(DataType.FLOAT64, 0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, null), 5, allocator), 5));
        assertEquals(list(-1.5f), values(Kernels.negate(arr(DataType.FLOAT32, 1.5f), 1, allocator), 1));
        DataType d = new DataType.Decimal(5, 2);
        assertEquals(list(d("-1.25"), d("1.25"), null), values(Kernels.negate(arr(d, d("1.25"), d("-1.25"), null), 3, allocator), 3));
        assertEquals(-7L, scalar(Kernels.negate(sc(DataType.INT64, 7L), 1, allocator)));
        assertEquals(d("-0.50"), scalar(Kernels.negate(sc(d, d("0.50")), 1, allocator)));
        assertThrows(UnsupportedOperationException.class, () -> Kernels.negate(arr(DataType.UINT8, (short) 1), 1, allocator));
        assertThrows(UnsupportedOperationException.class, () -> Kernels.negate(arr(DataType.UTF8, "x"), 1, allocator));
        assertEquals(list(), values(Kernels.negate(arr(DataType.INT16), 0, allocator), 0));
    }
}
