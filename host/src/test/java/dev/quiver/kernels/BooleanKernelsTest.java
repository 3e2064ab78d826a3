package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BooleanKernelsTest extends KernelTestBase {
    private static final Boolean T = true;
    private static final Boolean F = false;
    private static final Boolean N = null;
    private static final List<Object> L = list(T, T, T, F, F, F, N, N, N);
    private static final List<Object> R = list(T, F, N, T, F, N, T, F, N);

    @Test
    void kleeneAnd() {
        assertBinary((a, b, rows) -> Kernels.and(a, b, rows, allocator), DataType.BOOLEAN, DataType.BOOLEAN, L, R,
                list(T, F, N, F, F, F, N, F, N));
    }

    @Test
    void kleeneOr() {
        assertBinary((a, b, rows) -> Kernels.or(a, b, rows, allocator), DataType.BOOLEAN, DataType.BOOLEAN, L, R,
                list(T, T, T, T, F, N, T, N, N));
    }

    @Test
    void longColumnsAcrossByteBoundaries() {
        int n = 77;
        List<Object> l = new ArrayList<>();
        List<Object> r = new ArrayList<>();
        List<Object> and = new ArrayList<>();
        List<Object> or = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Object a = L.get(i % 9);
            Object b = R.get((i / 9) % 9);
            l.add(a);
            r.add(b);
            and.add(a == F || b == F ? F : a == null || b == null ? null : T);
            or.add(a == T || b == T ? T : a == null || b == null ? null : F);
        }
        assertEquals(and, values(Kernels.and(garbage((byte) 1, DataType.BOOLEAN, l.toArray()), garbage((byte) 1, DataType.BOOLEAN, r.toArray()), n, allocator), n));
        assertEquals(or, values(Kernels.or(garbage((byte) 1, DataType.BOOLEAN, l.toArray()), garbage((byte) 1, DataType.BOOLEAN, r.toArray()), n, allocator), n));
    }

    @Test
    void nullTypedOperandsActAsUnknown() {
        assertEquals(list(F, N, N), values(Kernels.and(arr(DataType.BOOLEAN, F, T, N), sc(DataType.NULL, null), 3, allocator), 3));
        assertEquals(list(T, N, N), values(Kernels.or(arr(DataType.BOOLEAN, T, F, N), arr(DataType.NULL, null, null, null), 3, allocator), 3));
    }

    @Test
    void not() {
        assertEquals(list(F, T, N), values(Kernels.not(garbage((byte) 1, DataType.BOOLEAN, T, F, N), 3, allocator), 3));
        assertEquals(F, scalar(Kernels.not(sc(DataType.BOOLEAN, T), 1, allocator)));
        assertEquals(N, scalar(Kernels.not(sc(DataType.BOOLEAN, null), 1, allocator)));
        assertEquals(list(), values(Kernels.not(arr(DataType.BOOLEAN), 0, allocator), 0));
        assertThrows(UnsupportedOperationException.class, () -> Kernels.not(arr(DataType.INT32, 1), 1, allocator));
    }

    @Test
    void isNullOnAnyType() {
        assertEquals(list(F, T, F), values(Kernels.isNull(arr(DataType.UTF8, "a", null, ""), false, 3, allocator), 3));
        assertEquals(list(T, F, T), values(Kernels.isNull(arr(DataType.UTF8, "a", null, ""), true, 3, allocator), 3));
        assertEquals(list(T, T), values(Kernels.isNull(arr(DataType.NULL, null, null), false, 2, allocator), 2));
        DataType listType = new DataType.ListType(DataType.INT32, true);
        assertEquals(list(F, T), values(Kernels.isNull(arr(listType, List.of(1, 2), null), false, 2, allocator), 2));
        DataType struct = new DataType.Struct(List.of(new DataType.StructField("a", DataType.INT32, true)));
        assertEquals(list(T, F), values(Kernels.isNull(arr(struct, null, Map.of("a", 1)), false, 2, allocator), 2));
        assertEquals(T, scalar(Kernels.isNull(sc(DataType.FLOAT64, null), false, 1, allocator)));
        assertEquals(F, scalar(Kernels.isNull(sc(DataType.FLOAT64, 1.0), false, 1, allocator)));
        assertEquals(T, scalar(Kernels.isNull(sc(DataType.FLOAT64, 1.0), true, 1, allocator)));
        ColumnarValue r = Kernels.isNull(sc(DataType.INT32, 1), false, 5, allocator);
        assertEquals(F, scalar(r));
    }
}
