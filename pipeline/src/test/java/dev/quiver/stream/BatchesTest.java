package dev.quiver.stream;

import static dev.quiver.stream.TestRows.SCHEMA;
import static dev.quiver.stream.TestRows.batch;
import static dev.quiver.stream.TestRows.column;
import static dev.quiver.stream.TestRows.random;
import static dev.quiver.stream.TestRows.rows;
import static dev.quiver.stream.TestRows.values;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.kernels.Selection;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Slices, concatenations, withColumns and select against plain-Java reference rows, with a
 * RootAllocator per test that must end with nothing allocated.
 */
class BatchesTest {
    private static final Field INT = Field.nullable("i", new ArrowType.Int(32, true));
    private static final Field DOUBLE = Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));

    private final RootAllocator allocator = new RootAllocator();

    @AfterEach
    void nothingLeaks() {
        assertEquals(0, allocator.getAllocatedMemory(), "a test leaked Arrow memory");
        allocator.close();
    }

    @Test
    void slicesAtAlignedAndUnalignedOffsetsHoldExactlyThoseRows() {
        List<List<Object>> ref = random(new Random(1), 0, 203);
        try (VectorSchemaRoot b = batch(allocator, ref)) {
            int[] froms = {0, 1, 3, 7, 8, 9, 15, 16, 17, 64, 101, 195, 200, 203};
            int[] lengths = {0, 1, 5, 7, 8, 9, 13, 64, 100, 203};
            int checked = 0;
            for (int from : froms) {
                for (int len : lengths) {
                    if (from + len > ref.size()) {
                        continue;
                    }
                    try (VectorSchemaRoot s = Batches.slice(b, from, len, allocator)) {
                        assertEquals(SCHEMA, s.getSchema());
                        assertEquals(len, s.getRowCount());
                        assertEquals(
                                ref.subList(from, from + len), rows(s), "rows [" + from + ", " + (from + len) + ")");
                        for (int c = 0; c < SCHEMA.getFields().size(); c++) {
                            assertEquals(
                                    SCHEMA.getFields().get(c), s.getVector(c).getField());
                        }
                    }
                    checked++;
                }
            }
            assertTrue(checked > 100);
            assertEquals(ref, rows(b), "the input is untouched");
        }
    }

    @Test
    void slicesShareTheValueBuffersAndOutliveTheirInput() {
        List<List<Object>> ref = random(new Random(2), 0, 100);
        VectorSchemaRoot aligned;
        VectorSchemaRoot unaligned;
        try (VectorSchemaRoot b = batch(allocator, ref)) {
            long before = allocator.getAllocatedMemory();
            try (FieldVector i16 = Batches.slice(b.getVector("i"), 16, 40, allocator);
                    FieldVector d16 = Batches.slice(b.getVector("d"), 16, 40, allocator);
                    FieldVector b16 = Batches.slice(b.getVector("b"), 16, 40, allocator)) {
                assertEquals(
                        before,
                        allocator.getAllocatedMemory(),
                        "aligned slices of fixed-width columns allocate nothing");
                assertEquals(column(ref, 0).subList(16, 56), values(i16));
                assertEquals(column(ref, 1).subList(16, 56), values(d16));
                assertEquals(column(ref, 3).subList(16, 56), values(b16));
            }
            aligned = Batches.slice(b, 16, 40, allocator);
            assertTrue(allocator.getAllocatedMemory() - before <= 256, "only the rebased Utf8 offsets are new");
            unaligned = Batches.slice(b, 21, 40, allocator);
            IntVector i = (IntVector) b.getVector("i");
            VarCharVector s = (VarCharVector) b.getVector("s");
            assertEquals(
                    i.getDataBuffer().memoryAddress() + 16 * 4L,
                    ((IntVector) aligned.getVector("i")).getDataBuffer().memoryAddress());
            assertEquals(
                    i.getDataBuffer().memoryAddress() + 21 * 4L,
                    ((IntVector) unaligned.getVector("i")).getDataBuffer().memoryAddress());
            assertEquals(
                    i.getValidityBuffer().memoryAddress() + 2,
                    ((IntVector) aligned.getVector("i")).getValidityBuffer().memoryAddress());
            assertEquals(
                    s.getDataBuffer().memoryAddress() + s.getStartOffset(21),
                    ((VarCharVector) unaligned.getVector("s")).getDataBuffer().memoryAddress());
        }
        assertEquals(ref.subList(16, 56), rows(aligned), "the input is closed, the slice still holds its buffers");
        assertEquals(ref.subList(21, 61), rows(unaligned));
        aligned.close();
        unaligned.close();
    }

    @Test
    void filteredVectorsHoldTheSelectedRowsAndShareTheBuffersOfARun() {
        List<List<Object>> ref = random(new Random(6), 0, 203);
        try (VectorSchemaRoot b = batch(allocator, ref)) {
            Random random = new Random(7);
            for (int round = 0; round < 4; round++) {
                boolean run = round % 2 == 1;
                int from = random.nextInt(100);
                List<Integer> rows = new ArrayList<>();
                for (int r = 0; r < 203; r++) {
                    if (run ? r >= from && r < from + 50 : random.nextInt(3) == 0) {
                        rows.add(r);
                    }
                }
                Selection keep = Selection.ofRows(
                        203, rows.stream().mapToInt(Integer::intValue).toArray());
                for (int c = 0; c < 4; c++) {
                    FieldVector in = b.getVector(c);
                    try (FieldVector out = Batches.filter(in, keep, allocator)) {
                        assertEquals(in.getField(), out.getField());
                        List<Object> expected = new ArrayList<>();
                        for (int r : rows) {
                            expected.add(ref.get(r).get(c));
                        }
                        assertEquals(expected, values(out), in.getName() + ", round " + round);
                        if (run && c == 0) {
                            assertEquals(
                                    in.getDataBuffer().memoryAddress() + 4L * from,
                                    out.getDataBuffer().memoryAddress(),
                                    "a run is a slice: it shares the values");
                        }
                    }
                }
            }
            IllegalArgumentException tooMany = assertThrows(
                    IllegalArgumentException.class,
                    () -> Batches.filter(b.getVector(0), Selection.all(204), allocator));
            assertEquals("a selection among 204 rows cannot select from a vector of 203 values", tooMany.getMessage());
        }
    }

    @Test
    void outOfRangeSlicesAreRejectedNamingTheRangeAndTheSize() {
        try (VectorSchemaRoot b = batch(allocator, random(new Random(3), 0, 203))) {
            long before = allocator.getAllocatedMemory();
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> Batches.slice(b, 200, 4, allocator));
            assertTrue(e.getMessage().contains("[200, 204)") && e.getMessage().contains("203"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> Batches.slice(b, -1, 1, allocator));
            assertThrows(IllegalArgumentException.class, () -> Batches.slice(b, 0, -1, allocator));
            assertThrows(IllegalArgumentException.class, () -> Batches.slice(b, 204, 0, allocator));
            assertThrows(IllegalArgumentException.class, () -> Batches.slice(b, Integer.MAX_VALUE, 1, allocator));
            e = assertThrows(IllegalArgumentException.class, () -> Batches.slice(b.getVector(2), 150, 54, allocator));
            assertTrue(e.getMessage().contains("[150, 204)") && e.getMessage().contains("203"), e.getMessage());
            assertEquals(before, allocator.getAllocatedMemory());
        }
    }

    @Test
    void zeroRowSlicesAreEmptyBatchesThatConcatenate() {
        List<List<Object>> ref = random(new Random(4), 0, 20);
        try (VectorSchemaRoot b = batch(allocator, ref);
                VectorSchemaRoot atEnd = Batches.slice(b, 20, 0, allocator);
                VectorSchemaRoot inside = Batches.slice(b, 5, 0, allocator);
                VectorSchemaRoot tail = Batches.slice(b, 13, 7, allocator);
                VectorSchemaRoot fresh = VectorSchemaRoot.create(SCHEMA, allocator)) {
            assertEquals(0, atEnd.getRowCount());
            assertEquals(SCHEMA, inside.getSchema());
            assertEquals(List.of(), rows(inside));
            try (VectorSchemaRoot c = Batches.concat(List.of(atEnd, fresh, tail, inside, atEnd), allocator)) {
                assertEquals(ref.subList(13, 20), rows(c));
            }
            try (VectorSchemaRoot c = Batches.concat(List.of(fresh, inside), allocator)) {
                assertEquals(0, c.getRowCount());
                assertEquals(List.of(), rows(c));
            }
        }
    }

    @Test
    void slicesAndConcatenationsKeepNullabilityDictionaryEncodingAndMetadata() {
        Schema schema = new Schema(
                List.of(
                        new Field(
                                "id", new FieldType(false, new ArrowType.Int(32, true), null, Map.of("k", "v")), null),
                        new Field(
                                "code",
                                new FieldType(
                                        true,
                                        new ArrowType.Int(16, true),
                                        new DictionaryEncoding(7L, false, new ArrowType.Int(16, true))),
                                null)),
                Map.of("origin", "test"));
        try (VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator)) {
            b.allocateNew();
            IntVector id = (IntVector) b.getVector(0);
            SmallIntVector code = (SmallIntVector) b.getVector(1);
            for (int r = 0; r < 30; r++) {
                id.setSafe(r, r);
                if (r % 4 == 0) {
                    code.setNull(r);
                } else {
                    code.setSafe(r, r % 3);
                }
            }
            b.setRowCount(30);
            try (VectorSchemaRoot s1 = Batches.slice(b, 3, 11, allocator);
                    VectorSchemaRoot s2 = Batches.slice(b, 14, 16, allocator);
                    VectorSchemaRoot c = Batches.concat(List.of(s1, s2), allocator)) {
                assertEquals(schema, s1.getSchema());
                assertEquals(schema, c.getSchema());
                for (int col = 0; col < 2; col++) {
                    assertEquals(schema.getFields().get(col), s1.getVector(col).getField());
                    assertEquals(schema.getFields().get(col), c.getVector(col).getField());
                }
                for (int r = 0; r < 27; r++) {
                    assertEquals(id.getObject(r + 3), c.getVector(0).getObject(r));
                    assertEquals(code.getObject(r + 3), c.getVector(1).getObject(r));
                }
            }
        }
    }

    @Test
    void concatenatedPartsWhoseLengthsAreNotMultiplesOf8LineUpRowByRow() {
        int[] lengths = {3, 0, 5, 13, 1, 7, 0, 22, 9, 1, 1, 31};
        Random random = new Random(5);
        List<List<Object>> ref = new ArrayList<>();
        List<VectorSchemaRoot> parts = new ArrayList<>();
        try {
            for (int n : lengths) {
                List<List<Object>> rows = random(random, ref.size(), n);
                ref.addAll(rows);
                parts.add(batch(allocator, rows));
            }
            try (VectorSchemaRoot c = Batches.concat(parts, allocator)) {
                assertEquals(ref.size(), c.getRowCount());
                assertEquals(ref, rows(c));
            }
            for (int col = 0; col < SCHEMA.getFields().size(); col++) {
                List<FieldVector> column = new ArrayList<>();
                for (VectorSchemaRoot p : parts) {
                    column.add(p.getVector(col));
                }
                try (FieldVector v = Batches.concat(column, SCHEMA.getFields().get(col), allocator)) {
                    assertEquals(
                            column(ref, col),
                            values(v),
                            SCHEMA.getFields().get(col).getName());
                }
            }
            int at = 0;
            for (int p = 0; p < parts.size(); p++) {
                assertEquals(ref.subList(at, at + lengths[p]), rows(parts.get(p)), "part " + p + " is untouched");
                at += lengths[p];
            }
        } finally {
            parts.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void concatenationsOfRandomSlicesMatchTheReference() {
        Random random = new Random(6);
        List<List<Object>> ref = random(random, 0, 300);
        try (VectorSchemaRoot b = batch(allocator, ref)) {
            for (int trial = 0; trial < 300; trial++) {
                int k = 1 + random.nextInt(6);
                List<VectorSchemaRoot> parts = new ArrayList<>();
                List<List<Object>> expected = new ArrayList<>();
                try {
                    for (int p = 0; p < k; p++) {
                        int from = random.nextInt(ref.size() + 1);
                        int len = random.nextInt(Math.min(41, ref.size() - from + 1));
                        parts.add(Batches.slice(b, from, len, allocator));
                        expected.addAll(ref.subList(from, from + len));
                    }
                    try (VectorSchemaRoot c = Batches.concat(parts, allocator)) {
                        assertEquals(expected, rows(c), "trial " + trial);
                    }
                } finally {
                    parts.forEach(VectorSchemaRoot::close);
                }
            }
            assertEquals(ref, rows(b));
        }
    }

    @Test
    void noPartsGiveAnEmptyVectorOfTheField() {
        for (Field f : SCHEMA.getFields()) {
            try (FieldVector v = Batches.concat(List.of(), f, allocator)) {
                assertEquals(0, v.getValueCount());
                assertEquals(f, v.getField());
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Batches.concat(List.<VectorSchemaRoot>of(), allocator));
    }

    @Test
    void aSinglePartIsSlicedWholeNamedAsTheFieldAndIndependentOfThePart() {
        IntVector part = new IntVector("x", allocator);
        part.allocateNew(11);
        for (int r = 0; r < 11; r++) {
            if (r % 3 == 1) {
                part.setNull(r);
            } else {
                part.set(r, r * 10);
            }
        }
        part.setValueCount(11);
        List<Object> expected = values(part);
        Field y = Field.nullable("y", new ArrowType.Int(32, true));
        try (FieldVector v = Batches.concat(List.of(part), y, allocator)) {
            assertEquals(y, v.getField());
            assertEquals(expected, values(part), "the part is still usable");
            part.close();
            assertEquals(expected, values(v));
        }
    }

    @Test
    void aPartOfAnotherTypeIsRejectedNamingTheIndexAndBothTypes() {
        try (IntVector a = new IntVector("i", allocator);
                Float8Vector d = new Float8Vector("i", allocator)) {
            a.allocateNew(9);
            a.setValueCount(9);
            d.allocateNew(9);
            d.setValueCount(9);
            long before = allocator.getAllocatedMemory();
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> Batches.concat(List.of(a, a, d), INT, allocator));
            assertTrue(
                    e.getMessage().contains("part 2")
                            && e.getMessage().contains("FloatingPoint(DOUBLE)")
                            && e.getMessage().contains("Int(32, true)"),
                    e.getMessage());
            Field encoded = new Field(
                    "i",
                    new FieldType(
                            true,
                            new ArrowType.Int(32, true),
                            new DictionaryEncoding(1L, false, new ArrowType.Int(32, true))),
                    null);
            e = assertThrows(IllegalArgumentException.class, () -> Batches.concat(List.of(a, a), encoded, allocator));
            assertTrue(e.getMessage().contains("part 0"), e.getMessage());
            assertEquals(before, allocator.getAllocatedMemory(), "a rejected concatenation allocates nothing");
        }
        try (StructVector s1 = StructVector.empty("st", allocator);
                StructVector s2 = StructVector.empty("st", allocator)) {
            s1.addOrGet("x", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
            s2.addOrGet("x", FieldType.nullable(ArrowType.Utf8.INSTANCE), VarCharVector.class);
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> Batches.concat(List.of(s1, s2), s1.getField(), allocator));
            assertTrue(e.getMessage().contains("part 1") && e.getMessage().contains("Utf8"), e.getMessage());
        }
    }

    @Test
    void batchesOfAnotherSchemaOrWithShortColumnsAreRejected() {
        Schema renamed = new Schema(List.of(
                Field.nullable("j", new ArrowType.Int(32, true)),
                DOUBLE,
                SCHEMA.getFields().get(2),
                SCHEMA.getFields().get(3)));
        try (VectorSchemaRoot a = batch(allocator, random(new Random(7), 0, 10));
                VectorSchemaRoot other = VectorSchemaRoot.create(renamed, allocator)) {
            long before = allocator.getAllocatedMemory();
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> Batches.concat(List.of(a, a, other), allocator));
            assertTrue(e.getMessage().contains("batch 2"), e.getMessage());
            a.getVector(1).setValueCount(9);
            e = assertThrows(IllegalArgumentException.class, () -> Batches.concat(List.of(a), allocator));
            assertTrue(e.getMessage().contains("10 rows") && e.getMessage().contains("9 values"), e.getMessage());
            assertEquals(before, allocator.getAllocatedMemory());
        }
    }

    @Test
    void listStructBitNullLargeViewAndFixedSizeListColumnsSliceAndConcatenate() {
        Random random = new Random(8);
        int n = 77;
        try (ListVector list = ListVector.empty("l", allocator);
                StructVector struct = StructVector.empty("st", allocator);
                BitVector bits = new BitVector("bits", allocator);
                NullVector nulls = new NullVector("n", n);
                LargeVarCharVector large = new LargeVarCharVector("large", allocator);
                ViewVarCharVector view = new ViewVarCharVector("view", allocator);
                FixedSizeListVector pairs = FixedSizeListVector.empty("pairs", 2, allocator)) {
            UnionListWriter w = list.getWriter();
            for (int r = 0; r < n; r++) {
                w.setPosition(r);
                if (r % 5 == 3) {
                    continue; // a null list
                }
                w.startList();
                for (int k = 0; k < r % 4; k++) {
                    w.integer().writeInt(r * 100 + k);
                }
                w.endList();
            }
            list.setValueCount(n);
            IntVector x = struct.addOrGet("x", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
            VarCharVector y = struct.addOrGet("y", FieldType.nullable(ArrowType.Utf8.INSTANCE), VarCharVector.class);
            struct.allocateNew();
            bits.allocateNew(n);
            for (int r = 0; r < n; r++) {
                if (r % 3 == 0) {
                    struct.setNull(r);
                } else {
                    struct.setIndexDefined(r);
                    x.setSafe(r, r);
                    if (r % 4 == 0) {
                        y.setNull(r);
                    } else {
                        y.setSafe(r, ("v" + r).getBytes(StandardCharsets.UTF_8));
                    }
                }
                if (random.nextInt(4) == 0) {
                    bits.setNull(r);
                } else {
                    bits.set(r, random.nextInt(2));
                }
            }
            struct.setValueCount(n);
            bits.setValueCount(n);
            large.allocateNew();
            view.allocateNew();
            IntVector pairValues = (IntVector) pairs.addOrGetVector(FieldType.nullable(new ArrowType.Int(32, true)))
                    .getVector();
            pairs.allocateNew();
            for (int r = 0; r < n; r++) {
                if (r % 6 == 1) {
                    large.setNull(r);
                    view.setNull(r);
                    pairs.setNull(r);
                    continue;
                }
                byte[] text =
                        ("value " + r + " longer than twelve bytes".repeat(r % 2)).getBytes(StandardCharsets.UTF_8);
                large.setSafe(r, text);
                view.setSafe(r, text);
                pairs.setNotNull(r);
                pairValues.setSafe(2 * r, r);
                if (r % 5 == 0) {
                    pairValues.setNull(2 * r + 1);
                } else {
                    pairValues.setSafe(2 * r + 1, -r);
                }
            }
            large.setValueCount(n);
            view.setValueCount(n);
            pairs.setValueCount(n);
            for (FieldVector v : List.<FieldVector>of(list, struct, bits, nulls, large, view, pairs)) {
                for (int trial = 0; trial < 40; trial++) {
                    int k = 1 + random.nextInt(4);
                    List<FieldVector> parts = new ArrayList<>();
                    List<Object> expected = new ArrayList<>();
                    try {
                        for (int p = 0; p < k; p++) {
                            int from = random.nextInt(n + 1);
                            int len = random.nextInt(n - from + 1);
                            FieldVector s = Batches.slice(v, from, len, allocator);
                            parts.add(s);
                            List<Object> want = new ArrayList<>();
                            for (int r = from; r < from + len; r++) {
                                want.add(v.getObject(r));
                                assertEquals(v.isNull(r), s.isNull(r - from));
                            }
                            assertEquals(want, objects(s), v.getName() + " slice [" + from + ", " + (from + len) + ")");
                            expected.addAll(want);
                        }
                        try (FieldVector c = Batches.concat(parts, v.getField(), allocator)) {
                            assertEquals(v.getField(), c.getField());
                            assertEquals(expected, objects(c), v.getName() + " trial " + trial);
                        }
                    } finally {
                        parts.forEach(FieldVector::close);
                    }
                }
            }
        }
    }

    @Test
    void failuresAtEveryPointUnderAMemoryLimitLeaveNothingAllocated() {
        List<List<Object>> ref = random(new Random(9), 0, 1000);
        try (VectorSchemaRoot b = batch(allocator, ref);
                VectorSchemaRoot s1 = Batches.slice(b, 3, 500, allocator);
                VectorSchemaRoot s2 = Batches.slice(b, 503, 497, allocator)) {
            int concatFailures = 0;
            int sliceFailures = 0;
            boolean concatDone = false;
            boolean sliceDone = false;
            for (long limit = 0; !(concatDone && sliceDone); limit += 512) {
                assertTrue(limit < 1 << 22, "never succeeded");
                try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, limit)) {
                    if (!concatDone) {
                        try (VectorSchemaRoot c = Batches.concat(List.of(s1, b, s2), limited)) {
                            List<List<Object>> expected = new ArrayList<>(ref.subList(3, 503));
                            expected.addAll(ref);
                            expected.addAll(ref.subList(503, 1000));
                            assertEquals(expected, rows(c));
                            concatDone = true;
                        } catch (OutOfMemoryException e) {
                            concatFailures++;
                            assertEquals(0, limited.getAllocatedMemory(), "after a failed concat, limit " + limit);
                        }
                    }
                    if (!sliceDone) {
                        try (VectorSchemaRoot s = Batches.slice(b, 5, 990, limited)) {
                            assertEquals(ref.subList(5, 995), rows(s));
                            sliceDone = true;
                        } catch (OutOfMemoryException e) {
                            sliceFailures++;
                            assertEquals(0, limited.getAllocatedMemory(), "after a failed slice, limit " + limit);
                        }
                    }
                }
            }
            assertTrue(concatFailures > 10, "concat failed " + concatFailures + " times");
            assertTrue(sliceFailures > 0, "slice failed " + sliceFailures + " times");
            assertEquals(ref, rows(b));
        }
    }

    @Test
    void withColumnsMovesTheBatchAndTheExtraVectorsIntoTheResult() {
        List<List<Object>> ref = random(new Random(10), 0, 37);
        VectorSchemaRoot b = batch(allocator, ref);
        long batchOnly = allocator.getAllocatedMemory();
        IntVector k = new IntVector("k", allocator);
        k.allocateNew(37);
        for (int r = 0; r < 37; r++) {
            k.set(r, -r);
        }
        k.setValueCount(37);
        long before = allocator.getAllocatedMemory();
        try (VectorSchemaRoot result = Batches.withColumns(b, List.of(k))) {
            assertEquals(before, allocator.getAllocatedMemory(), "nothing is copied");
            assertEquals(37, result.getRowCount());
            assertEquals(
                    List.of("i", "d", "s", "b", "k"),
                    result.getSchema().getFields().stream().map(Field::getName).toList());
            assertEquals(k.getField(), result.getSchema().getFields().get(4));
            assertEquals(0, b.getVector(0).getValueCount(), "the old batch is emptied");
            assertDoesNotThrow(b::close, "closing the consumed batch again is harmless");
            assertEquals(before, allocator.getAllocatedMemory());
            List<Object> ks = values(result.getVector(4));
            for (int r = 0; r < 37; r++) {
                assertEquals(-r, ks.get(r));
            }
            try (VectorSchemaRoot first = Batches.select(result, new int[] {0, 1, 2, 3})) {
                assertEquals(ref, rows(first));
                assertEquals(batchOnly, allocator.getAllocatedMemory(), "select freed the extra column");
            }
        }
    }

    @Test
    void withColumnsRejectsExtraVectorsOfAnotherLengthClosingThemAndLeavingTheBatch() {
        List<List<Object>> ref = random(new Random(11), 0, 37);
        try (VectorSchemaRoot b = batch(allocator, ref)) {
            long batchOnly = allocator.getAllocatedMemory();
            IntVector good = new IntVector("good", allocator);
            good.allocateNew(37);
            good.setValueCount(37);
            IntVector shortOne = new IntVector("short", allocator);
            shortOne.allocateNew(36);
            shortOne.setValueCount(36);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> Batches.withColumns(b, List.of(good, shortOne)));
            assertTrue(
                    e.getMessage().contains("36")
                            && e.getMessage().contains("37")
                            && e.getMessage().contains("short"),
                    e.getMessage());
            assertEquals(batchOnly, allocator.getAllocatedMemory(), "the extra vectors were closed");
            assertEquals(ref, rows(b), "the batch is as it was");

            IntVector twice = new IntVector("twice", allocator);
            twice.allocateNew(37);
            twice.setValueCount(37);
            e = assertThrows(IllegalArgumentException.class, () -> Batches.withColumns(b, List.of(twice, twice)));
            assertTrue(e.getMessage().contains("twice"), e.getMessage());
            assertEquals(batchOnly, allocator.getAllocatedMemory());

            e = assertThrows(IllegalArgumentException.class, () -> Batches.withColumns(b, List.of(b.getVector(1))));
            assertTrue(e.getMessage().contains("already a column"), e.getMessage());
            assertEquals(ref, rows(b), "a column of the batch listed as extra is not closed");
        }
    }

    @Test
    void selectKeepsTheChosenColumnsInOrderAndFreesTheOthers() {
        List<List<Object>> ref = random(new Random(12), 0, 50);
        VectorSchemaRoot b = batch(allocator, ref);
        long keep = b.getVector(2).getDataBuffer().capacity()
                + b.getVector(2).getOffsetBuffer().capacity()
                + b.getVector(2).getValidityBuffer().capacity();
        long before = allocator.getAllocatedMemory();
        try (VectorSchemaRoot result = Batches.select(b, new int[] {2, 0})) {
            assertEquals(
                    List.of(SCHEMA.getFields().get(2), SCHEMA.getFields().get(0)),
                    result.getSchema().getFields());
            assertEquals(50, result.getRowCount());
            assertEquals(column(ref, 2), values(result.getVector(0)));
            assertEquals(column(ref, 0), values(result.getVector(1)));
            long after = allocator.getAllocatedMemory();
            assertTrue(after < before && after >= keep, "the unselected columns are freed: " + before + " -> " + after);
            assertDoesNotThrow(b::close, "closing the consumed batch again is harmless");
            assertEquals(after, allocator.getAllocatedMemory());
        }
        try (VectorSchemaRoot c = batch(allocator, ref);
                VectorSchemaRoot none = Batches.select(c, new int[0])) {
            assertEquals(0, none.getFieldVectors().size());
            assertEquals(50, none.getRowCount());
        }
    }

    @Test
    void selectRejectsBadIndexesAndLeavesTheBatch() {
        List<List<Object>> ref = random(new Random(13), 0, 20);
        try (VectorSchemaRoot b = batch(allocator, ref)) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> Batches.select(b, new int[] {0, 4}));
            assertTrue(e.getMessage().contains("4") && e.getMessage().contains("4 columns"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> Batches.select(b, new int[] {-1}));
            e = assertThrows(IllegalArgumentException.class, () -> Batches.select(b, new int[] {1, 3, 1}));
            assertTrue(e.getMessage().contains("twice"), e.getMessage());
            assertEquals(ref, rows(b));
        }
    }

    @Test
    void bytesIsTheSumOfTheVectorsBufferSizes() {
        try (VectorSchemaRoot b = batch(allocator, random(new Random(14), 0, 100));
                VectorSchemaRoot empty = VectorSchemaRoot.create(SCHEMA, allocator)) {
            long sum = 0;
            for (FieldVector v : b.getFieldVectors()) {
                sum += v.getBufferSize();
            }
            assertTrue(sum > 100 * (4 + 8));
            assertEquals(sum, Batches.bytes(b));
            assertEquals(0, Batches.bytes(empty));
            assertNotEquals(0, Batches.bytes(b));
        }
    }

    private static List<Object> objects(FieldVector v) {
        List<Object> out = new ArrayList<>(v.getValueCount());
        for (int r = 0; r < v.getValueCount(); r++) {
            out.add(v.getObject(r));
        }
        return out;
    }
}
