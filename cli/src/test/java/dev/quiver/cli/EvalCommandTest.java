package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Quiver;
import dev.quiver.types.DataType;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver eval} over a small hand-written Arrow file of two batches with nulls; every
 * expected value below is computed by hand (SQL three-valued logic for AND: NULL AND FALSE is
 * FALSE, NULL AND TRUE is NULL).
 */
class EvalCommandTest {

    // batch 0: rows 0-3, batch 1: rows 4-6
    private static final Double[] X = CliFixtures.X;
    private static final int[] BATCHES = CliFixtures.BATCHES;

    @TempDir
    Path dir;

    private BufferAllocator allocator;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void close() {
        assertEquals(0, allocator.getAllocatedMemory(), "the test's own allocator leaked");
        allocator.close();
    }

    @Test
    void writesOneResultColumnPerInputBatch() throws IOException {
        Path in = writeInput(false);
        assertEquals(Arrays.asList(3.0, 7.0, null, 11.0, 6.0, null, 2.0), evalToFile("x * 2 + 1", in, "cpu"));
    }

    /** The command line registers the guide's haversine: the distance from (x°, 0) to (0, 0) is x degrees of a meridian. */
    @Test
    void haversineIsRegistered() throws IOException {
        Path in = writeInput(false);
        List<Object> km = evalToFile("haversine(x, 0, 0, 0)", in, "cpu");
        for (int i = 0; i < X.length; i++) {
            if (X[i] == null) {
                assertEquals(null, km.get(i), "row " + i);
            } else {
                double expected = Math.toRadians(X[i]) * CliFunctions.EARTH_RADIUS_KM;
                assertEquals(expected, (Double) km.get(i), 1e-9 * expected, "row " + i);
            }
        }
    }

    @Test
    void stringResults() throws IOException {
        Path in = writeInput(false);
        assertEquals(
                Arrays.asList("ABC", "APPLE", "ZED", null, "AB", "A", null), evalToFile("upper(name)", in, "auto"));
    }

    @Test
    void booleanResultsFollowThreeValuedLogic() throws IOException {
        Path in = writeInput(false);
        assertEquals(
                Arrays.asList(false, true, false, null, false, null, false),
                evalToFile("x > 2 AND name LIKE 'a%'", in, "auto"));
    }

    @Test
    void readsTheIpcStreamFormatToo() throws IOException {
        Path in = writeInput(true);
        assertEquals(Arrays.asList(3.0, 7.0, null, 11.0, 6.0, null, 2.0), evalToFile("x * 2 + 1", in, "auto"));
    }

    @Test
    void runsOnOpenClWhenThereIsADevice() throws IOException {
        try (BufferAllocator a = allocator.newChildAllocator("probe", 0, Long.MAX_VALUE);
                Quiver q = Quiver.builder().allocator(a).build()) {
            Assumptions.assumeFalse(q.openClDevices().isEmpty(), "no OpenCL device: " + q.openClStatus());
        }
        Path in = writeInput(false);
        assertEquals(Arrays.asList(3.0, 7.0, null, 11.0, 6.0, null, 2.0), evalToFile("x * 2 + 1", in, "opencl"));
        // Both transfer modes give the same values (the copy path writes the inputs and reads the result back).
        for (String mode : List.of("copy", "zero-copy")) {
            assertEquals(
                    Arrays.asList(3.0, 7.0, null, 11.0, 6.0, null, 2.0),
                    evalToFile("x * 2 + 1", in, "opencl", "--transfer", mode));
        }
    }

    @Test
    void anUnknownTransferModeIsExitTwo() throws IOException {
        Path in = writeInput(false);
        CliRun run = CliRun.of("eval", "x", "--input", in.toString(), "--transfer", "sometimes");
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(
                run.err().contains("unknown OpenCL transfer mode 'sometimes': use auto, zero-copy or copy"), run.err());
    }

    @Test
    void withoutOutputPrintsTheColumnsItReadsAndTheResult() throws IOException {
        Path in = writeInput(false);
        CliRun run = CliRun.of("eval", "upper(name)", "--input", in.toString(), "--limit", "5");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(0L, run.subcommand("eval", EvalCommand.class).bytesLeft);
        List<String> lines = run.out().lines().toList();
        assertEquals(
                List.of(
                        "name  | result",
                        "----- | ------",
                        "abc   | ABC",
                        "apple | APPLE",
                        "zed   | ZED",
                        "NULL  | NULL",
                        "Ab    | AB",
                        "7 rows in 2 batches (first 5 shown, --limit); result Utf8"),
                lines);
    }

    @Test
    void theTableShowsEveryColumnTheExpressionReads() throws IOException {
        Path in = writeInput(false);
        CliRun run = CliRun.of("eval", "x > 2 AND name LIKE 'a%'", "--input", in.toString());
        assertEquals(0, run.exitCode(), run.err());
        List<String> lines = run.out().lines().toList();
        assertEquals("x    | name  | result", lines.get(0));
        assertEquals("3.0  | apple | true", lines.get(3));
        assertEquals("5.0  | NULL  | NULL", lines.get(5));
        assertEquals("7 rows in 2 batches; result Boolean", lines.getLast());
    }

    @Test
    void errorsAreExitCodesWithMessages() throws IOException {
        Path in = writeInput(false);
        CliRun unknown = CliRun.of("eval", "nope + 1", "--input", in.toString());
        assertEquals(2, unknown.exitCode());
        assertTrue(unknown.err().startsWith("error: ") && unknown.err().contains("nope"), unknown.err());
        assertFalse(unknown.err().contains("\tat "), unknown.err());

        CliRun missing =
                CliRun.of("eval", "x", "--input", dir.resolve("absent.arrow").toString());
        assertEquals(2, missing.exitCode());
        assertTrue(missing.err().contains("no such file"), missing.err());

        Path garbage = dir.resolve("garbage.arrow");
        Files.writeString(garbage, "this is not arrow");
        CliRun notArrow = CliRun.of("eval", "x", "--input", garbage.toString());
        assertEquals(2, notArrow.exitCode(), notArrow.err());
        assertTrue(notArrow.err().contains("is not an Arrow IPC file or stream"), notArrow.err());
        assertEquals(0L, notArrow.subcommand("eval", EvalCommand.class).bytesLeft);
    }

    @Test
    void invalidUtf8InTheInputIsABadInputNamingTheRow() throws IOException {
        Path path = dir.resolve("bad-utf8.arrow");
        Schema schema = new Schema(List.of(DataType.UTF8.toField("name", true)));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                ArrowWriter writer = new ArrowFileWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)) {
            VarCharVector name = (VarCharVector) root.getVector("name");
            name.allocateNew(3);
            name.setSafe(0, "ok".getBytes(StandardCharsets.UTF_8));
            name.setSafe(1, "caf\u00e9".getBytes(StandardCharsets.UTF_8));
            name.setSafe(2, new byte[] {'x', (byte) 0xC0, (byte) 0xAF}); // an overlong '/'
            name.setValueCount(3);
            root.setRowCount(3);
            writer.start();
            writer.writeBatch();
            writer.end();
        }
        CliRun run = CliRun.of("eval", "upper(name)", "--input", path.toString());
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().contains("invalid UTF-8 in column 'name' at row 2"), run.err());
        assertEquals(0L, run.subcommand("eval", EvalCommand.class).bytesLeft);
    }

    @Test
    void anEvaluationErrorIsExitOneAndLeavesNoOutputFile() throws IOException {
        Path in = writeInput(false);
        Path out = dir.resolve("out.arrow");
        // x = 0.5 in the last batch: CAST(0.5 * 2 - 1 AS INT) = 0 divides by zero in a non-null row
        CliRun run =
                CliRun.of("eval", "10 / CAST(x * 2 - 1 AS INT)", "--input", in.toString(), "--output", out.toString());
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().contains("division by zero"), run.err());
        assertFalse(Files.exists(out));
        assertEquals(0L, run.subcommand("eval", EvalCommand.class).bytesLeft);
    }

    /** Runs eval with --output and reads the result column back, checking its name and the batch sizes. */
    @Test
    void dictionaryEncodedColumnsOfAFileComputeAsTheirValues() throws IOException {
        Path path = dir.resolve("dict.arrow");
        try (VarCharVector dict = new VarCharVector("dict", allocator);
                VarCharVector plain = new VarCharVector("name", allocator)) {
            String[] words = {"apple", "Banana", "cherry"};
            dict.allocateNew(words.length);
            for (int i = 0; i < words.length; i++) {
                dict.setSafe(i, words[i].getBytes(StandardCharsets.UTF_8));
            }
            dict.setValueCount(words.length);
            var dictionary = new Dictionary(dict, new DictionaryEncoding(5L, false, new ArrowType.Int(32, true)));
            String[] rows = {"cherry", null, "apple", "Banana"};
            plain.allocateNew(rows.length);
            for (int i = 0; i < rows.length; i++) {
                if (rows[i] == null) {
                    plain.setNull(i);
                } else {
                    plain.setSafe(i, rows[i].getBytes(StandardCharsets.UTF_8));
                }
            }
            plain.setValueCount(rows.length);
            try (FieldVector encoded = (FieldVector) DictionaryEncoder.encode(plain, dictionary);
                    VectorSchemaRoot root = new VectorSchemaRoot(List.of(encoded));
                    FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    ArrowFileWriter writer =
                            new ArrowFileWriter(root, new DictionaryProvider.MapDictionaryProvider(dictionary), ch)) {
                root.setRowCount(rows.length);
                writer.start();
                writer.writeBatch();
                writer.end();
            }
        }
        Path out = dir.resolve("dict-out.arrow");
        CliRun run = CliRun.of("eval", "upper(name) || '!'", "--input", path.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("CHERRY!") && run.out().contains("BANANA!"), run.out());
        run = CliRun.of("eval", "upper(name)", "--input", path.toString(), "--output", out.toString());
        assertEquals(0, run.exitCode(), run.err());
        List<Object> values = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(out);
                ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            while (reader.loadNextBatch()) {
                VarCharVector v = (VarCharVector) root.getVector(0);
                for (int i = 0; i < root.getRowCount(); i++) {
                    values.add(v.isNull(i) ? null : new String(v.get(i), StandardCharsets.UTF_8));
                }
            }
        }
        assertEquals(Arrays.asList("CHERRY", null, "APPLE", "BANANA"), values);
        CliRun table = CliRun.of("eval", "name LIKE '%a%'", "--input", path.toString());
        assertEquals(0, table.exitCode(), table.err());
        assertTrue(table.out().contains("cherry"), table.out());
        assertTrue(table.out().contains("Banana | true"), table.out());
    }

    private List<Object> evalToFile(String expression, Path in, String device, String... more) throws IOException {
        Path out = dir.resolve("out.arrow");
        List<String> args = new ArrayList<>(
                List.of("eval", expression, "--input", in.toString(), "--output", out.toString(), "--device", device));
        args.addAll(List.of(more));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(
                0L, run.subcommand("eval", EvalCommand.class).bytesLeft, "the command's allocator is empty at the end");
        assertTrue(run.err().contains("7 rows in 2 batches written to"), run.err());
        List<Object> values = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(out);
                ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            assertEquals(1, root.getSchema().getFields().size());
            assertEquals("result", root.getSchema().getFields().getFirst().getName());
            assertEquals(2, reader.getRecordBlocks().size());
            int b = 0;
            while (reader.loadNextBatch()) {
                assertEquals(BATCHES[b++], root.getRowCount());
                FieldVector v = root.getVector(0);
                for (int i = 0; i < root.getRowCount(); i++) {
                    values.add(
                            switch (v) {
                                case VarCharVector s ->
                                    s.isNull(i) ? null : new String(s.get(i), StandardCharsets.UTF_8);
                                case BitVector bits -> bits.isNull(i) ? null : bits.get(i) != 0;
                                default -> v.getObject(i);
                            });
                }
            }
        }
        return values;
    }

    /** CliFixtures.writeXName: x float64 and name utf8, two batches with nulls. */
    private Path writeInput(boolean stream) throws IOException {
        Path path = dir.resolve(stream ? "in.arrows" : "in.arrow");
        CliFixtures.writeXName(path, stream, allocator);
        return path;
    }
}
