package dev.quiver.validation;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.ErrorKind;
import dev.quiver.errors.InputException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BatchValidation} against a scalar reference: for every length around the vector widths
 * (0 to 70 rows, and 1000) and every position of a fault, the check finds exactly the first bad
 * row the reference finds, and accepts every valid vector (nulls included, garbage behind null
 * dictionary indices included).
 */
class BatchValidationTest {
    private static final long SEED = 20_251_201L;
    private static final int[] LENGTHS = lengths();

    private BufferAllocator allocator;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void close() {
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    private static int[] lengths() {
        int[] out = new int[72];
        for (int i = 0; i <= 70; i++) {
            out[i] = i;
        }
        out[71] = 1000;
        return out;
    }

    /** The first offset index (of {@code offsets}) a correct check reports, or -1: the definition, one offset at a time. */
    private static int referenceFirstBad(long[] offsets, long limit) {
        for (int i = 0; i < offsets.length; i++) {
            if (offsets[i] < 0 || offsets[i] > limit || (i > 0 && offsets[i] < offsets[i - 1])) {
                return i;
            }
        }
        return -1;
    }

    private VarCharVector strings(int rows, Random random) {
        VarCharVector v = new VarCharVector("s", allocator);
        v.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            if (random.nextInt(5) == 0) {
                v.setNull(i);
            } else {
                v.setSafe(i, "x".repeat(random.nextInt(4)).getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(rows);
        return v;
    }

    @Test
    void everyFaultInStringOffsetsIsFoundAtItsFirstRow() {
        Random random = new Random(SEED);
        for (int rows : LENGTHS) {
            try (VarCharVector v = strings(rows, random)) {
                assertDoesNotThrow(() -> BatchValidation.checkColumn(v, "s"), rows + " valid rows (seed " + SEED + ")");
                if (rows == 0) {
                    continue;
                }
                long limit = v.getDataBuffer().capacity();
                for (int at = 0; at <= rows; at += rows > 100 ? 97 : 1) {
                    for (long bad : new long[] {
                        -1, limit + 1, at > 0 ? v.getOffsetBuffer().getInt((at - 1) * 4L) - 1 : -5
                    }) {
                        int saved = v.getOffsetBuffer().getInt(at * 4L);
                        v.getOffsetBuffer().setInt(at * 4L, (int) bad);
                        long[] offsets = new long[rows + 1];
                        for (int k = 0; k <= rows; k++) {
                            offsets[k] = v.getOffsetBuffer().getInt(k * 4L);
                        }
                        int expected = referenceFirstBad(offsets, limit);
                        String what = rows + " rows, offset " + at + " = " + bad;
                        if (expected < 0) {
                            assertDoesNotThrow(() -> BatchValidation.checkColumn(v, "s"), what);
                        } else {
                            InputException e =
                                    assertThrows(InputException.class, () -> BatchValidation.checkColumn(v, "s"), what);
                            assertEquals(ErrorKind.INPUT, e.kind());
                            assertEquals("s", e.column());
                            assertEquals(Math.max(0, expected - 1), e.row(), what + ": " + e.getMessage());
                            assertTrue(e.detail().startsWith("column 's' is malformed: "), e.detail());
                        }
                        v.getOffsetBuffer().setInt(at * 4L, saved);
                    }
                }
            }
        }
    }

    @Test
    void largeStringOffsetsAreCheckedAsLongs() {
        for (int rows : LENGTHS) {
            if (rows == 0) {
                continue;
            }
            try (LargeVarCharVector v = new LargeVarCharVector("s", allocator)) {
                v.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    v.setSafe(i, "ab".getBytes(StandardCharsets.UTF_8));
                }
                v.setValueCount(rows);
                assertDoesNotThrow(() -> BatchValidation.checkColumn(v, "s"));
                int at = rows / 2 + 1;
                v.getOffsetBuffer().setLong(at * 8L, 1L << 40); // past any data buffer
                InputException e = assertThrows(InputException.class, () -> BatchValidation.checkColumn(v, "s"));
                assertEquals(at - 1, e.row(), e.getMessage());
                assertTrue(e.detail().contains("row " + (at - 1) + " ends at byte " + (1L << 40)), e.detail());
            }
        }
    }

    @Test
    void decreasingOffsetsNameBothValues() {
        try (VarCharVector v = strings(3, new Random(SEED))) {
            v.getOffsetBuffer().setInt(0, 0);
            v.getOffsetBuffer().setInt(4, 3);
            v.getOffsetBuffer().setInt(8, 1);
            v.getOffsetBuffer().setInt(12, 4);
            InputException e = assertThrows(InputException.class, () -> BatchValidation.checkColumn(v, "name"));
            assertEquals("column 'name' is malformed: its offsets decrease at row 1 (from 3 to 1)", e.detail());
            assertEquals(1, e.row());
        }
    }

    /** {@code v} re-declared as an IPC reader would: {@code rows} values over {@code buffers} (null count {@code nulls}). */
    private static void load(FieldVector v, int rows, int nulls, List<ArrowBuf> buffers) {
        buffers.forEach(b -> b.getReferenceManager().retain());
        try {
            v.loadFieldBuffers(new ArrowFieldNode(rows, nulls), buffers);
        } finally {
            buffers.forEach(b -> b.getReferenceManager().release());
        }
    }

    @Test
    void fixedWidthBuffersMustHoldEveryRow() {
        try (IntVector v = new IntVector("x", allocator);
                ArrowBuf shortData = allocator.buffer(8)) {
            v.allocateNew(10);
            for (int i = 0; i < 10; i++) {
                v.set(i, i);
            }
            v.setNull(3);
            v.setValueCount(10);
            assertDoesNotThrow(() -> BatchValidation.checkColumn(v, "x"));
            load(v, 10, 1, List.of(v.getValidityBuffer(), shortData));
            InputException e = assertThrows(InputException.class, () -> BatchValidation.checkColumn(v, "x"));
            assertEquals(
                    "column 'x' is malformed: its data buffer holds 8 bytes, fewer than the 40 bytes 10 rows of 4 bytes need"
                            + " (row 2 is the first past its end)",
                    e.detail());
            assertEquals(2, e.row());
        }
        try (BitVector v = new BitVector("b", allocator);
                ArrowBuf shortValidity = allocator.buffer(1)) {
            v.allocateNew(17);
            for (int i = 0; i < 17; i++) {
                v.set(i, i % 2);
            }
            v.setNull(4);
            v.setValueCount(17);
            load(
                    v,
                    17,
                    1,
                    List.of(shortValidity.slice(0, 1), v.getDataBuffer())); // a slice: an allocation is rounded up
            InputException e = assertThrows(InputException.class, () -> BatchValidation.checkColumn(v, "b"));
            assertEquals(
                    "column 'b' is malformed: its validity buffer holds 1 byte, fewer than the 3 bytes 17 rows need"
                            + " (row 8 is the first past its end)",
                    e.detail());
            assertEquals(8, e.row());
        }
    }

    @Test
    void everyOutOfRangeDictionaryIndexIsFoundAndNullsAreIgnored() {
        Random random = new Random(SEED);
        List<IntFunction<BaseFixedWidthVector>> kinds = List.of(
                n -> new TinyIntVector("d", allocator),
                n -> new SmallIntVector("d", allocator),
                n -> new IntVector("d", allocator),
                n -> new BigIntVector("d", allocator),
                n -> new UInt4Vector("d", allocator));
        try (VarCharVector dictionary = strings(5, random)) {
            for (IntFunction<BaseFixedWidthVector> kind : kinds) {
                for (int rows : LENGTHS) {
                    try (BaseFixedWidthVector v = kind.apply(rows)) {
                        v.allocateNew(Math.max(1, rows));
                        int width = v.getTypeWidth();
                        for (int i = 0; i < rows; i++) {
                            boolean isNull = random.nextInt(4) == 0;
                            // Garbage behind a null: an index far outside the dictionary, which must not matter.
                            write(v, width, i, isNull ? 100 + random.nextInt(20) : random.nextInt(5));
                            if (!isNull) {
                                v.getValidityBuffer()
                                        .setByte(i >> 3, v.getValidityBuffer().getByte(i >> 3) | (1 << (i & 7)));
                            }
                        }
                        v.setValueCount(rows);
                        String what = v.getClass().getSimpleName() + ", " + rows + " rows";
                        assertDoesNotThrow(() -> BatchValidation.checkDictionaryIndices(v, "d", dictionary), what);
                        if (rows == 0) {
                            continue;
                        }
                        int at = random.nextInt(rows);
                        v.getValidityBuffer()
                                .setByte(at >> 3, v.getValidityBuffer().getByte(at >> 3) | (1 << (at & 7)));
                        int bad = v instanceof UInt4Vector || random.nextBoolean() ? 5 : -1;
                        write(v, width, at, bad);
                        // Every other non-null row is in range, every null row's garbage is not: the first bad row is
                        // at.
                        int expected = at;
                        InputException e = assertThrows(
                                InputException.class,
                                () -> BatchValidation.checkDictionaryIndices(v, "d", dictionary),
                                what);
                        assertEquals(expected, e.row(), what + ": " + e.getMessage());
                        assertEquals(
                                "column 'd' is malformed: dictionary index " + bad + " at row " + at
                                        + " is outside its dictionary of 5 values (indices 0 to 4)",
                                e.detail(),
                                what);
                    }
                }
            }
        }
    }

    private static void write(BaseFixedWidthVector v, int width, int row, int value) {
        ArrowBuf data = v.getDataBuffer();
        switch (width) {
            case 1 -> data.setByte(row, value);
            case 2 -> data.setShort((long) row * 2, (short) value);
            case 4 -> data.setInt((long) row * 4, value);
            default -> data.setLong((long) row * 8, value);
        }
    }

    private ListVector lists() {
        ListVector l = ListVector.empty("l", allocator);
        UnionListWriter w = l.getWriter();
        int[][] rows = {{1, 2}, {3}, {4, 5, 6}};
        for (int r = 0; r < rows.length; r++) {
            w.setPosition(r);
            w.startList();
            for (int x : rows[r]) {
                w.integer().writeInt(x);
            }
            w.endList();
        }
        l.setValueCount(rows.length);
        return l;
    }

    @Test
    void listOffsetsIndexTheirChild() {
        try (ListVector l = lists()) {
            assertDoesNotThrow(() -> BatchValidation.checkColumn(l, "l"));
            FieldVector child = l.getDataVector();
            load(child, 2, 0, child.getFieldBuffers());
            InputException e = assertThrows(InputException.class, () -> BatchValidation.checkColumn(l, "l"));
            assertEquals("column 'l' is malformed: row 1 ends at element 3, past the 2 elements it has", e.detail());
            assertEquals(1, e.row());
        }
    }

    @Test
    void structChildrenHoldTheStructsRowsAndAreCheckedThemselves() {
        try (StructVector s = StructVector.empty("st", allocator)) {
            IntVector a = s.addOrGet("a", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
            VarCharVector b = s.addOrGet("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), VarCharVector.class);
            for (int i = 0; i < 3; i++) {
                a.setSafe(i, i);
                b.setSafe(i, "yy".getBytes(StandardCharsets.UTF_8));
                s.setIndexDefined(i);
            }
            a.setValueCount(3);
            b.setValueCount(3);
            s.setValueCount(3);
            assertDoesNotThrow(() -> BatchValidation.checkColumn(s, "st"));
            b.getOffsetBuffer().setInt(8, 1);
            InputException e = assertThrows(InputException.class, () -> BatchValidation.checkColumn(s, "st"));
            assertEquals("column 'st.b' is malformed: its offsets decrease at row 1 (from 2 to 1)", e.detail());
            assertEquals("st", e.column());
            assertEquals(1, e.row()); // a struct's rows are the batch's rows
            b.getOffsetBuffer().setInt(8, 4);
            load(a, 1, 0, a.getFieldBuffers());
            InputException shorter = assertThrows(InputException.class, () -> BatchValidation.checkColumn(s, "st"));
            assertEquals(
                    "column 'st' is malformed: its child 'a' has 1 value, fewer than its 3 rows (row 1 is the first without one)",
                    shorter.detail());
        }
    }

    @Test
    void kindsQuiverDoesNotComputeOnGetArrowsOwnCheck() {
        try (ViewVarCharVector v = new ViewVarCharVector("v", allocator)) {
            v.allocateNew(4);
            for (int i = 0; i < 4; i++) {
                v.setSafe(i, "a long string past the inline twelve bytes".getBytes(StandardCharsets.UTF_8));
            }
            v.setValueCount(4);
            assertDoesNotThrow(() -> BatchValidation.checkColumn(v, "v"));
        }
    }

    @Test
    void aBatchIsCheckedColumnByColumn() {
        try (IntVector x = new IntVector("x", allocator);
                VarCharVector s = strings(4, new Random(SEED))) {
            x.allocateNew(4);
            x.setValueCount(3);
            try (var root = new VectorSchemaRoot(List.of(x.getField(), s.getField()), List.of(x, s), 4)) {
                InputException e = assertThrows(InputException.class, () -> BatchValidation.checkBatch(root));
                assertEquals("column 'x' has 3 values but the batch has 4 rows", e.detail());
                assertEquals("x", e.column());
                x.setValueCount(4);
                assertDoesNotThrow(() -> BatchValidation.checkBatch(root));
                root.clear();
            }
        }
    }
}
