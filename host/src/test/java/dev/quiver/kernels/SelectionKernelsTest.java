package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseValueVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.junit.jupiter.api.Test;

/**
 * Filter, take, scatter and merge against a per-row reference ({@link dev.quiver.value.Values#get}
 * on the inputs), for every type, with nulls and garbage behind them, batch sizes around the
 * 64-row word, and selections of every shape. Randomized: the seed is printed; replay with
 * {@code -Dquiver.seed=<seed>}, explore with {@code -Dquiver.seed=random}.
 */
class SelectionKernelsTest extends KernelTestBase {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20261130L);
    private static final int[] SIZES = {0, 1, 63, 64, 65, 130, 1000};
    private static final DataType LIST = RandomColumns.LIST;
    private static final DataType STRUCT = RandomColumns.STRUCT;

    static {
        System.out.println("SelectionKernelsTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
    }

    private static Map<String, Object> row(Integer a, String s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", a);
        m.put("s", s);
        return m;
    }

    private static String context(String what, DataType type, int rows, double nulls, String shape) {
        return what + " of " + type + ", " + rows + " rows, " + (nulls > 0 ? "with" : "without") + " nulls, selection "
                + shape + " (seed " + SEED + ")";
    }

    /** The values of {@code v}'s rows as the reference reads them; checks the vector's structure too. */
    private static List<ScalarValue> read(FieldVector v, DataType type) {
        // The full check also validates decimal digits, garbage behind nulls included: structure only for those.
        if (type instanceof DataType.Decimal) {
            ValueVectorUtility.validate(v);
        } else {
            ValueVectorUtility.validateFull(v);
        }
        List<ScalarValue> out = RandomColumns.rows(v, type);
        if (!(v instanceof NullVector)) {
            assertEquals(out.stream().filter(ScalarValue::isNull).count(), v.getNullCount(), "null count of " + type);
        }
        return out;
    }

    private static List<ScalarValue> read(ColumnarValue result, DataType type, int rows) {
        ColumnarValue.Array a = assertInstanceOf(ColumnarValue.Array.class, result);
        try (result) {
            assertTrue(a.owned(), "a result array must be owned");
            assertEquals("result", a.vector().getName());
            assertEquals(rows, a.vector().getValueCount());
            assertEquals(type.valueType().toArrow(), a.vector().getField().getType());
            return read(a.vector(), type);
        }
    }

    // ---- filter

    @Test
    void filterMatchesThePerRowReference() {
        Random rnd = new Random(SEED);
        for (DataType type : RandomColumns.TYPES) {
            for (int rows : SIZES) {
                for (double nulls : new double[] {0, 0.3}) {
                    // Inputs may be longer than the selection: only its rows are read.
                    int extra = rnd.nextInt(3);
                    try (FieldVector in = RandomColumns.vector(
                            type, RandomColumns.values(type, rows + extra, nulls, rnd), rnd, allocator)) {
                        List<ScalarValue> ref = RandomColumns.rows(in, type);
                        for (String shape : RandomColumns.SHAPES) {
                            boolean[] mask = RandomColumns.mask(shape, rows, rnd);
                            Selection sel = RandomColumns.selection(mask);
                            List<ScalarValue> expected = new ArrayList<>();
                            for (int i = 0; i < rows; i++) {
                                if (mask[i]) {
                                    expected.add(ref.get(i));
                                }
                            }
                            String what = context("filter", type, rows, nulls, shape);
                            try (FieldVector out = Kernels.filter(in, sel, allocator)) {
                                assertEquals(in.getField(), out.getField(), what);
                                assertEquals(expected, read(out, type), what);
                            }
                            assertEquals(
                                    expected,
                                    read(
                                            Kernels.filter(ColumnarValue.Array.borrowed(in), sel, allocator),
                                            type,
                                            expected.size()),
                                    what + " (as a ColumnarValue)");
                        }
                    }
                }
            }
        }
    }

    @Test
    void filterOfAllIsAnOwnedCopyAndOfNoneIsEmpty() {
        ColumnarValue.Array in = arr(DataType.UTF8, "a", null, "ccc");
        try (ColumnarValue all = Kernels.filter(in, Selection.all(3), allocator)) {
            FieldVector copy = ((ColumnarValue.Array) all).vector();
            assertNotEquals(
                    in.vector().getDataBuffer().memoryAddress(),
                    copy.getDataBuffer().memoryAddress());
            in.vector().getDataBuffer().setByte(0, 'z');
            assertEquals(
                    new ScalarValue(DataType.UTF8, "a"),
                    RandomColumns.get(copy, 0, DataType.UTF8),
                    "the copy shares no memory");
        }
        assertEquals(List.of(), values(Kernels.filter(in, Selection.none(3), allocator), 0));
        assertEquals(list("ccc"), values(Kernels.filter(in, Selection.ofRows(3, 2), allocator), 1));
    }

    @Test
    void filterOfAScalarIsTheScalar() {
        ColumnarValue.Scalar s = sc(DataType.INT32, 7);
        assertSame(s, Kernels.filter(s, Selection.ofRows(5, 1, 3), allocator));
        ColumnarValue.Scalar n = sc(DataType.UTF8, null);
        assertSame(n, Kernels.filter(n, Selection.none(5), allocator));
    }

    @Test
    void filterKeepsADictionaryEncodedField() {
        Field field = new Field(
                "d", new FieldType(true, new ArrowType.Int(32, true), new DictionaryEncoding(7, false, null)), null);
        try (IntVector in = (IntVector) field.createVector(allocator)) {
            in.allocateNew(70);
            for (int i = 0; i < 70; i++) {
                if (i % 7 == 3) {
                    in.setNull(i);
                } else {
                    in.set(i, i % 5);
                }
            }
            in.setValueCount(70);
            boolean[] mask = RandomColumns.mask("random", 70, new Random(SEED));
            try (FieldVector out = Kernels.filter(in, RandomColumns.selection(mask), allocator)) {
                assertEquals(field, out.getField());
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < 70; i++) {
                    if (mask[i]) {
                        expected.add(in.getObject(i));
                    }
                }
                List<Object> actual = new ArrayList<>();
                for (int k = 0; k < out.getValueCount(); k++) {
                    actual.add(out.getObject(k));
                }
                assertEquals(expected, actual);
            }
        }
    }

    @Test
    void filterReadsAVectorWithoutValidityBitmap() throws ReflectiveOperationException {
        // Arrow may omit the bitmap of a column without nulls (an imported vector, say).
        try (Float8Vector in = new Float8Vector("x", allocator)) {
            in.allocateNew(100);
            for (int i = 0; i < 100; i++) {
                in.set(i, i * 0.5);
            }
            in.setValueCount(100);
            var validity = BaseValueVector.class.getDeclaredField("validityBuffer");
            validity.setAccessible(true);
            ((ArrowBuf) validity.get(in)).getReferenceManager().release();
            validity.set(in, allocator.getEmpty());
            Selection sel = Selection.ofRows(100, 0, 63, 64, 99);
            try (FieldVector out = Kernels.filter(in, sel, allocator)) {
                assertEquals(
                        List.of(0.0, 31.5, 32.0, 49.5),
                        Arrays.asList(out.getObject(0), out.getObject(1), out.getObject(2), out.getObject(3)));
            }
            assertEquals(
                    List.of(0.0, 31.5),
                    values(Kernels.take(ColumnarValue.Array.borrowed(in), new int[] {0, 63}, allocator), 2));
            List<Object> merged = values(
                    Kernels.merge(
                            DataType.FLOAT64,
                            100,
                            List.of(new Kernels.Piece(sel, ColumnarValue.Array.borrowed(in), false)),
                            allocator),
                    100);
            assertEquals(49.5, merged.get(99));
            assertEquals(null, merged.get(98));
            assertTrue(Selection.ofNull(ColumnarValue.Array.borrowed(in), 100).isNone());
        }
    }

    @Test
    void filterAndTakeMoveOtherFixedWidthVectors() {
        // Interval(DAY_TIME): 8 bytes; FixedSizeBinary(3): a width with no dedicated copy.
        try (IntervalDayVector days = new IntervalDayVector("i", allocator);
                FixedSizeBinaryVector bytes = new FixedSizeBinaryVector("b", allocator, 3)) {
            days.allocateNew(70);
            bytes.allocateNew(70);
            for (int i = 0; i < 70; i++) {
                if (i % 3 == 0) {
                    days.setNull(i);
                    bytes.setNull(i);
                } else {
                    days.set(i, i, i * 1000);
                    bytes.set(i, new byte[] {(byte) i, (byte) -i, 7});
                }
            }
            days.setValueCount(70);
            bytes.setValueCount(70);
            Random rnd = new Random(SEED + 5);
            for (FieldVector in : List.<FieldVector>of(days, bytes)) {
                for (String shape : RandomColumns.SHAPES) {
                    boolean[] mask = RandomColumns.mask(shape, 70, rnd);
                    List<Object> expected = new ArrayList<>();
                    for (int i = 0; i < 70; i++) {
                        if (mask[i]) {
                            expected.add(object(in, i));
                        }
                    }
                    try (FieldVector out = Kernels.filter(in, RandomColumns.selection(mask), allocator)) {
                        assertEquals(expected, objects(out), in.getField() + ", selection " + shape);
                    }
                    int[] idx = RandomColumns.selection(mask).indices();
                    try (ColumnarValue out = Kernels.take(ColumnarValue.Array.borrowed(in), idx, allocator)) {
                        assertEquals(
                                expected,
                                objects(((ColumnarValue.Array) out).vector()),
                                in.getField() + ", take " + shape);
                    }
                }
            }
        }
    }

    /** Arrow's own object for row {@code i} of {@code v}, a byte array as a list (compared by content). */
    private static Object object(FieldVector v, int i) {
        Object o = v.getObject(i);
        return o instanceof byte[] b ? Arrays.toString(b) : o;
    }

    private static List<Object> objects(FieldVector v) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(object(v, i));
        }
        return out;
    }

    @Test
    void filterRejectsAVectorShorterThanTheSelection() {
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.filter(arr(DataType.INT32, 1, 2), Selection.all(3), allocator));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.filter(arr(LIST, List.of(1)), Selection.none(2), allocator));
    }

    // ---- take

    @Test
    void takeGathersAnyType() {
        int[] idx = {2, 0, 2, 1};
        assertEquals(list(3, 1, 3, null), values(Kernels.take(arr(DataType.INT32, 1, null, 3), idx, allocator), 4));
        assertEquals(
                list("ccc", "a", "ccc", null),
                values(Kernels.take(arr(DataType.UTF8, "a", null, "ccc"), idx, allocator), 4));
        assertEquals(
                list("ccc", "a", "ccc", null),
                values(Kernels.take(arr(DataType.LARGE_UTF8, "a", null, "ccc"), idx, allocator), 4));
        assertEquals(
                list(true, false, true, null),
                values(Kernels.take(arr(DataType.BOOLEAN, false, null, true), idx, allocator), 4));
        DataType d = new DataType.Decimal(5, 2);
        assertEquals(
                list(new BigDecimal("3.00"), null, new BigDecimal("3.00"), new BigDecimal("-2.50")),
                values(Kernels.take(arr(d, null, new BigDecimal("-2.50"), new BigDecimal("3.00")), idx, allocator), 4));
        assertEquals(
                list(List.of(4), List.of(1, 2), List.of(4), null),
                values(Kernels.take(arr(LIST, List.of(1, 2), null, List.of(4)), idx, allocator), 4));
        assertEquals(
                list(Arrays.asList(null, 5), List.of()),
                values(Kernels.take(arr(LIST, List.of(), Arrays.asList(null, 5)), new int[] {1, 0}, allocator), 2));
        assertEquals(
                list(row(3, "c"), row(1, null), row(3, "c"), null),
                values(Kernels.take(arr(STRUCT, row(1, null), null, row(3, "c")), idx, allocator), 4));
        assertEquals(list(), values(Kernels.take(arr(DataType.INT32, 1), new int[0], allocator), 0));
        ColumnarValue.Scalar s = sc(DataType.INT32, 7);
        assertSame(s, Kernels.take(s, idx, allocator));
        assertThrows(
                IndexOutOfBoundsException.class, () -> Kernels.take(arr(DataType.INT32, 1), new int[] {1}, allocator));
        assertThrows(
                IndexOutOfBoundsException.class,
                () -> Kernels.take(arr(DataType.UTF8, "a"), new int[] {0, -1}, allocator));
    }

    @Test
    void takeMatchesThePerRowReference() {
        Random rnd = new Random(SEED + 1);
        for (DataType type : RandomColumns.TYPES) {
            for (int rows : SIZES) {
                if (rows == 0) {
                    continue;
                }
                try (FieldVector in =
                        RandomColumns.vector(type, RandomColumns.values(type, rows, 0.3, rnd), rnd, allocator)) {
                    List<ScalarValue> ref = RandomColumns.rows(in, type);
                    int[] idx = new int[rnd.nextInt(2 * rows + 1)];
                    List<ScalarValue> expected = new ArrayList<>();
                    for (int k = 0; k < idx.length; k++) {
                        idx[k] = rnd.nextInt(rows);
                        expected.add(ref.get(idx[k]));
                    }
                    assertEquals(
                            expected,
                            read(Kernels.take(ColumnarValue.Array.borrowed(in), idx, allocator), type, idx.length),
                            context("take", type, rows, 0.3, idx.length + " indices"));
                }
            }
        }
    }

    // ---- scatter

    @Test
    void scatterIsTheInverseOfFilter() {
        Random rnd = new Random(SEED + 2);
        for (DataType type : RandomColumns.TYPES) {
            for (int rows : SIZES) {
                try (FieldVector in =
                        RandomColumns.vector(type, RandomColumns.values(type, rows, 0.3, rnd), rnd, allocator)) {
                    List<ScalarValue> ref = RandomColumns.rows(in, type);
                    for (String shape : RandomColumns.SHAPES) {
                        boolean[] mask = RandomColumns.mask(shape, rows, rnd);
                        Selection sel = RandomColumns.selection(mask);
                        List<ScalarValue> expected = new ArrayList<>();
                        for (int i = 0; i < rows; i++) {
                            expected.add(mask[i] ? ref.get(i) : ScalarValue.nullOf(type));
                        }
                        String what = context("scatter", type, rows, 0.3, shape);
                        try (FieldVector compact = Kernels.filter(in, sel, allocator)) {
                            assertEquals(
                                    expected,
                                    read(
                                            Kernels.scatter(
                                                    ColumnarValue.Array.borrowed(compact), sel, type, allocator),
                                            type,
                                            rows),
                                    what);
                        }
                        // A scalar fills every selected row; a NULL scalar none.
                        Object value = rnd.nextInt(4) == 0 ? null : RandomColumns.value(type, rnd);
                        ScalarValue scalar = new ScalarValue(type, value);
                        List<ScalarValue> filled = new ArrayList<>();
                        for (int i = 0; i < rows; i++) {
                            filled.add(mask[i] ? scalar : ScalarValue.nullOf(type));
                        }
                        assertEquals(
                                filled,
                                read(
                                        Kernels.scatter(new ColumnarValue.Scalar(scalar), sel, type, allocator),
                                        type,
                                        rows),
                                what + " of the scalar " + scalar);
                    }
                }
            }
        }
    }

    @Test
    void scatterOfNullTypeIsAllNull() {
        Selection sel = Selection.ofRows(4, 1, 2);
        assertEquals(
                list(null, null, null, null),
                values(Kernels.scatter(sc(DataType.NULL, null), sel, DataType.INT64, allocator), 4));
        assertEquals(
                list(null, null, null, null),
                values(Kernels.scatter(arr(DataType.NULL, null, null), sel, DataType.UTF8, allocator), 4));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.scatter(arr(DataType.INT32, 1), sel, DataType.INT32, allocator));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.scatter(arr(DataType.INT64, 1L, 2L), sel, DataType.INT32, allocator));
    }

    // ---- merge

    /** How a merge piece carries its values in the randomized test. */
    private enum PieceKind {
        SCALAR,
        NULL_SCALAR,
        ALIGNED,
        COMPACT,
        NULL_TYPED
    }

    @Test
    void mergeMatchesThePerRowReference() {
        Random rnd = new Random(SEED + 3);
        for (DataType type : RandomColumns.TYPES) {
            for (int rows : SIZES) {
                for (int round = 0; round < 6; round++) {
                    int pieceCount = 1 + rnd.nextInt(4);
                    // Each row goes to one piece or to none (-1), in random rows or in runs.
                    int[] owner = new int[rows];
                    boolean runs = rnd.nextBoolean();
                    for (int i = 0; i < rows; i++) {
                        owner[i] =
                                runs && i > 0 && rnd.nextInt(30) != 0 ? owner[i - 1] : rnd.nextInt(pieceCount + 1) - 1;
                    }
                    if (round == 0) {
                        Arrays.fill(owner, 0); // one piece covering everything
                    }
                    List<FieldVector> inputs = new ArrayList<>();
                    try {
                        List<Kernels.Piece> pieces = new ArrayList<>();
                        List<PieceKind> kinds = new ArrayList<>();
                        List<ScalarValue> expected = new ArrayList<>();
                        List<List<ScalarValue>> sources = new ArrayList<>();
                        List<ScalarValue> scalars = new ArrayList<>();
                        for (int p = 0; p < pieceCount; p++) {
                            boolean[] mask = new boolean[rows];
                            for (int i = 0; i < rows; i++) {
                                mask[i] = owner[i] == p;
                            }
                            Selection sel = RandomColumns.selection(mask);
                            PieceKind kind = PieceKind.values()[rnd.nextInt(PieceKind.values().length)];
                            kinds.add(kind);
                            ColumnarValue value;
                            List<ScalarValue> source = null;
                            ScalarValue scalar = null;
                            switch (kind) {
                                case SCALAR, NULL_SCALAR -> {
                                    scalar = new ScalarValue(
                                            type,
                                            kind == PieceKind.NULL_SCALAR ? null : RandomColumns.value(type, rnd));
                                    value = new ColumnarValue.Scalar(scalar);
                                }
                                case ALIGNED, COMPACT -> {
                                    int n = (kind == PieceKind.ALIGNED ? rows : sel.count()) + rnd.nextInt(3);
                                    FieldVector v = RandomColumns.vector(
                                            type, RandomColumns.values(type, n, 0.3, rnd), rnd, allocator);
                                    inputs.add(v);
                                    source = RandomColumns.rows(v, type);
                                    value = ColumnarValue.Array.borrowed(v);
                                }
                                default -> {
                                    if (rnd.nextBoolean()) {
                                        value = sc(DataType.NULL, null);
                                    } else {
                                        FieldVector v = RandomColumns.vector(
                                                DataType.NULL,
                                                RandomColumns.values(DataType.NULL, rows, 0, rnd),
                                                rnd,
                                                allocator);
                                        inputs.add(v);
                                        value = ColumnarValue.Array.borrowed(v);
                                    }
                                }
                            }
                            sources.add(source);
                            scalars.add(scalar);
                            pieces.add(new Kernels.Piece(
                                    sel,
                                    value,
                                    kind == PieceKind.COMPACT || (kind != PieceKind.ALIGNED && rnd.nextBoolean())));
                        }
                        int[] rank = new int[pieceCount];
                        for (int i = 0; i < rows; i++) {
                            int p = owner[i];
                            ScalarValue v = p < 0
                                    ? null
                                    : switch (kinds.get(p)) {
                                        case SCALAR, NULL_SCALAR -> scalars.get(p);
                                        case ALIGNED -> sources.get(p).get(i);
                                        case COMPACT -> sources.get(p).get(rank[p]);
                                        case NULL_TYPED -> null;
                                    };
                            if (p >= 0) {
                                rank[p]++;
                            }
                            expected.add(v == null || v.isNull() ? ScalarValue.nullOf(type) : v);
                        }
                        assertEquals(
                                expected,
                                read(Kernels.merge(type, rows, pieces, allocator), type, rows),
                                context("merge", type, rows, 0.3, "pieces " + kinds + (runs ? " in runs" : "")));
                    } finally {
                        inputs.forEach(FieldVector::close);
                    }
                }
            }
        }
    }

    @Test
    void mergeOfCaseBranches() {
        // CASE WHEN x < 0.3 THEN 1 WHEN x < 0.6 THEN 2 ELSE 3 END, x = 0.1, 0.5, NULL, 0.9
        Selection first = Selection.ofRows(4, 0);
        Selection second = Selection.ofRows(4, 1);
        Selection rest = first.or(second).not();
        assertEquals(
                list(1, 2, 3, 3),
                values(
                        Kernels.merge(
                                DataType.INT32,
                                4,
                                List.of(
                                        new Kernels.Piece(first, sc(DataType.INT32, 1), true),
                                        new Kernels.Piece(second, sc(DataType.INT32, 2), true),
                                        new Kernels.Piece(rest, sc(DataType.INT32, 3), true)),
                                allocator),
                        4));
        assertEquals(
                list("x", null, "ccc", null),
                values(
                        Kernels.merge(
                                DataType.UTF8,
                                4,
                                List.of(
                                        new Kernels.Piece(first, sc(DataType.UTF8, "x"), false),
                                        new Kernels.Piece(
                                                Selection.ofRows(4, 2),
                                                arr(DataType.UTF8, "a", "b", "ccc", "d"),
                                                false)),
                                allocator),
                        4));
        assertEquals(list(null, null), values(Kernels.merge(DataType.BOOLEAN, 2, List.of(), allocator), 2));
        assertEquals(list(), values(Kernels.merge(DataType.BOOLEAN, 0, List.of(), allocator), 0));
    }

    @Test
    void mergeRejectsOverlapsAndMismatches() {
        Selection a = Selection.ofRows(70, 1, 65);
        Selection b = Selection.ofRows(70, 65, 66);
        IllegalArgumentException overlap = assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.merge(
                        DataType.INT32,
                        70,
                        List.of(
                                new Kernels.Piece(a, sc(DataType.INT32, 1), true),
                                new Kernels.Piece(b, sc(DataType.INT32, 2), true)),
                        allocator));
        assertTrue(overlap.getMessage().contains("row 65"), overlap.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.merge(
                        DataType.INT32, 70, List.of(new Kernels.Piece(a, sc(DataType.INT64, 1L), true)), allocator),
                "wrong type");
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.merge(
                        DataType.INT32, 70, List.of(new Kernels.Piece(a, arr(DataType.INT32, 1), true)), allocator),
                "a compact value shorter than its selection");
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.merge(
                        DataType.INT32, 70, List.of(new Kernels.Piece(a, arr(DataType.INT32, 1, 2), false)), allocator),
                "an aligned value shorter than the batch");
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.merge(
                        DataType.INT32, 71, List.of(new Kernels.Piece(a, sc(DataType.INT32, 1), true)), allocator),
                "a selection of another batch");
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.merge(
                        DataType.UTF8,
                        70,
                        List.of(new Kernels.Piece(a, arr(DataType.LARGE_UTF8, "x", "y"), true)),
                        allocator),
                "Utf8 is not LargeUtf8");
    }

    // ---- scatter by index sets

    @Test
    void scatterSpreadsRowsAndLeavesTheRestNull() {
        List<int[]> sets = List.of(new int[] {4, 1}, new int[] {0, 3});
        assertEquals(
                list(7, 20, null, 7, 10),
                values(
                        Kernels.scatter(
                                DataType.INT32,
                                5,
                                sets,
                                List.of(arr(DataType.INT32, 10, 20), sc(DataType.INT32, 7)),
                                allocator),
                        5));
        assertEquals(
                list("x", "bb", null, "x", null),
                values(
                        Kernels.scatter(
                                DataType.UTF8,
                                5,
                                sets,
                                List.of(arr(DataType.UTF8, null, "bb"), sc(DataType.UTF8, "x")),
                                allocator),
                        5));
        assertEquals(
                list(null, List.of(2), null, List.of(), List.of(1, 1)),
                values(
                        Kernels.scatter(
                                LIST,
                                5,
                                sets,
                                List.of(arr(LIST, List.of(1, 1), List.of(2)), arr(LIST, null, List.of())),
                                allocator),
                        5));
        assertEquals(
                list(row(9, "z"), row(2, "b"), null, row(9, "z"), null),
                values(
                        Kernels.scatter(
                                STRUCT,
                                5,
                                sets,
                                List.of(arr(STRUCT, null, row(2, "b")), sc(STRUCT, row(9, "z"))),
                                allocator),
                        5));
        assertEquals(
                list(null, 1, null),
                values(
                        Kernels.scatter(
                                DataType.INT32,
                                3,
                                List.of(new int[] {1}, new int[] {0}),
                                List.of(sc(DataType.INT32, 1), sc(DataType.INT32, null)),
                                allocator),
                        3));
        assertEquals(list(), values(Kernels.scatter(DataType.INT32, 0, List.of(), List.of(), allocator), 0));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.scatter(
                        DataType.INT32,
                        3,
                        List.of(new int[] {1}, new int[] {1}),
                        List.of(sc(DataType.INT32, 1), sc(DataType.INT32, 2)),
                        allocator));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.scatter(
                        DataType.INT32, 3, List.of(new int[] {2, 2}), List.of(sc(DataType.INT32, 1)), allocator));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.scatter(
                        DataType.INT32, 3, List.of(new int[] {1}), List.of(sc(DataType.INT64, 1L)), allocator));
        assertThrows(
                IndexOutOfBoundsException.class,
                () -> Kernels.scatter(
                        DataType.INT32, 3, List.of(new int[] {3}), List.of(sc(DataType.INT32, 1)), allocator));
    }

    @Test
    void scatterByIndexSetsMatchesThePerRowReference() {
        Random rnd = new Random(SEED + 4);
        for (DataType type : RandomColumns.TYPES) {
            for (int rows : SIZES) {
                // A random permutation of the rows, cut into sets; some rows stay in no set.
                List<Integer> perm = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    perm.add(i);
                }
                Collections.shuffle(perm, rnd);
                int sets = 1 + rnd.nextInt(3);
                List<int[]> indexSets = new ArrayList<>();
                List<ColumnarValue> values = new ArrayList<>();
                List<FieldVector> inputs = new ArrayList<>();
                ScalarValue[] expected = new ScalarValue[rows];
                Arrays.fill(expected, ScalarValue.nullOf(type));
                try {
                    int at = 0;
                    for (int k = 0; k < sets; k++) {
                        int n = rnd.nextInt(rows - at + 1);
                        int[] set = perm.subList(at, at + n).stream()
                                .mapToInt(Integer::intValue)
                                .toArray();
                        at += n;
                        indexSets.add(set);
                        if (rnd.nextInt(3) == 0) {
                            ScalarValue s =
                                    new ScalarValue(type, rnd.nextInt(4) == 0 ? null : RandomColumns.value(type, rnd));
                            values.add(new ColumnarValue.Scalar(s));
                            for (int r : set) {
                                expected[r] = s;
                            }
                        } else {
                            FieldVector v = RandomColumns.vector(
                                    type, RandomColumns.values(type, n + rnd.nextInt(2), 0.3, rnd), rnd, allocator);
                            inputs.add(v);
                            values.add(ColumnarValue.Array.borrowed(v));
                            for (int j = 0; j < n; j++) {
                                expected[set[j]] = RandomColumns.get(v, j, type);
                            }
                        }
                    }
                    assertEquals(
                            Arrays.asList(expected),
                            read(Kernels.scatter(type, rows, indexSets, values, allocator), type, rows),
                            context("scatter by index sets", type, rows, 0.3, sets + " sets"));
                } finally {
                    inputs.forEach(FieldVector::close);
                }
            }
        }
    }
}
