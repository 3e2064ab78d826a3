package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver eval} over a file a buggy producer wrote: string offsets that decrease in the
 * second batch (before the checks, {@code length(s)} gave -3 and the table printer threw
 * {@code NegativeArraySizeException}). It is a bad input: exit 2, one line naming the column and
 * the row, no stack trace, nothing said about leaks (there are none), no output file.
 */
class EvalMalformedInputTest {
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

    /** Two batches of column s: ["ab", "c"], then ["abc", "de", "fgh"] with offset 2 written as 0. */
    private Path decreasingOffsets() throws IOException {
        Path path = dir.resolve("decreasing.arrow");
        Schema schema = new Schema(List.of(DataType.UTF8.toField("s", true)));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                ArrowFileWriter writer =
                        new ArrowFileWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)) {
            writer.start();
            VarCharVector s = (VarCharVector) root.getVector("s");
            String[][] batches = {{"ab", "c"}, {"abc", "de", "fgh"}};
            for (String[] batch : batches) {
                s.allocateNew(batch.length);
                for (int i = 0; i < batch.length; i++) {
                    s.setSafe(i, batch[i].getBytes(StandardCharsets.UTF_8));
                }
                root.setRowCount(batch.length);
                if (batch.length == 3) {
                    s.getOffsetBuffer().setInt(8, 0); // offsets 0, 3, 0, 8: row 1 "ends" before it starts
                }
                writer.writeBatch();
            }
            writer.end();
        }
        return path;
    }

    private static void assertOneLineInputError(CliRun run) {
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(
                run.err().contains("column 's' is malformed: its offsets decrease at row 1 (from 3 to 0)"), run.err());
        assertEquals(1, run.err().strip().lines().count(), "one line:\n" + run.err());
        assertFalse(run.err().contains("Exception") || run.err().contains("\tat "), run.err());
        assertFalse(run.err().contains("leak") || run.err().contains("still allocated"), run.err());
        assertEquals(0L, run.subcommand("eval", EvalCommand.class).bytesLeft);
    }

    @Test
    void decreasingOffsetsAreABadInputWhenPrinting() throws IOException {
        CliRun run =
                CliRun.of("eval", "length(s)", "--input", decreasingOffsets().toString(), "--device", "cpu");
        assertOneLineInputError(run);
        assertFalse(run.out().contains("-3"), run.out());
    }

    @Test
    void decreasingOffsetsAreABadInputWhenWritingAndLeaveNoOutput() throws IOException {
        Path out = dir.resolve("out.arrow");
        CliRun run =
                CliRun.of("eval", "upper(s)", "--input", decreasingOffsets().toString(), "--output", out.toString());
        assertOneLineInputError(run);
        assertFalse(Files.exists(out), "no output file is left");
    }
}
