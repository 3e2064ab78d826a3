package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.EvaluationException;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CastKernelsTest extends KernelTestBase {
    /** Marks a value that does not convert: CAST throws, TRY_CAST gives NULL. */
    private static final Object FAIL = new Object() {
        @Override
        public String toString() {
            return "FAIL";
        }
    };

    private static final DataType TS_S = new DataType.Timestamp(DataType.TimeUnit.SECOND, null);
    private static final DataType TS_MS = new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, null);
    private static final DataType TS_US = new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null);
    private static final DataType TS_NS = new DataType.Timestamp(DataType.TimeUnit.NANOSECOND, "UTC");

    private static BigDecimal d(String s) {
        return new BigDecimal(s);
    }

    /** Checks CAST and TRY_CAST of {@code in} on arrays (with a trailing null row) and on each value as a scalar. */
    private void check(DataType from, DataType to, List<Object> in, List<Object> expected) {
        assertTrue(Kernels.canCast(from, to), from + " -> " + to);
        int n = in.size();
        List<Object> inWithNull = new ArrayList<>(in);
        inWithNull.add(null);
        List<Object> tryExpected = new ArrayList<>();
        int firstFailure = -1;
        for (int i = 0; i < n; i++) {
            boolean fails = expected.get(i) == FAIL;
            tryExpected.add(fails ? null : expected.get(i));
            if (fails && firstFailure < 0) {
                firstFailure = i;
            }
        }
        tryExpected.add(null);
        String what = from + " -> " + to;
        assertEquals(
                normalize(tryExpected),
                normalize(values(Kernels.cast(arr(from, inWithNull.toArray()), to, true, n + 1, allocator), n + 1)),
                "TRY_CAST " + what);
        if (firstFailure < 0) {
            assertEquals(
                    normalize(tryExpected),
                    normalize(
                            values(Kernels.cast(arr(from, inWithNull.toArray()), to, false, n + 1, allocator), n + 1)),
                    "CAST " + what);
        } else {
            EvaluationException e = assertThrows(
                    EvaluationException.class,
                    () -> Kernels.cast(arr(from, inWithNull.toArray()), to, false, n + 1, allocator),
                    "CAST " + what);
            assertTrue(
                    e.getMessage().startsWith("cannot cast ")
                            && e.getMessage().contains("(row " + firstFailure + ") to " + to),
                    e.getMessage());
        }
        for (int i = 0; i < n; i++) {
            ColumnarValue.Scalar s = sc(from, in.get(i));
            if (expected.get(i) == FAIL) {
                EvaluationException e =
                        assertThrows(EvaluationException.class, () -> Kernels.cast(s, to, false, 1, allocator), what);
                assertTrue(
                        e.getMessage().contains("cannot cast") && e.getMessage().contains(to.toString()),
                        e.getMessage());
                assertNull(scalar(Kernels.cast(s, to, true, 1, allocator)), what);
            } else {
                assertEquals(
                        normalize(list(expected.get(i))),
                        normalize(list(scalar(Kernels.cast(s, to, false, 1, allocator)))),
                        what + " scalar " + i);
            }
        }
        assertNull(scalar(Kernels.cast(sc(from, null), to, false, 1, allocator)));
    }

    /** byte[] compared by content. */
    private static List<Object> normalize(List<Object> values) {
        return values.stream()
                .map(o -> o instanceof byte[] b ? (Object) List.of(new String(b, StandardCharsets.ISO_8859_1)) : o)
                .toList();
    }

    @Test
    void integerToInteger() {
        check(DataType.INT64, DataType.INT8, list(127L, 300L, -128L, -129L), list((byte) 127, FAIL, (byte) -128, FAIL));
        check(DataType.INT32, DataType.UINT8, list(255, -1, 0), list((short) 255, FAIL, (short) 0));
        check(DataType.INT32, DataType.UINT64, list(-1, 5), list(FAIL, BigInteger.valueOf(5)));
        BigInteger max = new BigInteger("18446744073709551615");
        check(
                DataType.UINT64,
                DataType.INT64,
                list(max, BigInteger.valueOf(Long.MAX_VALUE)),
                list(FAIL, Long.MAX_VALUE));
        check(DataType.UINT64, DataType.UINT32, list(max, BigInteger.valueOf(4294967295L)), list(FAIL, 4294967295L));
        check(DataType.UINT32, DataType.INT32, list(4294967295L, 2147483647L), list(FAIL, Integer.MAX_VALUE));
        check(DataType.INT8, DataType.INT64, list((byte) -1), list(-1L));
        check(DataType.UINT16, DataType.INT16, list(65535, 32767), list(FAIL, (short) 32767));
    }

    @Test
    void integerToFloat() {
        check(DataType.INT64, DataType.FLOAT32, list(16777217L, -3L), list(16777216f, -3f));
        check(DataType.INT64, DataType.FLOAT64, list(Long.MAX_VALUE), list(9.223372036854775807E18));
        BigInteger big = new BigInteger("9223372036854775809");
        BigInteger max = new BigInteger("18446744073709551615");
        check(DataType.UINT64, DataType.FLOAT64, list(max, big), list(1.8446744073709552E19, 9.223372036854775808E18));
        check(
                DataType.UINT64,
                DataType.FLOAT32,
                list(max, new BigInteger("9223372586610589697")),
                list(1.8446744E19f, new BigDecimal("9223372586610589697").floatValue()));
        check(DataType.UINT8, DataType.FLOAT32, list((short) 255), list(255f));
    }

    @Test
    void floatToIntegerRoundsHalfToEvenAsDuckDbAndPostgres() {
        check(
                DataType.FLOAT64,
                DataType.INT32,
                list(
                        2.5,
                        -2.5,
                        3.5,
                        -3.5,
                        0.49999999999999994,
                        -0.5,
                        1.4,
                        -1.6,
                        2147483647.4,
                        2147483647.5,
                        Double.NaN,
                        Double.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY),
                list(2, -2, 4, -4, 0, 0, 1, -2, Integer.MAX_VALUE, FAIL, FAIL, FAIL, FAIL));
        check(
                DataType.FLOAT64,
                DataType.INT64,
                list(0x1p63, -0x1p63, 4503599627370497.0, 1e20),
                list(FAIL, Long.MIN_VALUE, 4503599627370497L, FAIL));
        check(
                DataType.FLOAT64,
                DataType.UINT64,
                list(0x1p63, 0x1p64, -0.4, -0.5),
                list(new BigInteger("9223372036854775808"), FAIL, BigInteger.ZERO, BigInteger.ZERO));
        check(DataType.FLOAT64, DataType.UINT8, list(255.4, 255.5, -0.4), list((short) 255, FAIL, (short) 0));
        check(
                DataType.FLOAT32,
                DataType.INT16,
                list(32767.4f, -32768.5f, -32769.5f, Float.NaN),
                list((short) 32767, (short) -32768, FAIL, FAIL));
    }

    @Test
    void floatToFloat() {
        check(
                DataType.FLOAT64,
                DataType.FLOAT32,
                list(1e300, 0.1, Double.NaN, Double.NEGATIVE_INFINITY, -0.0, 1e-50),
                list(FAIL, 0.1f, Float.NaN, Float.NEGATIVE_INFINITY, -0.0f, 0.0f));
        check(
                DataType.FLOAT32,
                DataType.FLOAT64,
                list(0.1f, Float.POSITIVE_INFINITY),
                list((double) 0.1f, Double.POSITIVE_INFINITY));
    }

    @Test
    void decimals() {
        DataType d52 = new DataType.Decimal(5, 2);
        DataType d41 = new DataType.Decimal(4, 1);
        check(DataType.INT32, d52, list(123, -999, 1000), list(d("123.00"), d("-999.00"), FAIL));
        check(d52, d41, list(d("1.25"), d("-1.25"), d("999.95"), d("1.24")), list(d("1.3"), d("-1.3"), FAIL, d("1.2")));
        check(d41, d52, list(d("999.9")), list(d("999.90")));
        check(d52, DataType.INT32, list(d("2.50"), d("-2.50"), d("2.49")), list(3, -3, 2));
        check(d52, DataType.INT8, list(d("127.49"), d("127.50")), list((byte) 127, FAIL));
        check(d52, DataType.UINT64, list(d("1.00"), d("-1.00")), list(BigInteger.ONE, FAIL));
        check(d52, DataType.FLOAT64, list(d("1.10"), d("-0.01")), list(1.1, -0.01));
        check(d52, DataType.FLOAT32, list(d("1.10")), list(1.1f));
        check(
                DataType.FLOAT64,
                d52,
                list(0.125, 0.15, Double.NaN, 1e10, -0.005),
                list(d("0.13"), d("0.15"), FAIL, FAIL, d("-0.01")));
        check(DataType.FLOAT32, new DataType.Decimal(3, 1), list(0.15f, 0.25f), list(d("0.2"), d("0.3")));
        check(
                DataType.UINT64,
                new DataType.Decimal(20, 0),
                list(new BigInteger("18446744073709551615")),
                list(d("18446744073709551615")));
    }

    @Test
    void numbersToStrings() {
        check(DataType.INT32, DataType.UTF8, list(-5, 0, Integer.MIN_VALUE), list("-5", "0", "-2147483648"));
        check(
                DataType.UINT64,
                DataType.LARGE_UTF8,
                list(new BigInteger("18446744073709551615")),
                list("18446744073709551615"));
        check(DataType.UINT8, DataType.UTF8, list((short) 255), list("255"));
        check(
                DataType.FLOAT64,
                DataType.UTF8,
                list(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5, 1e20, -0.0),
                list("NaN", "Infinity", "-Infinity", "1.5", "1.0E20", "-0.0"));
        check(DataType.FLOAT32, DataType.UTF8, list(0.1f), list("0.1"));
        check(
                new DataType.Decimal(38, 2),
                DataType.UTF8,
                list(d("1.50"), d("-0.05"), d("123456789012345678901234567890123456.00")),
                list("1.50", "-0.05", "123456789012345678901234567890123456.00"));
    }

    @Test
    void stringsToNumbers() {
        check(
                DataType.UTF8,
                DataType.INT32,
                list(" 42 ", "+7", "-0", "1.5", "99999999999", "", "abc", "\u0663", "1e3"),
                list(42, 7, 0, FAIL, FAIL, FAIL, FAIL, FAIL, FAIL));
        check(
                DataType.LARGE_UTF8,
                DataType.UINT64,
                list("18446744073709551615", "18446744073709551616", "-1"),
                list(new BigInteger("18446744073709551615"), FAIL, FAIL));
        check(DataType.UTF8, DataType.INT8, list("-128", "128"), list((byte) -128, FAIL));
        check(
                DataType.UTF8,
                DataType.FLOAT64,
                list("1e3", " -2.5 ", "inf", "-Infinity", "+INF", "NaN", "nan", "1d", "0x1p3", "1e400", "abc", ""),
                list(
                        1000.0,
                        -2.5,
                        Double.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY,
                        Double.POSITIVE_INFINITY,
                        Double.NaN,
                        Double.NaN,
                        FAIL,
                        FAIL,
                        FAIL,
                        FAIL,
                        FAIL));
        check(
                DataType.UTF8,
                DataType.FLOAT32,
                list("0.1", "3.5e38", "-inf"),
                list(0.1f, FAIL, Float.NEGATIVE_INFINITY));
        DataType d52 = new DataType.Decimal(5, 2);
        check(
                DataType.UTF8,
                d52,
                list("1.005", "1e2", " -3 ", "abc", "1000", "-1.004"),
                list(d("1.01"), d("100.00"), d("-3.00"), FAIL, FAIL, d("-1.00")));
    }

    @Test
    void booleans() {
        check(DataType.BOOLEAN, DataType.INT8, list(true, false), list((byte) 1, (byte) 0));
        check(DataType.BOOLEAN, DataType.UINT64, list(true), list(BigInteger.ONE));
        check(DataType.INT32, DataType.BOOLEAN, list(5, 0, -1), list(true, false, true));
        check(
                DataType.UINT64,
                DataType.BOOLEAN,
                list(new BigInteger("18446744073709551615"), BigInteger.ZERO),
                list(true, false));
        check(
                DataType.UTF8,
                DataType.BOOLEAN,
                list(" TRUE ", "f", "yes", "No", "1", "0", "t", "False", "maybe", ""),
                list(true, false, true, false, true, false, true, false, FAIL, FAIL));
        check(DataType.BOOLEAN, DataType.UTF8, list(true, false), list("true", "false"));
        assertFalse(Kernels.canCast(DataType.BOOLEAN, DataType.FLOAT64));
        assertFalse(Kernels.canCast(new DataType.Decimal(5, 2), DataType.BOOLEAN));
    }

    @Test
    void stringsAndBinaries() {
        check(DataType.UTF8, DataType.LARGE_UTF8, list("héllo", ""), list("héllo", ""));
        check(DataType.LARGE_UTF8, DataType.UTF8, list("日本"), list("日本"));
        check(DataType.UTF8, DataType.BINARY, list("é"), list(new byte[] {(byte) 0xC3, (byte) 0xA9}));
        check(
                DataType.BINARY,
                DataType.UTF8,
                list(new byte[] {(byte) 0xC3, (byte) 0xA9}, new byte[] {(byte) 0xFF}, new byte[] {(byte) 0xC3}),
                list("é", FAIL, FAIL));
    }

    @Test
    void datesAndTimestamps() {
        check(DataType.DATE32, DataType.UTF8, list(0, -1, 19782), list("1970-01-01", "1969-12-31", "2024-02-29"));
        check(
                DataType.UTF8,
                DataType.DATE32,
                list("2024-02-29", " 1969-12-31 ", "2023-02-29", "2024-1-1", "x"),
                list(19782, -1, FAIL, FAIL, FAIL));
        check(
                TS_US,
                DataType.UTF8,
                list(0L, 1_500_000L, -1L, 1_704_164_645_123_456L),
                list(
                        "1970-01-01 00:00:00",
                        "1970-01-01 00:00:01.5",
                        "1969-12-31 23:59:59.999999",
                        "2024-01-02 03:04:05.123456"));
        check(TS_S, DataType.UTF8, list(86_399L), list("1970-01-01 23:59:59"));
        check(
                DataType.UTF8,
                TS_US,
                list(
                        "2024-01-02 03:04:05.123456",
                        "2024-01-02T03:04:05Z",
                        "2024-01-02",
                        "1970-01-01 00:00:00.0000019",
                        "2024-13-01 00:00:00",
                        "2024-01-02 25:00:00",
                        "yesterday",
                        "1969-12-31 23:59:59.5"),
                list(
                        1_704_164_645_123_456L,
                        1_704_164_645_000_000L,
                        1_704_153_600_000_000L,
                        1L,
                        FAIL,
                        FAIL,
                        FAIL,
                        -500_000L));
        check(
                DataType.UTF8,
                TS_NS,
                list("2262-04-11 23:47:16", "2262-04-12 00:00:00"),
                list(9_223_372_036_000_000_000L, FAIL));
        check(DataType.DATE32, TS_S, list(1, -1), list(86_400L, -86_400L));
        check(DataType.DATE32, TS_NS, list(1, 200_000), list(86_400_000_000_000L, FAIL));
        check(TS_US, DataType.DATE32, list(-1L, 86_400_000_000L, 86_399_999_999L), list(-1, 1, 0));
        check(TS_S, DataType.DATE32, list(Long.MAX_VALUE), list(FAIL));
        check(TS_S, TS_MS, list(2L, -2L, Long.MAX_VALUE / 10), list(2000L, -2000L, FAIL));
        check(TS_US, TS_S, list(-1L, 1_999_999L, -1_000_000L), list(-1L, 1L, -1L));
        check(TS_US, TS_NS, list(1L), list(1000L));
    }

    @Test
    void nullsIdentityAndUnsupportedPairs() {
        assertEquals(
                list(null, null),
                values(Kernels.cast(arr(DataType.NULL, null, null), DataType.INT32, false, 2, allocator), 2));
        DataType listType = new DataType.ListType(DataType.INT32, true);
        assertEquals(
                list((Object) null),
                values(Kernels.cast(arr(DataType.NULL, (Object) null), listType, false, 1, allocator), 1));
        assertEquals(
                DataType.UTF8,
                Kernels.cast(sc(DataType.NULL, null), DataType.UTF8, false, 1, allocator)
                        .dataType());
        ColumnarValue.Array in = arr(DataType.UTF8, "a", null);
        ColumnarValue copy = Kernels.cast(in, DataType.UTF8, false, 2, allocator);
        assertNotSame(in.vector(), ((ColumnarValue.Array) copy).vector());
        assertEquals(list("a", null), values(copy, 2));
        assertEquals(
                list(List.of(1), null),
                values(Kernels.cast(arr(listType, List.of(1), null), listType, false, 2, allocator), 2));
        ColumnarValue.Scalar s = sc(DataType.INT32, 1);
        assertSame(s, Kernels.cast(s, DataType.INT32, false, 1, allocator));
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.cast(arr(DataType.INT32, 1), DataType.DATE32, false, 1, allocator));
        for (DataType[] pair : new DataType[][] {
            {DataType.INT32, DataType.DATE32},
            {DataType.BINARY, DataType.INT32},
            {listType, DataType.UTF8},
            {DataType.UTF8, listType},
            {DataType.DATE32, DataType.INT64},
            {DataType.FLOAT64, DataType.BOOLEAN},
            {DataType.INT32, new DataType.Dictionary(DataType.INT32, DataType.INT32)}
        }) {
            assertFalse(Kernels.canCast(pair[0], pair[1]), pair[0] + " -> " + pair[1]);
        }
        assertTrue(Kernels.canCast(DataType.NULL, listType));
        assertTrue(Kernels.canCast(TS_US, TS_NS));
        assertEquals(list(), values(Kernels.cast(arr(DataType.UTF8), DataType.INT32, false, 0, allocator), 0));
    }

    @Test
    void errorMessageNamesValueRowAndType() {
        EvaluationException e = assertThrows(
                EvaluationException.class,
                () -> Kernels.cast(arr(DataType.UTF8, "1", "2", null, "abc"), DataType.INT32, false, 4, allocator));
        assertTrue(e.getMessage().startsWith("cannot cast 'abc' (row 3) to Int32"), e.getMessage());
        e = assertThrows(
                EvaluationException.class,
                () -> Kernels.cast(arr(DataType.INT64, 1L, 300L), DataType.INT8, false, 2, allocator));
        assertTrue(e.getMessage().startsWith("cannot cast 300 (row 1) to Int8"), e.getMessage());
        byte[] bytes = ((byte[]) scalar(Kernels.cast(sc(DataType.UTF8, "ab"), DataType.BINARY, false, 1, allocator)));
        assertArrayEquals(new byte[] {'a', 'b'}, bytes);
    }
}
