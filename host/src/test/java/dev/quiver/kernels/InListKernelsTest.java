package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class InListKernelsTest extends KernelTestBase {
    private List<ColumnarValue> ints(Integer... elements) {
        return java.util.Arrays.stream(elements).map(e -> (ColumnarValue) sc(DataType.INT32, e)).toList();
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
        assertEquals(list(true, false, true), values(Kernels.inList(v, List.of(arr(DataType.INT32, 1, 5, null), sc(DataType.INT32, 3)),
                false, 3, allocator), 3));
        assertEquals(true, scalar(Kernels.inList(sc(DataType.INT32, 3), ints(1, 2, 3), false, 1, allocator)));
        assertEquals(null, scalar(Kernels.inList(sc(DataType.INT32, null), ints(1, 2, 3), false, 1, allocator)));
        assertEquals(null, scalar(Kernels.inList(sc(DataType.INT32, 5), ints(1, null), true, 1, allocator)));
        assertEquals(list(true, true, false), values(Kernels.inList(arr(DataType.FLOAT64, Double.NaN, -0.0, 1.0),
                List.of(sc(DataType.FLOAT64, 0.0), sc(DataType.FLOAT64, Double.NaN)), false, 3, allocator), 3));
        assertEquals(list(true, false), values(Kernels.inList(arr(DataType.UTF8, "b", "z"),
                List.of(sc(DataType.UTF8, "a"), sc(DataType.UTF8, "b")), false, 2, allocator), 2));
        DataType d = new DataType.Decimal(5, 2);
        assertEquals(list(true), values(Kernels.inList(arr(d, new BigDecimal("1.50")),
                List.of(sc(new DataType.Decimal(3, 1), new BigDecimal("1.5"))), false, 1, allocator), 1));
    }
}
