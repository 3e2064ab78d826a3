package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

class InListKernelsTest extends KernelTestBase {
    private List<ColumnarValue> ints(Integer... elements) {
        return Arrays.stream(elements)
                .map(e -> (ColumnarValue) sc(DataType.INT32, e))
                .toList();
    }

    @Test
    void sqlSemanticsWithNulls() {
        ColumnarValue v = arr(DataType.INT32, 1, 2, null, 4);
        assertEquals(list(true, false, null, false), values(Kernels.inList(v, ints(1, 3), false, 4, allocator), 4));
        assertEquals(list(false, true, null, true), values(Kernels.inList(v, ints(1, 3), true, 4, allocator), 4));
        assertEquals(list(true, null, null, null), values(Kernels.inList(v, ints(1, null), false, 4, allocator), 4));
        assertEquals(list(false, null, null, null), values(Kernels.inList(v, ints(1, null), true, 4, allocator), 4));
        assertEquals(list(false, false, null, false), values(Kernels.inList(v, ints(), false, 4, allocator), 4));
    }

    @Test
    void arrayElementsScalarsAndFloats() {
        ColumnarValue v = arr(DataType.INT32, 1, 2, 3);
        assertEquals(
                list(true, false, true),
                values(
                        Kernels.inList(
                                v,
                                List.of(arr(DataType.INT32, 1, 5, null), sc(DataType.INT32, 3)),
                                false,
                                3,
                                allocator),
                        3));
        assertEquals(true, scalar(Kernels.inList(sc(DataType.INT32, 3), ints(1, 2, 3), false, 1, allocator)));
        assertEquals(null, scalar(Kernels.inList(sc(DataType.INT32, null), ints(1, 2, 3), false, 1, allocator)));
        assertEquals(null, scalar(Kernels.inList(sc(DataType.INT32, 5), ints(1, null), true, 1, allocator)));
        assertEquals(
                list(true, true, false),
                values(
                        Kernels.inList(
                                arr(DataType.FLOAT64, Double.NaN, -0.0, 1.0),
                                List.of(sc(DataType.FLOAT64, 0.0), sc(DataType.FLOAT64, Double.NaN)),
                                false,
                                3,
                                allocator),
                        3));
        assertEquals(
                list(true, false),
                values(
                        Kernels.inList(
                                arr(DataType.UTF8, "b", "z"),
                                List.of(sc(DataType.UTF8, "a"), sc(DataType.UTF8, "b")),
                                false,
                                2,
                                allocator),
                        2));
        DataType d = new DataType.Decimal(5, 2);
        assertEquals(
                list(true),
                values(
                        Kernels.inList(
                                arr(d, new BigDecimal("1.50")),
                                List.of(sc(new DataType.Decimal(3, 1), new BigDecimal("1.5"))),
                                false,
                                1,
                                allocator),
                        1));
    }

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
            DataType.UTF8,
            DataType.LARGE_UTF8,
            DataType.BINARY,
            DataType.DATE32,
            new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null),
            DataType.BOOLEAN);

    /** The reference: a loop of SQL equalities with SQL's NULL logic. */
    private static Boolean reference(Object v, List<Object> list, boolean negated) {
        if (v == null) {
            return null;
        }
        boolean sawNull = false;
        for (Object e : list) {
            if (e == null) {
                sawNull = true;
            } else if (PredicateTestData.sqlEquals(v, e)) {
                return !negated;
            }
        }
        return sawNull ? null : negated;
    }

    /** A list of {@code size} elements from the pool (some repeated), from its first, close-together values only when {@code narrow}. */
    private static List<Object> randomList(List<Object> pool, int size, boolean narrow, boolean withNull, Random r) {
        List<Object> out = new ArrayList<>();
        for (int k = 0; k < size; k++) {
            out.add(pool.get(r.nextInt(narrow ? Math.min(pool.size(), 12) : pool.size())));
        }
        if (withNull) {
            out.add(r.nextInt(out.size() + 1), null);
        }
        return out;
    }

    @Test
    void randomColumnsOfEveryTypeAgreeWithALoopOfEqualities() {
        Random r = new Random(PredicateTestData.seed("InListKernelsTest"));
        for (DataType type : TYPES) {
            List<Object> pool = PredicateTestData.pool(type, r);
            for (int rows : PredicateTestData.BATCH_SIZES) {
                for (PredicateTestData.Nulls nulls : PredicateTestData.Nulls.values()) {
                    List<Object> values = PredicateTestData.column(pool, rows, nulls, r);
                    FieldVector vector = PredicateTestData.vectorWithGarbage(type, values, pool, r, allocator);
                    try {
                        ColumnarValue column = ColumnarValue.Array.borrowed(vector);
                        for (int size : new int[] {0, 1, 3, 8, 9, 20, 100}) {
                            boolean narrow = r.nextBoolean();
                            boolean withNull = r.nextInt(3) == 0;
                            List<Object> list = randomList(pool, size, narrow, withNull, r);
                            List<ScalarValue> scalars = list.stream()
                                    .map(e -> new ScalarValue(type, e))
                                    .toList();
                            InList prepared = InList.of(type, scalars);
                            for (boolean negated : new boolean[] {false, true}) {
                                List<Object> expected = values.stream()
                                        .map(v -> (Object) reference(v, list, negated))
                                        .toList();
                                String what = type + " " + rows + " rows, " + nulls + " nulls, "
                                        + (negated ? "NOT IN " : "IN ")
                                        + list.stream()
                                                .map(PredicateTestData::show)
                                                .toList() + " (" + prepared.strategy() + ")";
                                assertEquals(
                                        expected,
                                        values(
                                                PredicateTestData.cleanTail(Kernels.inList(
                                                        column, prepared, List.of(), negated, rows, allocator)),
                                                rows),
                                        what);
                                if (rows > 1) {
                                    // A batch shorter than its vectors reads only its rows.
                                    assertEquals(
                                            expected.subList(0, rows - 1),
                                            values(
                                                    PredicateTestData.cleanTail(Kernels.inList(
                                                            column, prepared, List.of(), negated, rows - 1, allocator)),
                                                    rows - 1),
                                            what + ", one row fewer");
                                }
                                if (rows == 65 && !negated) {
                                    // The per-call API, and elements given as arrays (OR-ed in row by row), agree.
                                    List<ColumnarValue> asScalars = scalars.stream()
                                            .map(s -> (ColumnarValue) new ColumnarValue.Scalar(s))
                                            .toList();
                                    assertEquals(
                                            expected,
                                            values(Kernels.inList(column, asScalars, false, rows, allocator), rows),
                                            what + " per call");
                                    int split = list.size() / 2;
                                    List<ColumnarValue> others = new ArrayList<>();
                                    for (Object e : list.subList(split, list.size())) {
                                        others.add(arr(
                                                type,
                                                Collections.nCopies(rows, e).toArray()));
                                    }
                                    assertEquals(
                                            expected,
                                            values(
                                                    Kernels.inList(
                                                            column,
                                                            InList.of(type, scalars.subList(0, split)),
                                                            others,
                                                            false,
                                                            rows,
                                                            allocator),
                                                    rows),
                                            what + " half as arrays");
                                    assertEquals(
                                            expected.stream()
                                                    .map(e -> (Object) PredicateTestData.not((Boolean) e))
                                                    .toList(),
                                            values(
                                                    Kernels.inList(
                                                            column,
                                                            InList.of(type, scalars.subList(0, split)),
                                                            others,
                                                            true,
                                                            rows,
                                                            allocator),
                                                    rows),
                                            what + " half as arrays, NOT IN");
                                }
                                if (rows == 1) {
                                    assertEquals(
                                            expected.getFirst(),
                                            scalar(Kernels.inList(
                                                    sc(type, values.getFirst()),
                                                    prepared,
                                                    List.of(),
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
    void strategiesFollowTheListsSize() {
        List<ScalarValue> three =
                IntStream.of(5, 500, 999).mapToObj(ScalarValue::of).toList();
        assertEquals("linear scan of 3 values", InList.of(DataType.INT32, three).strategy());
        List<ScalarValue> narrow =
                IntStream.range(0, 20).mapToObj(k -> ScalarValue.of(k * 37)).toList();
        assertEquals("bitmap of 20 values", InList.of(DataType.INT32, narrow).strategy());
        List<ScalarValue> wide = IntStream.range(0, 20)
                .mapToObj(k -> ScalarValue.of(k * 1_000_003))
                .toList();
        assertEquals("hash set of 20 values", InList.of(DataType.INT32, wide).strategy());
        List<ScalarValue> dup =
                new ArrayList<>(List.of(ScalarValue.of(1), ScalarValue.of(1), ScalarValue.nullOf(DataType.INT32)));
        InList d = InList.of(DataType.INT32, dup);
        assertEquals(1, d.size());
        assertEquals("linear scan of 1 value and NULL", d.strategy());
        List<ScalarValue> strings =
                IntStream.range(0, 12).mapToObj(k -> ScalarValue.of("s" + k)).toList();
        assertEquals("hash set of 12 values", InList.of(DataType.UTF8, strings).strategy());
        // -0.0 and 0.0, and two NaNs, are one value each.
        assertEquals(
                2,
                InList.of(
                                DataType.FLOAT64,
                                List.of(
                                        ScalarValue.of(-0.0),
                                        ScalarValue.of(0.0),
                                        ScalarValue.of(Double.NaN),
                                        ScalarValue.of(Double.longBitsToDouble(0x7ff8000000000001L))))
                        .size());
        // A decimal with more fraction digits than the column equals nothing and is left out.
        assertEquals(
                1,
                InList.of(
                                new DataType.Decimal(5, 1),
                                List.of(ScalarValue.of(new BigDecimal("1.25")), ScalarValue.of(new BigDecimal("1.50"))))
                        .size());
    }

    @Test
    void mismatchedTypesAreRefused() {
        assertThrows(UnsupportedOperationException.class, () -> InList.of(DataType.INT32, List.of(ScalarValue.of(1L))));
        assertThrows(
                UnsupportedOperationException.class,
                () -> InList.of(DataType.UTF8, List.of(ScalarValue.of(new byte[] {1}))));
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.inList(arr(DataType.INT32, 1), List.of(sc(DataType.INT64, 1L)), false, 1, allocator));
        InList ints = InList.of(DataType.INT32, List.of(ScalarValue.of(1)));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.inList(arr(DataType.INT64, 1L), ints, List.of(), false, 1, allocator));
        // Utf8 and LargeUtf8 mix, as in comparisons.
        assertEquals(
                list(true, false),
                values(
                        Kernels.inList(
                                arr(DataType.LARGE_UTF8, "a", "b"),
                                InList.of(DataType.UTF8, List.of(ScalarValue.of("a"))),
                                List.of(),
                                false,
                                2,
                                allocator),
                        2));
    }

    @Test
    void everyLongProbeAgreesWithAHashSet() {
        Random r = new Random(PredicateTestData.seed("InListKernelsTest.probes"));
        for (int size : new int[] {0, 1, 8, 9, 30, 1000}) {
            for (long span : new long[] {size + 1, InList.BITMAP_SPAN - 1, Long.MAX_VALUE}) {
                long base = r.nextLong();
                Set<Long> set = new HashSet<>();
                long[] keys = new long[size];
                for (int k = 0; k < size; k++) {
                    keys[k] = base + (long) (r.nextDouble() * span);
                    set.add(keys[k]);
                }
                InList.LongProbe probe = InList.LongProbe.of(keys);
                long[] probes = new long[64];
                for (int round = 0; round < 50; round++) {
                    long expected = 0;
                    for (int j = 0; j < 64; j++) {
                        probes[j] = switch (r.nextInt(4)) {
                            case 0 -> size == 0 ? 0 : keys[r.nextInt(size)];
                            case 1 -> base + (long) (r.nextDouble() * span) + r.nextInt(3) - 1;
                            case 2 -> base - 1 - r.nextInt(100);
                            default -> r.nextLong();
                        };
                        boolean in = set.contains(probes[j]);
                        assertEquals(in, probe.contains(probes[j]), probe.describe(size) + " contains " + probes[j]);
                        expected |= (in ? 1L : 0L) << j;
                    }
                    int count = 1 + r.nextInt(64);
                    assertEquals(
                            expected & (count == 64 ? -1L : (1L << count) - 1),
                            probe.matchWord(probes, count),
                            probe.describe(size));
                }
            }
        }
    }
}
