package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.assertZeroLeftAfter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.Placement;
import dev.quiver.errors.ErrorKind;
import dev.quiver.errors.InputException;
import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.types.DataType;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed batches beyond what a golden file says (the golden cases are in
 * {@code bad-input/batches.txt}): valid but unusual batches evaluate to hand-computed results
 * with the checks on, on the CPU and on OpenCL; schemas with repeated names; the columns a filter
 * copies; a pipeline's source; and a malformed file as Arrow's IPC reader really reads it.
 */
class MalformedBatchTest extends QuiverTestBase {
    private static final Schema XS =
            new Schema(List.of(DataType.INT32.toField("x", true), DataType.UTF8.toField("s", true)));

    private List<Placement> placements() {
        List<Placement> out = new ArrayList<>(List.of(Placement.CPU));
        if (!quiver.openClDevices().isEmpty() || "true".equalsIgnoreCase(System.getenv("CI"))) {
            OpenClAvailability.requireOpenCl(quiver);
            out.add(Placement.OPENCL);
        }
        return out;
    }

    private VectorSchemaRoot xs(List<Integer> x, List<String> s) {
        return TestColumns.batch(
                x.size(),
                TestColumns.of(allocator, "x", DataType.INT32, x, () -> 99),
                TestColumns.of(allocator, "s", DataType.UTF8, s, null));
    }

    // ------------------------------------------------------------------ valid batches, the checks on

    @Test
    void validUnusualBatchesGiveTheHandComputedResults() {
        for (Placement p : placements()) {
            // Nulls with garbage behind them, empty strings, multi-byte characters.
            try (VectorSchemaRoot b = xs(Arrays.asList(1, null, 3, 4), Arrays.asList("héllo", "", null, "ab"))) {
                CompiledExpression e = quiver.compile(XS, Expr.parse("x * 10 + length(s)"));
                assertEquals(
                        Arrays.asList(15L, null, null, 42L),
                        TestColumns.valuesAndClose(e.evaluate(b, p)),
                        p.toString());
            }
            // A string column whose offsets start past 0 (a slice of a longer buffer, as IPC producers write them).
            try (VectorSchemaRoot b = xs(List.of(1, 2), List.of("zzab", "cde"))) {
                VarCharVector s = (VarCharVector) b.getVector("s");
                s.getOffsetBuffer().setInt(0, 2); // row 0 is "ab": bytes 2..4
                CompiledExpression e = quiver.compile(XS, Expr.parse("upper(s)"));
                assertEquals(List.of("AB", "CDE"), TestColumns.valuesAndClose(e.evaluate(b, p)), p.toString());
            }
            // Zero rows with empty buffers, as an IPC reader loads an empty batch.
            try (VectorSchemaRoot b = xs(List.of(), List.of())) {
                for (FieldVector v : b.getFieldVectors()) {
                    List<ArrowBuf> empty = new ArrayList<>();
                    for (int i = 0; i < v.getFieldBuffers().size(); i++) {
                        empty.add(allocator.getEmpty());
                    }
                    v.loadFieldBuffers(new ArrowFieldNode(0, 0), empty);
                }
                CompiledExpression e = quiver.compile(XS, Expr.parse("x + length(s)"));
                assertEquals(List.of(), TestColumns.valuesAndClose(e.evaluate(b, p)), p.toString());
            }
        }
    }

    @Test
    void garbageIndicesBehindNullsOfADictionaryColumnAreNotLookedAt() {
        DictionaryEncoding encoding = new DictionaryEncoding(7, false, new ArrowType.Int(32, true));
        Field field = new Field("p", new FieldType(true, new ArrowType.Int(32, true), encoding), null);
        Schema schema = new Schema(List.of(field));
        try (FieldVector values = TestColumns.of(allocator, "p values", DataType.FLOAT64, List.of(1.5, 2.5), null);
                IntVector indices = (IntVector) field.createVector(allocator);
                VectorSchemaRoot b = new VectorSchemaRoot(List.of(field), List.of(indices), 5)) {
            DictionaryProvider.MapDictionaryProvider dictionaries = new DictionaryProvider.MapDictionaryProvider();
            dictionaries.put(new Dictionary(values, encoding));
            indices.allocateNew(5);
            int[] written = {1, 1_000_000, 0, -7, 1}; // rows 1 and 3 are null, their indices far outside the dictionary
            for (int r = 0; r < written.length; r++) {
                indices.set(r, written[r]);
            }
            indices.setNull(1);
            indices.setNull(3);
            indices.setValueCount(5);
            CompiledExpression e = quiver.compile(schema, dictionaries, Expr.parse("p * 2 + 1"));
            for (Placement p : placements()) {
                assertEquals(
                        Arrays.asList(6.0, null, 4.0, null, 6.0),
                        TestColumns.valuesAndClose(e.evaluate(b, p)),
                        p.toString());
                // and one valid index moved out of range is refused, naming the row
                indices.set(4, 2);
                InputException bad = assertThrows(
                        InputException.class, () -> e.evaluate(b, p).close());
                assertEquals(
                        "column 'p' is malformed: dictionary index 2 at row 4 is outside its dictionary of 2 values"
                                + " (indices 0 to 1)",
                        bad.detail());
                assertEquals(4, bad.row());
                assertEquals("p", bad.column());
                indices.set(4, 1);
            }
        }
    }

    // ------------------------------------------------------------------ repeated names

    @Test
    void repeatedNamesTheExpressionDoesNotReadAreHarmless() {
        Schema schema = new Schema(List.of(
                DataType.INT32.toField("a", true),
                DataType.INT32.toField("a", true),
                DataType.UTF8.toField("b", true),
                DataType.INT32.toField("a", true)));
        CompiledExpression e = quiver.compile(schema, Expr.parse("length(b) * 2"));
        assertTrue(e.plan().explain().contains("#0 = column 2 'b'"), e.plan().explain());
        for (Placement p : placements()) {
            try (VectorSchemaRoot batch = TestColumns.batch(
                    2,
                    TestColumns.of(allocator, "a", DataType.INT32, List.of(1, 2), null),
                    TestColumns.of(allocator, "a", DataType.INT32, List.of(3, 4), null),
                    TestColumns.of(allocator, "b", DataType.UTF8, List.of("abc", "d"), null),
                    TestColumns.of(allocator, "a", DataType.INT32, List.of(5, 6), null))) {
                assertEquals(List.of(6L, 2L), TestColumns.valuesAndClose(e.evaluate(batch, p)), p.toString());
            }
        }
    }

    @Test
    void aReferenceToARepeatedNameIsAPlanningErrorNamingBothPositions() {
        Schema schema = new Schema(List.of(
                DataType.INT32.toField("a", true),
                DataType.INT64.toField("b", true),
                DataType.INT32.toField("a", true)));
        PlanningException e = assertThrows(PlanningException.class, () -> quiver.compile(schema, Expr.parse("a + b")));
        assertEquals(ErrorKind.PLANNING, e.kind());
        assertEquals(
                "column 'a' is ambiguous: the schema has 2 columns of that name, at positions 0 and 2 (counted from 0);"
                        + " rename all but one of them",
                e.detail());
    }

    @Test
    void theBinderReadsTheColumnAtItsPlannedPosition() {
        Schema ab = new Schema(List.of(DataType.INT32.toField("a", true), DataType.INT32.toField("b", true)));
        CompiledExpression sum = quiver.compile(ab, Expr.parse("a + b"));
        // The batch repeats 'a' after the planned columns: the planned position (0) is read, not a later 'a'.
        try (VectorSchemaRoot batch = TestColumns.batch(
                2,
                TestColumns.of(allocator, "a", DataType.INT32, List.of(1, 2), null),
                TestColumns.of(allocator, "b", DataType.INT32, List.of(10, 20), null),
                TestColumns.of(allocator, "a", DataType.INT32, List.of(100, 200), null))) {
            assertEquals(List.of(11, 22), TestColumns.valuesAndClose(sum.evaluate(batch, Placement.CPU)));
        }
        // Columns moved: read by name, but two 'a's and none where it was planned is ambiguous.
        try (VectorSchemaRoot batch = TestColumns.batch(
                2,
                TestColumns.of(allocator, "b", DataType.INT32, List.of(10, 20), null),
                TestColumns.of(allocator, "a", DataType.INT32, List.of(1, 2), null),
                TestColumns.of(allocator, "a", DataType.INT32, List.of(100, 200), null))) {
            InputException e = assertThrows(
                    InputException.class,
                    () -> sum.evaluate(batch, Placement.CPU).close());
            assertEquals(
                    "the batch has several columns named 'a' and none at position 0, where it was planned: which one to read"
                            + " is ambiguous",
                    e.detail());
            assertEquals("a", e.column());
        }
        assertEquals(0, allocator.getAllocatedMemory());
    }

    // ------------------------------------------------------------------ what is read without being computed on

    @Test
    void aFilterChecksTheColumnsItCopiesAndAProjectionTheColumnsItReads() {
        CompiledExpression keep = quiver.compile(XS, Expr.parse("x > 1"));
        CompiledProjection projection = quiver.compileProjection(XS, Expr.parse("x > 1"), List.of(Expr.parse("x * 2")));
        CompiledProjection readsS = quiver.compileProjection(XS, Expr.parse("x > 1"), List.of(Expr.parse("s")));
        for (Placement p : placements()) {
            try (VectorSchemaRoot b = xs(List.of(1, 2, 3), List.of("abc", "de", "fgh"))) {
                BatchCorruption.apply(b, "s offset 2 1", allocator);
                InputException e = assertThrows(
                        InputException.class, () -> keep.filter(b, p, allocator).close());
                assertEquals("column 's' is malformed: its offsets decrease at row 1 (from 3 to 1)", e.detail());
                assertEquals(1, e.row());
                assertEquals("(x > 1)", e.expression());
                // A projection compacts only the columns it reads: the malformed s is never touched, so not refused.
                try (VectorSchemaRoot out = projection.project(b, p, allocator)) {
                    assertEquals(2, out.getRowCount());
                    assertEquals(4L, ((Number) out.getVector(0).getObject(0)).longValue());
                    assertEquals(6L, ((Number) out.getVector(0).getObject(1)).longValue());
                }
                // One that reads s refuses it, with the filter's message.
                InputException viaProjection = assertThrows(
                        InputException.class,
                        () -> readsS.project(b, p, allocator).close());
                assertEquals(e.detail(), viaProjection.detail());
                // evaluate reads only x: the malformed s is none of its business
                assertEquals(Arrays.asList(false, true, true), TestColumns.valuesAndClose(keep.evaluate(b, p)));
            }
        }
        assertEquals(0, allocator.getAllocatedMemory());
    }

    @Test
    void aPipelineNamesTheMalformedBatchOfItsSource() throws Exception {
        try (QueryRuntime runtime = QueryRuntime.create(2)) {
            QueryExecution q = Pipeline.from(XS)
                    .project("x + 1 AS y")
                    .placement(Placement.CPU)
                    .plan(quiver)
                    .execute(
                            runtime,
                            BatchStreams.generate(
                                    XS,
                                    3,
                                    i -> {
                                        VectorSchemaRoot b = xs(List.of(i, i), List.of("ab", "cd"));
                                        if (i == 1) {
                                            BatchCorruption.apply(
                                                    b,
                                                    "s offset 0 -4",
                                                    allocator); // not read by y, passed by the source
                                        }
                                        return b;
                                    },
                                    runtime.executor()));
            try {
                List<Long> seen = new ArrayList<>();
                Throwable t = assertThrows(
                        Throwable.class,
                        () -> BatchStreams.drain(q.stream(), batch -> {
                            for (Object y : TestColumns.values(batch.getVector("y"))) {
                                seen.add(((Number) y).longValue());
                            }
                        }));
                InputException e = ProbeFixtures.causeOf(t, InputException.class);
                assertEquals(List.of(1L, 1L), seen, "batch 0 went through");
                assertEquals(1, e.batch());
                assertEquals("s", e.column());
                assertEquals(0, e.row());
                assertEquals("column 's' is malformed: its first offset is -4; offsets start at 0 or more", e.detail());
                assertTrue(e.getMessage().endsWith(" in batch 1"), e.getMessage());
            } finally {
                q.close();
            }
            assertZeroLeftAfter(allocator, q.whenReleased());
        }
    }

    // ------------------------------------------------------------------ as Arrow's IPC reader reads it

    @Test
    void aFileWithDecreasingOffsetsIsRefusedAsItIsRead(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("decreasing.arrow");
        try (VectorSchemaRoot b = xs(List.of(1, 2, 3), List.of("abc", "de", "fgh"));
                FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                ArrowFileWriter writer = new ArrowFileWriter(b, new DictionaryProvider.MapDictionaryProvider(), out)) {
            // The bytes a buggy producer writes: row 1 "ends" before it starts (length(s) was -3 before the check).
            BatchCorruption.apply(b, "s offset 2 0", allocator);
            writer.start();
            writer.writeBatch();
            writer.end();
        }
        CompiledExpression length = quiver.compile(XS, Expr.parse("length(s)"));
        try (ArrowFileReader reader = new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), allocator)) {
            assertTrue(reader.loadNextBatch());
            VectorSchemaRoot batch = reader.getVectorSchemaRoot();
            for (Placement p : placements()) {
                InputException e = assertThrows(
                        InputException.class,
                        () -> length.evaluate(batch, p, allocator).close());
                assertEquals("column 's' is malformed: its offsets decrease at row 1 (from 3 to 0)", e.detail());
                assertEquals(1, e.row());
            }
        }
        assertEquals(0, allocator.getAllocatedMemory());
    }
}
