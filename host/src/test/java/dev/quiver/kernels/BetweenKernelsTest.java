package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

class BetweenKernelsTest extends KernelTestBase {
    private static final List<DataType> TYPES = List.of(
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
            new DataType.Decimal(38, 4),
            new DataType.Decimal(9, 2),
            DataType.DATE32,
            new DataType.Timestamp(DataType.TimeUnit.NANOSECOND, "UTC"));

    /** The reference: the Kleene AND of the two comparisons, negated for NOT BETWEEN. */
    private static Boolean reference(Object v, Object lo, Object hi, boolean negated) {
        Boolean ge = v == null || lo == null ? null : PredicateTestData.compare(v, lo) >= 0;
        Boolean le = v == null || hi == null ? null : PredicateTestData.compare(v, hi) <= 0;
        Boolean both = PredicateTestData.and(ge, le);
        return negated ? PredicateTestData.not(both) : both;
    }

    @Test
    void randomColumnsWithConstantBoundsAgreeWithTwoComparisons() {
        Random r = new Random(PredicateTestData.seed("BetweenKernelsTest"));
        for (DataType type : TYPES) {
            assertTrue(BetweenKernels.supports(type, type, type), type + " takes the one-pass kernel");
            List<Object> pool = PredicateTestData.pool(type, r);
            List<Object> bounds = new ArrayList<>(pool);
            bounds.add(null);
            for (int rows : PredicateTestData.BATCH_SIZES) {
                for (PredicateTestData.Nulls nulls : PredicateTestData.Nulls.values()) {
                    List<Object> values = PredicateTestData.column(pool, rows, nulls, r);
                    FieldVector vector = PredicateTestData.vectorWithGarbage(type, values, pool, r, allocator);
                    try {
                        ColumnarValue column = ColumnarValue.Array.borrowed(vector);
                        for (int k = 0; k < 12; k++) {
                            Object lo = bounds.get(r.nextInt(bounds.size()));
                            Object hi = k == 0 ? lo : bounds.get(r.nextInt(bounds.size()));
                            for (boolean negated : new boolean[] {false, true}) {
                                List<Object> expected = values.stream()
                                        .map(v -> (Object) reference(v, lo, hi, negated))
                                        .toList();
                                String what = type + " " + rows + " rows, " + nulls + " nulls, "
                                        + (negated ? "NOT " : "") + "BETWEEN " + PredicateTestData.show(lo) + " AND "
                                        + PredicateTestData.show(hi);
                                assertEquals(
                                        expected,
                                        values(
                                                PredicateTestData.cleanTail(Kernels.between(
                                                        column, sc(type, lo), sc(type, hi), negated, rows, allocator)),
                                                rows),
                                        what);
                                if (rows > 1) {
                                    // A batch shorter than its vectors reads only its rows.
                                    assertEquals(
                                            expected.subList(0, rows - 1),
                                            values(
                                                    PredicateTestData.cleanTail(Kernels.between(
                                                            column,
                                                            sc(type, lo),
                                                            sc(type, hi),
                                                            negated,
                                                            rows - 1,
                                                            allocator)),
                                                    rows - 1),
                                            what + ", one row fewer");
                                }
                                if (rows == 1) {
                                    assertEquals(
                                            expected.getFirst(),
                                            scalar(Kernels.between(
                                                    sc(type, values.getFirst()),
                                                    sc(type, lo),
                                                    sc(type, hi),
                                                    negated,
                                                    1,
                                                    allocator)),
                                            what + " scalar");
                                }
                            }
                        }
                    } finally {
                        vector.close();
                    }
                }
            }
        }
    }

    @Test
    void arrayBoundsTakeTheGeneralPathWithTheSameSemantics() {
        Random r = new Random(PredicateTestData.seed("BetweenKernelsTest.arrayBounds"));
        for (DataType type : List.of(DataType.INT32, DataType.FLOAT64, DataType.UTF8, new DataType.Decimal(9, 2))) {
            List<Object> pool = PredicateTestData.pool(type, r);
            int rows = 130;
            List<Object> values = PredicateTestData.column(pool, rows, PredicateTestData.Nulls.SOME, r);
            List<Object> lows = PredicateTestData.column(pool, rows, PredicateTestData.Nulls.SOME, r);
            List<Object> highs = PredicateTestData.column(pool, rows, PredicateTestData.Nulls.SOME, r);
            for (boolean negated : new boolean[] {false, true}) {
                List<Object> expected = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    expected.add(reference(values.get(i), lows.get(i), highs.get(i), negated));
                }
                assertEquals(
                        expected,
                        values(
                                Kernels.between(
                                        arr(type, values.toArray()),
                                        arr(type, lows.toArray()),
                                        arr(type, highs.toArray()),
                                        negated,
                                        rows,
                                        allocator),
                                rows),
                        type + " array bounds");
                Object lo = lows.getFirst();
                List<Object> expectedScalarLow = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    expectedScalarLow.add(reference(values.get(i), lo, highs.get(i), negated));
                }
                assertEquals(
                        expectedScalarLow,
                        values(
                                Kernels.between(
                                        arr(type, values.toArray()),
                                        sc(type, lo),
                                        arr(type, highs.toArray()),
                                        negated,
                                        rows,
                                        allocator),
                                rows),
                        type + " scalar low, array high");
            }
        }
    }

    @Test
    void edgeCasesByHand() {
        // Total order: -0.0 = 0.0, NaN above +Infinity and equal to itself.
        ColumnarValue x = arr(DataType.FLOAT64, -0.0, 0.0, Double.NaN, Double.POSITIVE_INFINITY, null, -1.0);
        assertEquals(
                list(true, true, false, false, null, false),
                values(
                        Kernels.between(x, sc(DataType.FLOAT64, 0.0), sc(DataType.FLOAT64, -0.0), false, 6, allocator),
                        6));
        assertEquals(
                list(false, false, true, true, null, false),
                values(
                        Kernels.between(
                                x,
                                sc(DataType.FLOAT64, Double.POSITIVE_INFINITY),
                                sc(DataType.FLOAT64, Double.NaN),
                                false,
                                6,
                                allocator),
                        6));
        // A NULL bound: FALSE where the other side fails, else NULL.
        assertEquals(
                list(null, null, false, false, null, null),
                values(
                        Kernels.between(x, sc(DataType.FLOAT64, null), sc(DataType.FLOAT64, 1.0), false, 6, allocator),
                        6));
        assertEquals(
                list(null, null, true, true, null, null),
                values(
                        Kernels.between(x, sc(DataType.FLOAT64, null), sc(DataType.FLOAT64, 1.0), true, 6, allocator),
                        6));
        // lo > hi: empty.
        assertEquals(
                list(false, false, false, false, null, false),
                values(
                        Kernels.between(x, sc(DataType.FLOAT64, 1.0), sc(DataType.FLOAT64, -1.0), false, 6, allocator),
                        6));
        // Unsigned 64-bit order and the full signed range.
        ColumnarValue u = arr(DataType.UINT64, BigInteger.ONE.shiftLeft(63), BigInteger.ONE);
        assertEquals(
                list(true, false),
                values(
                        Kernels.between(
                                u,
                                sc(DataType.UINT64, BigInteger.TEN),
                                sc(DataType.UINT64, BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)),
                                false,
                                2,
                                allocator),
                        2));
        ColumnarValue l = arr(DataType.INT64, Long.MIN_VALUE, Long.MAX_VALUE, 0L);
        assertEquals(
                list(true, true, true),
                values(
                        Kernels.between(
                                l,
                                sc(DataType.INT64, Long.MIN_VALUE),
                                sc(DataType.INT64, Long.MAX_VALUE),
                                false,
                                3,
                                allocator),
                        3));
        // Decimals beyond 64 bits.
        DataType d = new DataType.Decimal(38, 0);
        ColumnarValue big = arr(
                d,
                new BigDecimal("-100000000000000000000"),
                new BigDecimal("5"),
                new BigDecimal("100000000000000000000"));
        assertEquals(
                list(false, true, true),
                values(
                        Kernels.between(
                                big,
                                sc(d, new BigDecimal("-99999999999999999999")),
                                sc(d, new BigDecimal("100000000000000000000")),
                                false,
                                3,
                                allocator),
                        3));
    }
}
