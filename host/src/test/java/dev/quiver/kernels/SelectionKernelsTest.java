package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SelectionKernelsTest extends KernelTestBase {
    private static final DataType LIST = new DataType.ListType(DataType.INT32, true);
    private static final DataType STRUCT = new DataType.Struct(List.of(
            new DataType.StructField("a", DataType.INT32, true), new DataType.StructField("s", DataType.UTF8, true)));

    private static Map<String, Object> row(Integer a, String s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", a);
        m.put("s", s);
        return m;
    }

    @Test
    void takeGathersAnyType() {
        int[] idx = {2, 0, 2, 1};
        assertEquals(list(3, 1, 3, null), values(Kernels.take(arr(DataType.INT32, 1, null, 3), idx, allocator), 4));
        assertEquals(list("ccc", "a", "ccc", null), values(Kernels.take(arr(DataType.UTF8, "a", null, "ccc"), idx, allocator), 4));
        assertEquals(list("ccc", "a", "ccc", null), values(Kernels.take(arr(DataType.LARGE_UTF8, "a", null, "ccc"), idx, allocator), 4));
        assertEquals(list(true, false, true, null), values(Kernels.take(arr(DataType.BOOLEAN, false, null, true), idx, allocator), 4));
        DataType d = new DataType.Decimal(5, 2);
        assertEquals(list(new BigDecimal("3.00"), null, new BigDecimal("3.00"), new BigDecimal("-2.50")),
                values(Kernels.take(arr(d, null, new BigDecimal("-2.50"), new BigDecimal("3.00")), idx, allocator), 4));
        assertEquals(list(List.of(4), List.of(1, 2), List.of(4), null),
                values(Kernels.take(arr(LIST, List.of(1, 2), null, List.of(4)), idx, allocator), 4));
        assertEquals(list(Arrays.asList(null, 5), List.of()), values(Kernels.take(arr(LIST, List.of(), Arrays.asList(null, 5)), new int[]{1, 0}, allocator), 2));
        assertEquals(list(row(3, "c"), row(1, null), row(3, "c"), null),
                values(Kernels.take(arr(STRUCT, row(1, null), null, row(3, "c")), idx, allocator), 4));
        assertEquals(list(), values(Kernels.take(arr(DataType.INT32, 1), new int[0], allocator), 0));
        ColumnarValue.Scalar s = sc(DataType.INT32, 7);
        assertSame(s, Kernels.take(s, idx, allocator));
        assertThrows(IndexOutOfBoundsException.class, () -> Kernels.take(arr(DataType.INT32, 1), new int[]{1}, allocator));
    }

    @Test
    void scatterSpreadsRowsAndLeavesTheRestNull() {
        List<int[]> sets = List.of(new int[]{4, 1}, new int[]{0, 3});
        assertEquals(list(7, 20, null, 7, 10), values(Kernels.scatter(DataType.INT32, 5, sets,
                List.of(arr(DataType.INT32, 10, 20), sc(DataType.INT32, 7)), allocator), 5));
        assertEquals(list("x", "bb", null, "x", null), values(Kernels.scatter(DataType.UTF8, 5, sets,
                List.of(arr(DataType.UTF8, null, "bb"), sc(DataType.UTF8, "x")), allocator), 5));
        assertEquals(list(null, List.of(2), null, List.of(), List.of(1, 1)), values(Kernels.scatter(LIST, 5, sets,
                List.of(arr(LIST, List.of(1, 1), List.of(2)), arr(LIST, null, List.of())), allocator), 5));
        assertEquals(list(row(9, "z"), row(2, "b"), null, row(9, "z"), null), values(Kernels.scatter(STRUCT, 5, sets,
                List.of(arr(STRUCT, null, row(2, "b")), sc(STRUCT, row(9, "z"))), allocator), 5));
        assertEquals(list(null, 1, null), values(Kernels.scatter(DataType.INT32, 3, List.of(new int[]{1}, new int[]{0}),
                List.of(sc(DataType.INT32, 1), sc(DataType.INT32, null)), allocator), 3));
        assertEquals(list(), values(Kernels.scatter(DataType.INT32, 0, List.of(), List.of(), allocator), 0));
        assertThrows(IllegalArgumentException.class, () -> Kernels.scatter(DataType.INT32, 3, List.of(new int[]{1}, new int[]{1}),
                List.of(sc(DataType.INT32, 1), sc(DataType.INT32, 2)), allocator));
        assertThrows(IllegalArgumentException.class, () -> Kernels.scatter(DataType.INT32, 3, List.of(new int[]{1}),
                List.of(sc(DataType.INT64, 1L)), allocator));
    }
}
