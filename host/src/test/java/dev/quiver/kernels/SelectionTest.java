package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.BiPredicate;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * {@link Selection} against boolean arrays: construction from Boolean values (with garbage
 * behind nulls) and from any value's nulls, the set operations, iteration, and sizes around
 * the 64-row word. Randomized: the seed is printed; replay with {@code -Dquiver.seed=<seed>}.
 */
class SelectionTest extends KernelTestBase {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20261130L);
    private static final int[] SIZES = {0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 1000};

    static {
        System.out.println("SelectionTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
    }

    /** Asserts {@code s} selects exactly the rows {@code expected} marks, through every accessor. */
    private static void assertSelects(boolean[] expected, Selection s, String what) {
        String context = what + " (seed " + SEED + ")";
        assertEquals(expected.length, s.rows(), context);
        List<Integer> rows = new ArrayList<>();
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], s.get(i), context + ", row " + i);
            if (expected[i]) {
                rows.add(i);
            }
        }
        assertEquals(rows.size(), s.count(), context);
        assertArrayEquals(rows.stream().mapToInt(Integer::intValue).toArray(), s.indices(), context);
        assertEquals(rows.size() == expected.length, s.isAll(), context);
        assertEquals(rows.isEmpty(), s.isNone(), context);
        List<Integer> iterated = new ArrayList<>();
        for (int r = s.nextSetBit(0); r >= 0; r = s.nextSetBit(r + 1)) {
            iterated.add(r);
        }
        assertEquals(rows, iterated, context + ": nextSetBit");
        assertEquals((expected.length + 63) / 64, s.wordCount(), context);
        if (s.wordCount() > 0 && (expected.length & 63) != 0) {
            assertEquals(0, s.word(s.wordCount() - 1) >>> (expected.length & 63), context + ": bits beyond the rows");
        }
    }

    private static boolean[] random(int rows, Random rnd) {
        boolean[] m = new boolean[rows];
        int mode = rnd.nextInt(4);
        for (int i = 0; i < rows; i++) {
            m[i] = switch (mode) {
                case 0 -> rnd.nextBoolean();
                case 1 -> rnd.nextInt(10) == 0;
                case 2 -> rnd.nextInt(10) != 0;
                default -> true;
            };
        }
        return m;
    }

    @Test
    void booleanValuesSelectByShape() {
        Random rnd = new Random(SEED + 10);
        for (int rows : SIZES) {
            for (int round = 0; round < 4; round++) {
                List<Object> values =
                        RandomColumns.values(DataType.BOOLEAN, rows + rnd.nextInt(3), round == 0 ? 0 : 0.3, rnd);
                // RandomColumns sets random bits behind the nulls, both 0 and 1.
                try (FieldVector v = RandomColumns.vector(DataType.BOOLEAN, values, rnd, allocator)) {
                    ColumnarValue.Array a = ColumnarValue.Array.borrowed(v);
                    boolean[] isTrue = new boolean[rows];
                    boolean[] notFalse = new boolean[rows];
                    boolean[] notTrue = new boolean[rows];
                    boolean[] isNull = new boolean[rows];
                    for (int i = 0; i < rows; i++) {
                        Object o = values.get(i);
                        isTrue[i] = Boolean.TRUE.equals(o);
                        notFalse[i] = !Boolean.FALSE.equals(o);
                        notTrue[i] = !Boolean.TRUE.equals(o);
                        isNull[i] = o == null;
                    }
                    assertSelects(isTrue, Selection.ofTrue(a, rows), "ofTrue, " + rows + " rows");
                    assertSelects(notFalse, Selection.ofNotFalse(a, rows), "ofNotFalse, " + rows + " rows");
                    assertSelects(notTrue, Selection.ofNotTrue(a, rows), "ofNotTrue, " + rows + " rows");
                    assertSelects(isNull, Selection.ofNull(a, rows), "ofNull, " + rows + " rows");
                }
            }
        }
    }

    @Test
    void nullsOfAnyType() {
        Random rnd = new Random(SEED + 11);
        for (DataType type : RandomColumns.TYPES) {
            for (int rows : SIZES) {
                List<Object> values = RandomColumns.values(type, rows, 0.3, rnd);
                try (FieldVector v = RandomColumns.vector(type, values, rnd, allocator)) {
                    boolean[] isNull = new boolean[rows];
                    for (int i = 0; i < rows; i++) {
                        isNull[i] = values.get(i) == null;
                    }
                    assertSelects(
                            isNull,
                            Selection.ofNull(ColumnarValue.Array.borrowed(v), rows),
                            "ofNull of " + type + ", " + rows + " rows");
                }
            }
        }
    }

    @Test
    void scalarsSelectAllOrNothing() {
        for (int rows : SIZES) {
            boolean[] all = new boolean[rows];
            Arrays.fill(all, true);
            boolean[] none = new boolean[rows];
            ColumnarValue t = sc(DataType.BOOLEAN, true);
            ColumnarValue f = sc(DataType.BOOLEAN, false);
            ColumnarValue n = sc(DataType.BOOLEAN, null);
            ColumnarValue nullType = sc(DataType.NULL, null);
            assertSelects(all, Selection.ofTrue(t, rows), "ofTrue TRUE");
            assertSelects(none, Selection.ofTrue(f, rows), "ofTrue FALSE");
            assertSelects(none, Selection.ofTrue(n, rows), "ofTrue NULL");
            assertSelects(none, Selection.ofTrue(nullType, rows), "ofTrue NULL (Null type)");
            assertSelects(all, Selection.ofNotFalse(t, rows), "ofNotFalse TRUE");
            assertSelects(none, Selection.ofNotFalse(f, rows), "ofNotFalse FALSE");
            assertSelects(all, Selection.ofNotFalse(n, rows), "ofNotFalse NULL");
            assertSelects(none, Selection.ofNotTrue(t, rows), "ofNotTrue TRUE");
            assertSelects(all, Selection.ofNotTrue(f, rows), "ofNotTrue FALSE");
            assertSelects(all, Selection.ofNotTrue(n, rows), "ofNotTrue NULL");
            assertSelects(all, Selection.ofNull(n, rows), "ofNull NULL");
            assertSelects(none, Selection.ofNull(t, rows), "ofNull TRUE");
            assertSelects(none, Selection.ofNull(sc(DataType.INT32, 0), rows), "ofNull 0");
            assertSelects(all, Selection.ofNull(nullType, rows), "ofNull NULL (Null type)");
        }
    }

    @Test
    void aNullTypedArrayIsAllNull() {
        ColumnarValue.Array a = arr(DataType.NULL, null, null, null);
        assertSelects(new boolean[3], Selection.ofTrue(a, 3), "ofTrue");
        assertSelects(new boolean[] {true, true, true}, Selection.ofNotFalse(a, 3), "ofNotFalse");
        assertSelects(new boolean[] {true, true}, Selection.ofNotTrue(a, 2), "ofNotTrue");
        assertSelects(new boolean[] {true, true, true}, Selection.ofNull(a, 3), "ofNull");
    }

    @Test
    void rejectsWhatCannotSelect() {
        assertThrows(IllegalArgumentException.class, () -> Selection.ofTrue(arr(DataType.INT32, 1), 1));
        assertThrows(IllegalArgumentException.class, () -> Selection.ofTrue(sc(DataType.UTF8, "true"), 1));
        assertThrows(IllegalArgumentException.class, () -> Selection.ofTrue(arr(DataType.BOOLEAN, true), 2));
        assertThrows(IllegalArgumentException.class, () -> Selection.ofNull(arr(DataType.INT32, 1), 2));
        assertThrows(IllegalArgumentException.class, () -> Selection.all(-1));
        assertThrows(IllegalArgumentException.class, () -> Selection.ofWords(new long[1], 65));
        assertThrows(IndexOutOfBoundsException.class, () -> Selection.ofRows(3, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> Selection.ofRows(3, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> Selection.all(3).get(3));
        assertThrows(IndexOutOfBoundsException.class, () -> Selection.all(3).nextSetBit(-1));
        assertThrows(IllegalArgumentException.class, () -> Selection.all(3).and(Selection.all(4)));
        assertThrows(IllegalArgumentException.class, () -> Selection.all(3).or(Selection.all(64)));
        assertThrows(IllegalArgumentException.class, () -> Selection.all(3).andNot(Selection.all(2)));
    }

    private static Selection of(boolean[] m) {
        return RandomColumns.selection(m);
    }

    private static boolean[] combine(boolean[] a, boolean[] b, BiPredicate<Boolean, Boolean> op) {
        boolean[] out = new boolean[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = op.test(a[i], b[i]);
        }
        return out;
    }

    @Test
    void setOperationsMatchBooleanArrays() {
        Random rnd = new Random(SEED + 12);
        for (int rows : SIZES) {
            for (int round = 0; round < 5; round++) {
                boolean[] a = random(rows, rnd);
                boolean[] b = random(rows, rnd);
                Selection sa = of(a);
                Selection sb = of(b);
                assertSelects(a, sa, "ofRows");
                assertSelects(combine(a, b, (x, y) -> x && y), sa.and(sb), "and, " + rows + " rows");
                assertSelects(combine(a, b, (x, y) -> x || y), sa.or(sb), "or, " + rows + " rows");
                assertSelects(combine(a, b, (x, y) -> x && !y), sa.andNot(sb), "andNot, " + rows + " rows");
                assertSelects(combine(a, a, (x, y) -> !x), sa.not(), "not, " + rows + " rows");
                assertSelects(a, sa.not().not(), "not not, " + rows + " rows");
                assertEquals(sa, sa.not().not());
                assertEquals(sa.hashCode(), sa.not().not().hashCode());
            }
            boolean[] all = new boolean[rows];
            Arrays.fill(all, true);
            assertSelects(all, Selection.all(rows), "all");
            assertSelects(new boolean[rows], Selection.none(rows), "none");
            assertSelects(new boolean[rows], Selection.all(rows).not(), "not all");
            assertSelects(all, Selection.none(rows).not(), "not none");
        }
    }

    /**
     * {@link Selection#first}, {@link Selection#lastSetBit} and {@link Selection#runStart} against
     * the boolean array: the first n marked rows, the last marked row, and whether the marked rows
     * are one run.
     */
    @Test
    void firstRowsLastRowAndRunsMatchBooleanArrays() {
        Random rnd = new Random(SEED + 13);
        for (int rows : SIZES) {
            for (int round = 0; round < 6; round++) {
                boolean[] a = random(rows, rnd);
                if (round == 5 && rows > 2) { // one run in the middle
                    Arrays.fill(a, false);
                    int from = rnd.nextInt(rows / 2);
                    Arrays.fill(a, from, from + 1 + rnd.nextInt(rows - from - 1), true);
                }
                Selection s = of(a);
                int last = -1;
                int marked = 0;
                for (int i = 0; i < rows; i++) {
                    if (a[i]) {
                        last = i;
                        marked++;
                    }
                }
                assertEquals(last, s.lastSetBit(), rows + " rows, round " + round + ", seed " + SEED);
                int first = s.nextSetBit(0);
                boolean run = marked > 0;
                for (int i = first; run && i < first + marked; i++) {
                    run = a[i];
                }
                assertEquals(run ? first : -1, s.runStart(), rows + " rows, round " + round + ", seed " + SEED);
                for (int n : new int[] {0, 1, marked / 2, marked - 1, marked, marked + 1}) {
                    if (n < 0) {
                        continue;
                    }
                    boolean[] head = new boolean[rows];
                    int left = n;
                    for (int i = 0; i < rows && left > 0; i++) {
                        if (a[i]) {
                            head[i] = true;
                            left--;
                        }
                    }
                    assertSelects(head, s.first(n), "first(" + n + ") of " + rows + " rows, round " + round);
                }
            }
        }
        assertEquals(
                Selection.ofRows(200, 3, 70, 130),
                Selection.ofRows(200, 3, 70, 130, 199).first(3));
        assertEquals(64, Selection.ofRows(200, 64, 65, 66).runStart());
        assertEquals(-1, Selection.ofRows(200, 64, 66).runStart());
        assertEquals(-1, Selection.none(10).runStart());
        assertThrows(IllegalArgumentException.class, () -> Selection.all(3).first(-1));
    }

    @Test
    void wordsBeyondTheRowsAreIgnored() {
        Selection s = Selection.ofWords(new long[] {-1L, -1L}, 70);
        assertEquals(70, s.count());
        assertTrue(s.isAll());
        assertEquals(Selection.all(70), s);
        assertEquals(-1L, s.word(0));
        assertEquals((1L << 6) - 1, s.word(1));
        assertEquals(Selection.ofWords(new long[] {5, 0, 0}, 3), Selection.ofRows(3, 0, 2, 2));
        assertNotEquals(Selection.none(3), Selection.none(4));
        long[] words = {1L};
        Selection copy = Selection.ofWords(words, 64);
        words[0] = 2L;
        assertTrue(copy.get(0), "the words are copied");
        assertEquals(-1, Selection.ofRows(130, 64).nextSetBit(65));
        assertEquals(129, Selection.ofRows(130, 129).nextSetBit(3));
        assertEquals(-1, Selection.all(130).nextSetBit(130));
        assertEquals(-1, Selection.none(0).nextSetBit(0));
        assertTrue(Selection.none(0).isAll() && Selection.none(0).isNone(), "an empty selection is both all and none");
    }

    @Test
    void writesItsBitsAsAnArrowBitmap() {
        Random rnd = new Random(SEED + 13);
        for (int rows : SIZES) {
            boolean[] m = random(rows, rnd);
            try (ArrowBuf buf = allocator.buffer(Math.max(1, (rows + 7) / 8))) {
                buf.setOne(0, buf.capacity());
                of(m).writeBits(buf);
                for (int i = 0; i < rows; i++) {
                    assertEquals(m[i], ResultVector.isValid(buf, i), "bit " + i + " of " + rows);
                }
                for (int i = rows; i < (rows + 7) / 8 * 8; i++) {
                    assertFalse(ResultVector.isValid(buf, i), "bit " + i + " past " + rows + " rows");
                }
            }
        }
    }
}
