package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BooleanKernelsTest extends KernelTestBase {
    private static final long SEED = HostileColumns.seed(BooleanKernelsTest.class);
    private static final Boolean T = true;
    private static final Boolean F = false;
    private static final Boolean N = null;
    private static final List<Object> L = list(T, T, T, F, F, F, N, N, N);
    private static final List<Object> R = list(T, F, N, T, F, N, T, F, N);

    @Test
    void kleeneAnd() {
        assertBinary(
                (a, b, rows) -> Kernels.and(a, b, rows, allocator),
                DataType.BOOLEAN,
                DataType.BOOLEAN,
                L,
                R,
                list(T, F, N, F, F, F, N, F, N));
    }

    @Test
    void kleeneOr() {
        assertBinary(
                (a, b, rows) -> Kernels.or(a, b, rows, allocator),
                DataType.BOOLEAN,
                DataType.BOOLEAN,
                L,
                R,
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
        assertEquals(
                and,
                values(
                        Kernels.and(
                                garbage((byte) 1, DataType.BOOLEAN, l.toArray()),
                                garbage((byte) 1, DataType.BOOLEAN, r.toArray()),
                                n,
                                allocator),
                        n));
        assertEquals(
                or,
                values(
                        Kernels.or(
                                garbage((byte) 1, DataType.BOOLEAN, l.toArray()),
                                garbage((byte) 1, DataType.BOOLEAN, r.toArray()),
                                n,
                                allocator),
                        n));
    }

    @Test
    void nullTypedOperandsActAsUnknown() {
        assertEquals(
                list(F, N, N),
                values(Kernels.and(arr(DataType.BOOLEAN, F, T, N), sc(DataType.NULL, null), 3, allocator), 3));
        assertEquals(
                list(T, N, N),
                values(
                        Kernels.or(arr(DataType.BOOLEAN, T, F, N), arr(DataType.NULL, null, null, null), 3, allocator),
                        3));
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

    @Test
    void aScalarThatDecidesGivesAConstantArray() {
        ColumnarValue a = garbage((byte) 1, DataType.BOOLEAN, T, F, N);
        assertEquals(list(F, F, F), values(Kernels.and(a, sc(DataType.BOOLEAN, false), 3, allocator), 3));
        assertEquals(list(F, F, F), values(Kernels.and(sc(DataType.BOOLEAN, false), a, 3, allocator), 3));
        assertEquals(list(T, T, T), values(Kernels.or(sc(DataType.BOOLEAN, true), a, 3, allocator), 3));
        assertEquals(list(T, F, N), values(Kernels.and(a, sc(DataType.BOOLEAN, true), 3, allocator), 3));
        assertEquals(list(T, F, N), values(Kernels.or(sc(DataType.BOOLEAN, false), a, 3, allocator), 3));
        assertEquals(list(N, F, N), values(Kernels.and(sc(DataType.BOOLEAN, null), a, 3, allocator), 3));
        assertEquals(list(T, N, N), values(Kernels.or(a, sc(DataType.BOOLEAN, null), 3, allocator), 3));
        assertEquals(F, scalar(Kernels.and(sc(DataType.BOOLEAN, null), sc(DataType.BOOLEAN, false), 3, allocator)));
        assertEquals(N, scalar(Kernels.or(sc(DataType.BOOLEAN, null), sc(DataType.BOOLEAN, false), 3, allocator)));
        assertThrows(
                UnsupportedOperationException.class,
                () -> Kernels.and(arr(DataType.INT32, 1), sc(DataType.BOOLEAN, true), 1, allocator));
    }

    // ---- randomized against the truth tables, every shape, with garbage behind the nulls

    private static Object and(Object a, Object b) {
        return a == F || b == F ? F : a == null || b == null ? null : T;
    }

    private static Object or(Object a, Object b) {
        return a == T || b == T ? T : a == null || b == null ? null : F;
    }

    private ColumnarValue operand(HostileColumns random, List<Object> values, boolean nullTyped) {
        return nullTyped ? arr(DataType.NULL, values.toArray()) : hostile(random, DataType.BOOLEAN, values);
    }

    @Test
    void randomKleeneLogic() {
        HostileColumns random = new HostileColumns(SEED, "randomKleeneLogic");
        for (int round = 0; round < 4; round++) {
            for (int n : random.sizes()) {
                double nullRate = HostileColumns.NULL_RATES[random.rnd.nextInt(HostileColumns.NULL_RATES.length)];
                List<Object> xs = random.column(DataType.BOOLEAN, n, nullRate, true);
                List<Object> ys = random.column(DataType.BOOLEAN, n, random.rnd.nextBoolean() ? 0.0 : 0.3, true);
                boolean xNullTyped = nullRate == 1.0 && random.rnd.nextBoolean();
                Boolean s = random.rnd.nextInt(3) == 0 ? null : random.rnd.nextBoolean();
                String what = n + " rows, null rate " + nullRate + (xNullTyped ? " (Null-typed)" : "") + ", scalar " + s
                        + " (seed " + random.seed + ")";
                List<Object> andAA = new ArrayList<>();
                List<Object> orAA = new ArrayList<>();
                List<Object> andAS = new ArrayList<>();
                List<Object> orAS = new ArrayList<>();
                List<Object> notA = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    andAA.add(and(xs.get(i), ys.get(i)));
                    orAA.add(or(xs.get(i), ys.get(i)));
                    andAS.add(and(xs.get(i), s));
                    orAS.add(or(xs.get(i), s));
                    notA.add(xs.get(i) == null ? null : !(Boolean) xs.get(i));
                }
                assertEquals(
                        andAA,
                        values(
                                Kernels.and(operand(random, xs, xNullTyped), operand(random, ys, false), n, allocator),
                                n),
                        what);
                assertEquals(
                        andAA,
                        values(
                                Kernels.and(operand(random, ys, false), operand(random, xs, xNullTyped), n, allocator),
                                n),
                        what);
                assertEquals(
                        orAA,
                        values(
                                Kernels.or(operand(random, xs, xNullTyped), operand(random, ys, false), n, allocator),
                                n),
                        what);
                assertEquals(
                        andAS,
                        values(Kernels.and(operand(random, xs, xNullTyped), sc(DataType.BOOLEAN, s), n, allocator), n),
                        what);
                assertEquals(
                        andAS,
                        values(Kernels.and(sc(DataType.BOOLEAN, s), operand(random, xs, xNullTyped), n, allocator), n),
                        what);
                assertEquals(
                        orAS,
                        values(Kernels.or(operand(random, xs, xNullTyped), sc(DataType.BOOLEAN, s), n, allocator), n),
                        what);
                assertEquals(
                        orAS,
                        values(Kernels.or(sc(DataType.BOOLEAN, s), operand(random, xs, xNullTyped), n, allocator), n),
                        what);
                assertEquals(notA, values(Kernels.not(operand(random, xs, xNullTyped), n, allocator), n), what);
            }
        }
    }

    @Test
    void randomIsNull() {
        HostileColumns random = new HostileColumns(SEED, "randomIsNull");
        for (DataType t : List.of(
                DataType.BOOLEAN,
                DataType.INT8,
                DataType.INT64,
                DataType.FLOAT64,
                DataType.UTF8,
                new DataType.Decimal(20, 3))) {
            for (int n : random.sizes()) {
                double nullRate = HostileColumns.NULL_RATES[random.rnd.nextInt(HostileColumns.NULL_RATES.length)];
                List<Object> xs = random.column(t, n, nullRate, true);
                for (boolean negated : new boolean[] {false, true}) {
                    List<Object> expected = new ArrayList<>();
                    for (Object x : xs) {
                        expected.add((x == null) != negated);
                    }
                    ColumnarValue r = Kernels.isNull(hostile(random, t, xs), negated, n, allocator);
                    assertEquals(
                            expected,
                            values(r, n),
                            t + ", " + n + " rows, null rate " + nullRate + " (seed " + random.seed + ")");
                }
            }
        }
        assertInstanceOf(ColumnarValue.Scalar.class, Kernels.isNull(sc(DataType.UTF8, null), true, 3, allocator));
    }
}
