package dev.quiver.kernels;

import static dev.quiver.expr.Operator.DIVIDE;
import static dev.quiver.expr.Operator.MINUS;
import static dev.quiver.expr.Operator.MODULO;
import static dev.quiver.expr.Operator.MULTIPLY;
import static dev.quiver.expr.Operator.PLUS;
import static dev.quiver.kernels.ArithmeticMode.CHECKED;
import static dev.quiver.kernels.ArithmeticMode.NULL_ON_ERROR;
import static dev.quiver.kernels.ArithmeticMode.WRAPPING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.expr.ArithmeticCoercion;
import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ArithmeticKernelsTest extends KernelTestBase {
    private static final long SEED = HostileColumns.seed(ArithmeticKernelsTest.class);
    private static final Operator[] OPS = {PLUS, MINUS, MULTIPLY, DIVIDE, MODULO};

    private void check(Operator op, DataType t, List<Object> l, List<Object> r, List<Object> expected) {
        check(op, CHECKED, t, t, t, l, r, expected);
    }

    private void check(
            Operator op, ArithmeticMode mode, DataType t, List<Object> l, List<Object> r, List<Object> expected) {
        check(op, mode, t, t, t, l, r, expected);
    }

    private void check(
            Operator op,
            DataType lt,
            DataType rt,
            DataType result,
            List<Object> l,
            List<Object> r,
            List<Object> expected) {
        check(op, CHECKED, lt, rt, result, l, r, expected);
    }

    private void check(
            Operator op,
            ArithmeticMode mode,
            DataType lt,
            DataType rt,
            DataType result,
            List<Object> l,
            List<Object> r,
            List<Object> expected) {
        assertBinary(
                (a, b, rows) -> Kernels.arithmetic(op, a, b, result, mode, rows, allocator), lt, rt, l, r, expected);
    }

    @Test
    void int32AllOperatorsWrapAndTruncate() {
        int max = Integer.MAX_VALUE;
        int min = Integer.MIN_VALUE;
        List<Object> l = list(7, -7, 7, -7, max, min, null, 3);
        List<Object> r = list(2, 2, -2, -2, 1, -1, 5, null);
        check(PLUS, WRAPPING, DataType.INT32, l, r, list(9, -5, 5, -9, min, max, null, null));
        check(MINUS, WRAPPING, DataType.INT32, l, r, list(5, -9, 9, -5, max - 1, min + 1, null, null));
        check(MULTIPLY, WRAPPING, DataType.INT32, l, r, list(14, -14, -14, 14, max, min, null, null));
        check(DIVIDE, WRAPPING, DataType.INT32, l, r, list(3, -3, -3, 3, max, min, null, null));
        check(MODULO, WRAPPING, DataType.INT32, l, r, list(1, -1, 1, -1, 0, 0, null, null));
    }

    @Test
    void int32OverflowIsAnErrorByDefaultAndNullOnError() {
        int max = Integer.MAX_VALUE;
        int min = Integer.MIN_VALUE;
        List<Object> l = list(7, -7, max, min, null, 3);
        List<Object> r = list(2, 2, 1, -1, 5, null);
        check(PLUS, NULL_ON_ERROR, DataType.INT32, l, r, list(9, -5, null, null, null, null));
        check(MINUS, NULL_ON_ERROR, DataType.INT32, l, r, list(5, -9, max - 1, min + 1, null, null));
        check(MULTIPLY, NULL_ON_ERROR, DataType.INT32, l, r, list(14, -14, max, null, null, null));
        check(DIVIDE, NULL_ON_ERROR, DataType.INT32, l, r, list(3, -3, max, null, null, null));
        check(
                MODULO,
                NULL_ON_ERROR,
                DataType.INT32,
                l,
                r,
                list(1, -1, 0, 0, null, null)); // MIN % -1 is 0, not an overflow
        KernelArithmeticException e = assertThrows(
                KernelArithmeticException.class,
                () -> Kernels.arithmetic(
                        PLUS,
                        arr(DataType.INT32, 1, null, max, max),
                        arr(DataType.INT32, 1, 1, 1, 1),
                        DataType.INT32,
                        4,
                        allocator));
        assertEquals(2, e.row());
        assertTrue(e.getMessage().contains("integer overflow in Int32 + Int32 at row 2"), e.getMessage());
        KernelArithmeticException d = assertThrows(
                KernelArithmeticException.class,
                () -> Kernels.arithmetic(
                        DIVIDE,
                        arr(DataType.INT64, 1L, Long.MIN_VALUE),
                        sc(DataType.INT64, -1L),
                        DataType.INT64,
                        2,
                        allocator));
        assertEquals(1, d.row());
        assertTrue(d.getMessage().contains("integer overflow in Int64 / Int64"), d.getMessage());
        // An overflow behind a null is never looked at.
        assertEquals(
                list(null, 3),
                values(
                        Kernels.arithmetic(
                                PLUS,
                                arr(DataType.INT32, null, 2),
                                garbage((byte) 0x7F, DataType.INT32, null, 1),
                                DataType.INT32,
                                2,
                                allocator),
                        2));
    }

    @Test
    void smallAndWideSignedIntegersWrapAtTheirWidth() {
        check(
                PLUS,
                WRAPPING,
                DataType.INT8,
                list((byte) 127, (byte) -128, null),
                list((byte) 1, (byte) -1, (byte) 1),
                list((byte) -128, (byte) 127, null));
        check(
                MULTIPLY,
                WRAPPING,
                DataType.INT16,
                list((short) 300, (short) -2),
                list((short) 300, (short) 16384),
                list((short) (300 * 300), (short) -32768));
        long lmax = Long.MAX_VALUE;
        long lmin = Long.MIN_VALUE;
        check(PLUS, WRAPPING, DataType.INT64, list(lmax, lmin, 1L), list(1L, -1L, 2L), list(lmin, lmax, 3L));
        check(DIVIDE, WRAPPING, DataType.INT64, list(lmin, -9L, null), list(-1L, 4L, 0L), list(lmin, -2L, null));
        check(MODULO, DataType.INT64, list(lmin, -9L, 9L), list(-1L, 4L, -4L), list(0L, -1L, 1L));
        check(
                MULTIPLY,
                NULL_ON_ERROR,
                DataType.INT8,
                list((byte) 64, (byte) -64, (byte) 11),
                list((byte) 2, (byte) 2, (byte) 11),
                list(null, (byte) -128, (byte) 121));
        check(
                MULTIPLY,
                NULL_ON_ERROR,
                DataType.INT64,
                list(lmax, 1L << 32, -(1L << 31)),
                list(2L, 1L << 31, 1L << 32),
                list(null, null, lmin));
    }

    @Test
    void unsignedIntegersWrapModuloTwoToTheN() {
        check(
                PLUS,
                WRAPPING,
                DataType.UINT8,
                list((short) 255, (short) 0, null),
                list((short) 1, (short) 0, (short) 3),
                list((short) 0, (short) 0, null));
        check(
                MINUS,
                WRAPPING,
                DataType.UINT8,
                list((short) 0, (short) 200),
                list((short) 1, (short) 100),
                list((short) 255, (short) 100));
        check(MULTIPLY, WRAPPING, DataType.UINT8, list((short) 200), list((short) 2), list((short) 144));
        check(
                DIVIDE,
                DataType.UINT8,
                list((short) 200, (short) 255),
                list((short) 3, (short) 16),
                list((short) 66, (short) 15));
        check(MINUS, WRAPPING, DataType.UINT16, list(0), list(1), list(65535));
        check(DIVIDE, DataType.UINT32, list(4294967295L, 10L), list(2L, 3L), list(2147483647L, 3L));
        check(MINUS, WRAPPING, DataType.UINT32, list(0L), list(1L), list(4294967295L));
        check(
                MULTIPLY,
                NULL_ON_ERROR,
                DataType.UINT32,
                list(4294967295L, 65536L, 65535L),
                list(4294967295L, 65536L, 65537L),
                list(null, null, 4294967295L));
        BigInteger max = new BigInteger("18446744073709551615");
        check(
                PLUS,
                WRAPPING,
                DataType.UINT64,
                list(max, BigInteger.ONE),
                list(BigInteger.ONE, BigInteger.TWO),
                list(BigInteger.ZERO, BigInteger.valueOf(3)));
        check(MINUS, WRAPPING, DataType.UINT64, list(BigInteger.ZERO), list(BigInteger.ONE), list(max));
        check(
                MINUS,
                NULL_ON_ERROR,
                DataType.UINT64,
                list(BigInteger.ZERO, max),
                list(BigInteger.ONE, max),
                list(null, BigInteger.ZERO));
        check(
                DIVIDE,
                DataType.UINT64,
                list(max, max, null),
                list(BigInteger.TWO, max, BigInteger.ZERO),
                list(new BigInteger("9223372036854775807"), BigInteger.ONE, null));
        check(MODULO, DataType.UINT64, list(max), list(BigInteger.TEN), list(BigInteger.valueOf(5)));
        KernelArithmeticException e = assertThrows(
                KernelArithmeticException.class,
                () -> Kernels.arithmetic(
                        MINUS,
                        arr(DataType.UINT8, (short) 5),
                        arr(DataType.UINT8, (short) 6),
                        DataType.UINT8,
                        1,
                        allocator));
        assertTrue(e.getMessage().contains("integer overflow in UInt8 - UInt8 at row 0"), e.getMessage());
    }

    @Test
    void integerDivisionByZeroOnAValidRowThrowsNamingTheRow() {
        for (ArithmeticMode mode : List.of(CHECKED, WRAPPING)) {
            for (Operator op : List.of(DIVIDE, MODULO)) {
                KernelArithmeticException e = assertThrows(
                        KernelArithmeticException.class,
                        () -> Kernels.arithmetic(
                                op,
                                arr(DataType.INT32, 1, null, 3, 4),
                                arr(DataType.INT32, 1, 0, 0, 0),
                                DataType.INT32,
                                mode,
                                4,
                                allocator));
                assertEquals(2, e.row());
                assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
                assertTrue(e.getMessage().contains("row 2"), e.getMessage());
            }
        }
        assertThrows(
                KernelArithmeticException.class,
                () -> Kernels.arithmetic(
                        DIVIDE, sc(DataType.INT64, 1L), sc(DataType.INT64, 0L), DataType.INT64, 1, allocator));
        KernelArithmeticException s = assertThrows(
                KernelArithmeticException.class,
                () -> Kernels.arithmetic(
                        DIVIDE,
                        arr(DataType.INT8, null, (byte) 2),
                        sc(DataType.INT8, (byte) 0),
                        DataType.INT8,
                        2,
                        allocator));
        assertEquals(1, s.row());
        // A null dividend hides the zero divisor; a constant zero divisor over only null rows never fails.
        assertEquals(
                list(null, null),
                values(
                        Kernels.arithmetic(
                                DIVIDE,
                                arr(DataType.INT32, null, null),
                                sc(DataType.INT32, 0),
                                DataType.INT32,
                                2,
                                allocator),
                        2));
        // NULL_ON_ERROR: those rows are NULL.
        assertEquals(
                list(1, null, null, 2),
                values(
                        Kernels.arithmetic(
                                DIVIDE,
                                arr(DataType.INT32, 1, null, 3, 4),
                                arr(DataType.INT32, 1, 0, 0, 2),
                                DataType.INT32,
                                NULL_ON_ERROR,
                                4,
                                allocator),
                        4));
        assertEquals(
                list(null, null),
                values(
                        Kernels.arithmetic(
                                MODULO,
                                arr(DataType.INT32, 1, 3),
                                sc(DataType.INT32, 0),
                                DataType.INT32,
                                NULL_ON_ERROR,
                                2,
                                allocator),
                        2));
        assertNull(scalar(Kernels.arithmetic(
                DIVIDE, sc(DataType.INT32, 1), sc(DataType.INT32, 0), DataType.INT32, NULL_ON_ERROR, 1, allocator)));
    }

    @Test
    void floatsAreIeee() {
        double inf = Double.POSITIVE_INFINITY;
        double nan = Double.NaN;
        List<Object> l = list(1.0, -1.0, 0.0, 5.5, -5.5, inf, -0.0, nan, null, 1e308);
        List<Object> r = list(0.0, 0.0, 0.0, 2.0, 2.0, inf, 0.0, 1.0, 0.0, 10.0);
        for (ArithmeticMode mode : ArithmeticMode.values()) {
            check(DIVIDE, mode, DataType.FLOAT64, l, r, list(inf, -inf, nan, 2.75, -2.75, nan, nan, nan, null, 1e307));
            check(
                    MODULO,
                    mode,
                    DataType.FLOAT64,
                    l,
                    r,
                    list(nan, nan, nan, 1.5, -1.5, nan, nan, nan, null, 1e308 % 10.0));
            check(PLUS, mode, DataType.FLOAT64, l, r, list(1.0, -1.0, 0.0, 7.5, -3.5, inf, 0.0, nan, null, 1e308));
            check(MINUS, mode, DataType.FLOAT64, l, r, list(1.0, -1.0, 0.0, 3.5, -7.5, nan, -0.0, nan, null, 1e308));
            check(MULTIPLY, mode, DataType.FLOAT64, l, r, list(0.0, -0.0, 0.0, 11.0, -11.0, inf, -0.0, nan, null, inf));
        }
        check(
                PLUS,
                DataType.FLOAT32,
                list(16777216f, 0.1f, null, Float.MAX_VALUE),
                list(1f, 0.2f, 1f, Float.MAX_VALUE),
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
        check(
                PLUS,
                d52,
                d63,
                new DataType.Decimal(7, 3),
                list(d("1.23"), d("-1.00"), null),
                list(d("0.005"), d("0.001"), d("1.000")),
                list(d("1.235"), d("-0.999"), null));
        check(
                MINUS,
                d52,
                d63,
                new DataType.Decimal(7, 2),
                list(d("1.23"), d("-1.00")),
                list(d("0.005"), d("0.005")),
                list(d("1.23"), d("-1.01")));
        check(
                MULTIPLY,
                d52,
                d41,
                new DataType.Decimal(10, 2),
                list(d("1.25"), d("-1.25"), d("0.00")),
                list(d("1.5"), d("1.5"), d("-3.0")),
                list(d("1.88"), d("-1.88"), d("0.00")));
        check(
                MULTIPLY,
                d52,
                d41,
                new DataType.Decimal(10, 3),
                list(d("1.25"), d("-1.25"), d("0.00")),
                list(d("1.5"), d("1.5"), d("-3.0")),
                list(d("1.875"), d("-1.875"), d("0.000")));
        check(
                DIVIDE,
                d52,
                d52,
                new DataType.Decimal(10, 4),
                list(d("1.00"), d("2.00"), d("-2.00"), null),
                list(d("3.00"), d("3.00"), d("3.00"), d("0.00")),
                list(d("0.3333"), d("0.6667"), d("-0.6667"), null));
        check(
                MODULO,
                d52,
                d41,
                new DataType.Decimal(5, 2),
                list(d("7.50"), d("-7.50")),
                list(d("2.0"), d("2.0")),
                list(d("1.50"), d("-1.50")));
        DataType d38 = new DataType.Decimal(38, 0);
        BigDecimal big = d("99999999999999999999999999999999999998");
        check(
                PLUS,
                d38,
                d38,
                d38,
                list(big, big.negate(), d("1")),
                list(d("1"), d("-1"), d("2")),
                list(big.add(BigDecimal.ONE), big.negate().subtract(BigDecimal.ONE), d("3")));
    }

    @Test
    void decimalOverflowAndDivisionByZeroThrowOrAreNull() {
        DataType d30 = new DataType.Decimal(3, 0);
        for (ArithmeticMode mode : List.of(CHECKED, WRAPPING)) {
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> Kernels.arithmetic(
                            PLUS, arr(d30, d("1"), d("999")), sc(d30, d("1")), d30, mode, 2, allocator));
            assertTrue(e.getMessage().contains("1000") && e.getMessage().contains("row 1"), e.getMessage());
            KernelArithmeticException z = assertThrows(
                    KernelArithmeticException.class,
                    () -> Kernels.arithmetic(
                            DIVIDE, arr(d30, d("1"), d("2")), arr(d30, d("1"), d("0")), d30, mode, 2, allocator));
            assertEquals(1, z.row());
        }
        assertThrows(
                KernelArithmeticException.class,
                () -> Kernels.arithmetic(MODULO, sc(d30, d("1")), sc(d30, d("0")), d30, 1, allocator));
        assertEquals(
                list(d("2"), null, null),
                values(
                        Kernels.arithmetic(
                                PLUS,
                                arr(d30, d("1"), d("999"), null),
                                sc(d30, d("1")),
                                d30,
                                NULL_ON_ERROR,
                                3,
                                allocator),
                        3));
        assertEquals(
                list(d("1"), null),
                values(
                        Kernels.arithmetic(
                                DIVIDE,
                                arr(d30, d("1"), d("2")),
                                arr(d30, d("1"), d("0")),
                                d30,
                                NULL_ON_ERROR,
                                2,
                                allocator),
                        2));
        // A zero divisor behind a null never fails.
        assertEquals(
                list(null, d("1")),
                values(
                        Kernels.arithmetic(MODULO, arr(d30, null, d("3")), arr(d30, d("0"), d("2")), d30, 2, allocator),
                        2));
    }

    @Test
    void dateArithmetic() {
        check(
                PLUS,
                DataType.DATE32,
                DataType.INT32,
                DataType.DATE32,
                list(10, -1, null),
                list(5, 1, 1),
                list(15, 0, null));
        check(MINUS, DataType.DATE32, DataType.INT64, DataType.DATE32, list(10, 0), list(5L, 1L), list(5, -1));
        check(PLUS, DataType.INT32, DataType.DATE32, DataType.DATE32, list(5, null), list(10, 1), list(15, null));
        check(
                MINUS,
                DataType.DATE32,
                DataType.DATE32,
                DataType.INT64,
                list(10, Integer.MIN_VALUE, null),
                list(15, Integer.MAX_VALUE, 0),
                list(-5L, (long) Integer.MIN_VALUE - Integer.MAX_VALUE, null));
        for (ArithmeticMode mode : List.of(CHECKED, WRAPPING)) {
            assertThrows(
                    KernelArithmeticException.class,
                    () -> Kernels.arithmetic(
                            PLUS,
                            arr(DataType.DATE32, 1),
                            sc(DataType.INT64, Long.MAX_VALUE),
                            DataType.DATE32,
                            mode,
                            1,
                            allocator));
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> Kernels.arithmetic(
                            PLUS,
                            arr(DataType.DATE32, Integer.MAX_VALUE),
                            sc(DataType.INT32, 1),
                            DataType.DATE32,
                            mode,
                            1,
                            allocator));
            assertTrue(e.getMessage().contains("Date32 overflow"), e.getMessage());
        }
        assertEquals(
                list(null, 2),
                values(
                        Kernels.arithmetic(
                                PLUS,
                                arr(DataType.DATE32, Integer.MAX_VALUE, 1),
                                sc(DataType.INT64, 1L),
                                DataType.DATE32,
                                NULL_ON_ERROR,
                                2,
                                allocator),
                        2));
        // A huge day count behind a null never fails.
        assertEquals(
                list(null, 2),
                values(
                        Kernels.arithmetic(
                                PLUS,
                                arr(DataType.DATE32, 1, 1),
                                garbage((byte) 0x7F, DataType.INT64, null, 1L),
                                DataType.DATE32,
                                2,
                                allocator),
                        2));
    }

    @Test
    void nullOperandsGiveNulls() {
        assertEquals(
                list(null, null),
                values(
                        Kernels.arithmetic(
                                PLUS,
                                arr(DataType.INT32, 1, 2),
                                sc(DataType.INT32, null),
                                DataType.INT32,
                                2,
                                allocator),
                        2));
        assertNull(scalar(Kernels.arithmetic(
                DIVIDE, sc(DataType.INT32, null), sc(DataType.INT32, 0), DataType.INT32, 1, allocator)));
        assertEquals(
                list(null, null),
                values(
                        Kernels.arithmetic(
                                PLUS,
                                arr(DataType.NULL, null, null),
                                arr(DataType.INT32, 1, 2),
                                DataType.INT32,
                                2,
                                allocator),
                        2));
        // A NULL divisor: no row divides by anything.
        assertEquals(
                list(null, null),
                values(
                        Kernels.arithmetic(
                                DIVIDE,
                                arr(DataType.INT32, 1, 2),
                                sc(DataType.NULL, null),
                                DataType.INT32,
                                2,
                                allocator),
                        2));
    }

    @Test
    void unsupportedOperandTypesAreRejected() {
        UnsupportedOperationException e = assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.arithmetic(
                        PLUS, arr(DataType.INT32, 1), arr(DataType.INT64, 1L), DataType.INT64, 1, allocator));
        assertTrue(e.getMessage().contains("Int32") && e.getMessage().contains("Int64"), e.getMessage());
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.arithmetic(
                        PLUS, arr(DataType.UTF8, "a"), arr(DataType.UTF8, "b"), DataType.UTF8, 1, allocator));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.arithmetic(
                        Operator.EQ, arr(DataType.INT32, 1), arr(DataType.INT32, 1), DataType.INT32, 1, allocator));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.arithmetic(
                        PLUS, arr(DataType.INT32, 1), arr(DataType.INT32, 1), DataType.INT32, 2, allocator),
                "an array shorter than the batch");
    }

    @Test
    void negate() {
        assertEquals(
                list(Integer.MIN_VALUE, -5, 5, null),
                values(Kernels.negate(arr(DataType.INT32, Integer.MIN_VALUE, 5, -5, null), 4, allocator), 4));
        assertEquals(
                list((byte) -128, (byte) -127),
                values(Kernels.negate(arr(DataType.INT8, (byte) -128, (byte) 127), 2, allocator), 2));
        assertEquals(
                list(-0.0, 0.0, Double.NaN, Double.NEGATIVE_INFINITY, null),
                values(
                        Kernels.negate(
                                arr(DataType.FLOAT64, 0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, null),
                                5,
                                allocator),
                        5));
        assertEquals(list(-1.5f), values(Kernels.negate(arr(DataType.FLOAT32, 1.5f), 1, allocator), 1));
        DataType d = new DataType.Decimal(5, 2);
        assertEquals(
                list(d("-1.25"), d("1.25"), null),
                values(Kernels.negate(arr(d, d("1.25"), d("-1.25"), null), 3, allocator), 3));
        assertEquals(-7L, scalar(Kernels.negate(sc(DataType.INT64, 7L), 1, allocator)));
        assertEquals(d("-0.50"), scalar(Kernels.negate(sc(d, d("0.50")), 1, allocator)));
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.negate(arr(DataType.UINT8, (short) 1), 1, allocator));
        assertThrows(UnsupportedOperationException.class, () -> Kernels.negate(arr(DataType.UTF8, "x"), 1, allocator));
        assertEquals(list(), values(Kernels.negate(arr(DataType.INT16), 0, allocator), 0));
    }

    // ---- randomized: every type, operator, mode and operand shape against an exact per-row reference

    /** An expected error at a row: a fragment of the message. */
    private record Failure(String what) {}

    private static final List<DataType> INTEGERS = List.of(
            DataType.INT8,
            DataType.INT16,
            DataType.INT32,
            DataType.INT64,
            DataType.UINT8,
            DataType.UINT16,
            DataType.UINT32,
            DataType.UINT64);

    @Test
    void randomIntegers() {
        HostileColumns random = new HostileColumns(SEED, "randomIntegers");
        for (DataType t : INTEGERS) {
            for (Operator op : OPS) {
                for (ArithmeticMode mode : ArithmeticMode.values()) {
                    randomCase(random, op, mode, t, t, t, true);
                    randomCase(random, op, mode, t, t, t, false);
                }
            }
        }
    }

    @Test
    void randomDates() {
        HostileColumns random = new HostileColumns(SEED, "randomDates");
        for (ArithmeticMode mode : ArithmeticMode.values()) {
            for (boolean tame : new boolean[] {true, false}) {
                for (Operator op : List.of(PLUS, MINUS)) {
                    randomCase(random, op, mode, DataType.DATE32, DataType.INT32, DataType.DATE32, tame);
                    randomCase(random, op, mode, DataType.DATE32, DataType.INT64, DataType.DATE32, tame);
                }
                randomCase(random, PLUS, mode, DataType.INT32, DataType.DATE32, DataType.DATE32, tame);
                randomCase(random, PLUS, mode, DataType.INT64, DataType.DATE32, DataType.DATE32, tame);
                randomCase(random, MINUS, mode, DataType.DATE32, DataType.DATE32, DataType.INT64, tame);
            }
        }
    }

    @Test
    void randomFloats() {
        HostileColumns random = new HostileColumns(SEED, "randomFloats");
        for (DataType t : List.of(DataType.FLOAT32, DataType.FLOAT64)) {
            for (Operator op : OPS) {
                randomCase(random, op, CHECKED, t, t, t, false);
                randomCase(random, op, NULL_ON_ERROR, t, t, t, true);
            }
        }
    }

    @Test
    void randomDecimals() {
        HostileColumns random = new HostileColumns(SEED, "randomDecimals");
        List<DataType[]> pairs = List.of(
                new DataType[] {new DataType.Decimal(5, 2), new DataType.Decimal(6, 3)},
                new DataType[] {new DataType.Decimal(10, 2), new DataType.Decimal(10, 2)},
                new DataType[] {new DataType.Decimal(18, 0), new DataType.Decimal(18, 0)},
                new DataType[] {new DataType.Decimal(18, 4), new DataType.Decimal(3, 0)},
                new DataType[] {new DataType.Decimal(18, 0), new DataType.Decimal(10, 10)},
                new DataType[] {new DataType.Decimal(20, 0), new DataType.Decimal(19, 0)},
                new DataType[] {new DataType.Decimal(38, 10), new DataType.Decimal(38, 10)},
                new DataType[] {new DataType.Decimal(3, 0), new DataType.Decimal(3, 0)});
        for (DataType[] pair : pairs) {
            for (Operator op : OPS) {
                DataType planned = ArithmeticCoercion.arithmetic(op, pair[0], pair[1])
                        .orElseThrow()
                        .result();
                // The planner's result type, and a tight one (the left type) where results overflow and round.
                for (DataType result : List.of(planned, pair[0])) {
                    for (ArithmeticMode mode : List.of(CHECKED, NULL_ON_ERROR)) {
                        randomCase(random, op, mode, pair[0], pair[1], result, true);
                        randomCase(random, op, mode, pair[0], pair[1], result, false);
                    }
                }
            }
        }
    }

    /** One type combination over every batch size, some null rates, and all four operand shapes. */
    private void randomCase(
            HostileColumns random,
            Operator op,
            ArithmeticMode mode,
            DataType lt,
            DataType rt,
            DataType result,
            boolean tame) {
        String expression = lt + " " + op.sql() + " " + rt;
        int[] sizes = random.sizes();
        for (int s = 0; s < sizes.length; s++) {
            int n = sizes[s];
            double nullRate = HostileColumns.NULL_RATES[(s + random.rnd.nextInt(4)) % 4];
            List<Object> xs = random.column(lt, n, nullRate, tame);
            List<Object> ys = random.column(rt, n, nullRate == 1.0 ? 0.1 : nullRate, tame);
            String what = expression + " -> " + result + " " + mode + (tame ? " tame" : " wild") + ", " + n
                    + " rows, null rate " + nullRate + " (seed " + random.seed + ")";
            List<Object> expected = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                expected.add(expected(op, mode, result, xs.get(i), ys.get(i)));
            }
            expectBatch(
                    what + ", array op array",
                    expression,
                    xs,
                    ys,
                    expected,
                    () -> Kernels.arithmetic(
                            op, hostile(random, lt, xs), hostile(random, rt, ys), result, mode, n, allocator));
            Object left = random.rnd.nextInt(10) == 0 ? null : random.value(lt, tame);
            Object right = random.rnd.nextInt(10) == 0 ? null : random.value(rt, tame);
            List<Object> scalarRight = new ArrayList<>();
            List<Object> scalarLeft = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                scalarRight.add(expected(op, mode, result, xs.get(i), right));
                scalarLeft.add(expected(op, mode, result, left, ys.get(i)));
            }
            expectBatch(
                    what + ", array op " + right,
                    expression,
                    xs,
                    HostileColumns.nulls(n),
                    scalarRight,
                    () -> Kernels.arithmetic(op, hostile(random, lt, xs), sc(rt, right), result, mode, n, allocator));
            expectBatch(
                    what + ", " + left + " op array",
                    expression,
                    HostileColumns.nulls(n),
                    ys,
                    scalarLeft,
                    () -> Kernels.arithmetic(op, sc(lt, left), hostile(random, rt, ys), result, mode, n, allocator));
            for (int i = 0; i < Math.min(n, 4); i++) {
                Object x = xs.get(i);
                Object y = ys.get(i);
                Object e = expected(op, mode, result, x, y);
                Supplier<ColumnarValue> run =
                        () -> Kernels.arithmetic(op, sc(lt, x), sc(rt, y), result, mode, n, allocator);
                if (e instanceof Failure f) {
                    KernelArithmeticException ex =
                            assertThrows(KernelArithmeticException.class, run::get, what + ", " + x + " op " + y);
                    assertTrue(
                            ex.getMessage().contains(f.what())
                                    && ex.getMessage().contains(expression),
                            what + ": " + ex.getMessage());
                } else {
                    assertEquals(e, scalar(run.get()), what + ", " + x + " op " + y);
                }
            }
        }
    }

    /** Runs a batch: it must throw at the first failing row, or give exactly the expected values. */
    private void expectBatch(
            String what,
            String expression,
            List<Object> xs,
            List<Object> ys,
            List<Object> expected,
            Supplier<ColumnarValue> run) {
        int first = -1;
        for (int i = 0; i < expected.size() && first < 0; i++) {
            if (expected.get(i) instanceof Failure) {
                first = i;
            }
        }
        if (first >= 0) {
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    run::get,
                    what + ": row " + first + " (" + xs.get(first) + ", " + ys.get(first) + ") should fail");
            String message = e.getMessage();
            assertEquals(first, e.row(), what + ": " + message);
            assertTrue(
                    message.contains(((Failure) expected.get(first)).what()) && message.contains(expression),
                    what + ": " + message);
            return;
        }
        List<Object> actual = values(run.get(), expected.size());
        for (int i = 0; i < expected.size(); i++) {
            if (!Objects.equals(expected.get(i), actual.get(i))) {
                fail(what + ": row " + i + " (" + xs.get(i) + ", " + ys.get(i) + "): expected " + expected.get(i)
                        + ", got " + actual.get(i));
            }
        }
    }

    /** The reference: {@code x op y} computed exactly (BigInteger, BigDecimal, Java floats), then checked against the result type. */
    private static Object expected(Operator op, ArithmeticMode mode, DataType result, Object x, Object y) {
        if (x == null || y == null) {
            return null;
        }
        boolean divides = op == DIVIDE || op == MODULO;
        switch (result) {
            case DataType.FloatingPoint f
            when f.bitWidth() == 32 -> {
                float a = (Float) x;
                float b = (Float) y;
                return switch (op) {
                    case PLUS -> a + b;
                    case MINUS -> a - b;
                    case MULTIPLY -> a * b;
                    case DIVIDE -> a / b;
                    default -> a % b;
                };
            }
            case DataType.FloatingPoint _ -> {
                double a = (Double) x;
                double b = (Double) y;
                return switch (op) {
                    case PLUS -> a + b;
                    case MINUS -> a - b;
                    case MULTIPLY -> a * b;
                    case DIVIDE -> a / b;
                    default -> a % b;
                };
            }
            case DataType.Decimal d -> {
                BigDecimal a = (BigDecimal) x;
                BigDecimal b = (BigDecimal) y;
                if (divides && b.signum() == 0) {
                    return mode == NULL_ON_ERROR ? null : new Failure("division by zero");
                }
                BigDecimal exact = switch (op) {
                    case PLUS -> a.add(b);
                    case MINUS -> a.subtract(b);
                    case MULTIPLY -> a.multiply(b);
                    case DIVIDE -> a.divide(b, d.scale(), RoundingMode.HALF_UP);
                    default -> a.remainder(b);
                };
                BigDecimal v = exact.setScale(d.scale(), RoundingMode.HALF_UP);
                if (v.precision() > d.precision()) {
                    return mode == NULL_ON_ERROR ? null : new Failure("decimal overflow");
                }
                return v;
            }
            default -> {
                BigInteger a = big(x);
                BigInteger b = big(y);
                if (divides && b.signum() == 0) {
                    return mode == NULL_ON_ERROR ? null : new Failure("division by zero");
                }
                BigInteger v = switch (op) {
                    case PLUS -> a.add(b);
                    case MINUS -> a.subtract(b);
                    case MULTIPLY -> a.multiply(b);
                    case DIVIDE -> a.divide(b); // truncates
                    default -> a.remainder(b); // the dividend's sign
                };
                FixedWidth.IntKind k = FixedWidth.intKind(result);
                int bits = k.bytes * 8;
                BigInteger min = k.signed ? BigInteger.ONE.shiftLeft(bits - 1).negate() : BigInteger.ZERO;
                BigInteger max = k.signed
                        ? BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE)
                        : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
                if (v.compareTo(min) >= 0 && v.compareTo(max) <= 0) {
                    return javaValue(result, v);
                }
                if (result instanceof DataType.Date32) {
                    return mode == NULL_ON_ERROR ? null : new Failure("Date32 overflow");
                }
                return switch (mode) {
                    case CHECKED -> new Failure("integer overflow");
                    case NULL_ON_ERROR -> null;
                    case WRAPPING -> {
                        BigInteger wrapped = v.mod(BigInteger.ONE.shiftLeft(bits));
                        yield javaValue(
                                result,
                                k.signed && wrapped.compareTo(max) > 0
                                        ? wrapped.subtract(BigInteger.ONE.shiftLeft(bits))
                                        : wrapped);
                    }
                };
            }
        }
    }

    private static BigInteger big(Object v) {
        return v instanceof BigInteger b ? b : BigInteger.valueOf(((Number) v).longValue());
    }

    /** {@code v} (in range) as the Java class values of {@code t} have. */
    private static Object javaValue(DataType t, BigInteger v) {
        if (t instanceof DataType.Date32) {
            return v.intValueExact();
        }
        DataType.Int i = assertInstanceOf(DataType.Int.class, t);
        return switch (i.bitWidth()) {
            case 8 -> i.signed() ? (Object) v.byteValueExact() : (Object) v.shortValueExact();
            case 16 -> i.signed() ? (Object) v.shortValueExact() : (Object) v.intValueExact();
            case 32 -> i.signed() ? (Object) v.intValueExact() : (Object) v.longValueExact();
            default -> i.signed() ? (Object) v.longValueExact() : v;
        };
    }
}
