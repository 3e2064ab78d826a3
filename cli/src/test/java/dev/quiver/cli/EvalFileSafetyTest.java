package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What the golden catalogue cannot say: FIFOs read and written while the command runs, devices
 * ({@code /dev/null}, {@code /dev/full}), standard output, the values of expressions that start
 * with '-', the JVM's errors at the command boundary, and what the table printer does with values
 * it cannot print. Every run checks its exit status, that stderr has no stack trace, that the
 * command's allocator ended at zero, and which files it left.
 */
class EvalFileSafetyTest {

    /** x * 2 + 1 over the two-batch input, by hand. */
    private static final List<Double> TWICE_PLUS_ONE = Arrays.asList(3.0, 7.0, null, 11.0, 6.0, null, 2.0);
    /** A hang guard: a FIFO's other end that never comes would block forever. */
    private static final long GUARD_SECONDS = 120;

    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private Path in;

    @BeforeEach
    void open() throws IOException {
        allocator = new RootAllocator();
        in = dir.resolve("in.arrow");
        CliFixtures.writeXName(in, false, allocator);
    }

    @AfterEach
    void close() {
        assertEquals(0, allocator.getAllocatedMemory(), "the test's own allocator leaked");
        allocator.close();
    }

    @Test
    void aFifoInputIsReadAsAStreamInEitherFormat() throws Exception {
        Path stream = dir.resolve("in.arrows");
        CliFixtures.writeXName(stream, true, allocator);
        for (Path source : List.of(in, stream)) {
            Path fifo = dir.resolve("in-" + source.getFileName() + ".fifo");
            CliFixtures.mkfifo(fifo);
            Path out = dir.resolve("out.arrow");
            byte[] bytes = Files.readAllBytes(source);
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try (OutputStream o = Files.newOutputStream(fifo)) {
                    o.write(bytes);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            CliRun run = CliRun.of(
                    "eval", "x * 2 + 1", "--device", "cpu", "--input", fifo.toString(), "--output", out.toString());
            writer.get(GUARD_SECONDS, TimeUnit.SECONDS);
            assertSucceeded(run);
            assertEquals(
                    TWICE_PLUS_ONE,
                    CliFixtures.readResult(Files.readAllBytes(out), allocator),
                    source.getFileName().toString());
            assertTrue(isFifo(fifo), "the FIFO is still a FIFO");
            Files.delete(out);
        }
    }

    @Test
    void aFifoOutputGetsTheFileOnSuccessAndNoValidFileOnFailure() throws Exception {
        Path fifo = dir.resolve("out.fifo");
        CliFixtures.mkfifo(fifo);
        CompletableFuture<byte[]> reader = readAll(fifo);
        CliRun ok = CliRun.of(
                "eval", "x * 2 + 1", "--device", "cpu", "--input", in.toString(), "--output", fifo.toString());
        assertSucceeded(ok);
        assertEquals(TWICE_PLUS_ONE, CliFixtures.readResult(reader.get(GUARD_SECONDS, TimeUnit.SECONDS), allocator));

        Path five = fiveBatchesWithAZeroInTheThird();
        reader = readAll(fifo);
        CliRun failed =
                CliRun.of("eval", "10 / d", "--device", "cpu", "--input", five.toString(), "--output", fifo.toString());
        byte[] partial = reader.get(GUARD_SECONDS, TimeUnit.SECONDS);
        assertFailed(failed, 1, "error: batch 2: division by zero");
        assertTrue(partial.length > 0, "the schema and the first batches went out before the failure");
        assertThrows(
                Exception.class,
                () -> CliFixtures.readResult(partial, allocator),
                "what a failed run wrote into the FIFO is no valid Arrow file (no footer)");
        assertTrue(isFifo(fifo), "the FIFO is still a FIFO");
        assertEquals(List.of("five.arrow", "in.arrow", "out.fifo"), names(dir), "nothing left beside it");
    }

    @Test
    void devNullIsWrittenInPlaceAndStaysADevice() throws IOException {
        Path devNull = Path.of("/dev/null");
        assertTrue(isDevice(devNull));
        assertSucceeded(CliRun.of(
                "eval", "x * 2 + 1", "--device", "cpu", "--input", in.toString(), "--output", devNull.toString()));
        CliRun failed = CliRun.of(
                "eval",
                "10 / d",
                "--device",
                "cpu",
                "--input",
                fiveBatchesWithAZeroInTheThird().toString(),
                "--output",
                devNull.toString());
        assertFailed(failed, 1, "division by zero");
        assertTrue(isDevice(devNull), "/dev/null is still a device");
        assertEquals(List.of("five.arrow", "in.arrow"), names(dir));
    }

    /** /dev/full refuses every write with ENOSPC: a full disk, reported as an error writing the output. */
    @Test
    void aFullDeviceIsAnErrorWritingTheOutput() throws IOException {
        Path full = Path.of("/dev/full");
        assertTrue(isDevice(full), "/dev/full exists on Linux");
        String before = CliFixtures.sha256(Files.readAllBytes(in));
        CliRun run = CliRun.of(
                "eval", "x * 2 + 1", "--device", "cpu", "--input", in.toString(), "--output", full.toString());
        assertFailed(run, 1, "error: writing --output /dev/full: No space left on device");
        assertFalse(run.err().contains("reading"), run.err());
        assertTrue(isDevice(full), "/dev/full is still a device");
        assertEquals(before, CliFixtures.sha256(Files.readAllBytes(in)), "the input is unchanged");
    }

    @Test
    void dashIsStandardOutput() throws IOException {
        CliRun run = CliRun.of("eval", "x * 2 + 1", "--device", "cpu", "--input", in.toString(), "--output", "-");
        assertSucceeded(run);
        assertEquals(TWICE_PLUS_ONE, CliFixtures.readResult(run.outBytes(), allocator));

        CliRun failed = CliRun.of(
                "eval",
                "10 / d",
                "--device",
                "cpu",
                "--input",
                fiveBatchesWithAZeroInTheThird().toString(),
                "--output",
                "-");
        assertFailed(failed, 1, "division by zero");
        assertThrows(
                Exception.class, () -> CliFixtures.readResult(failed.outBytes(), allocator), "no valid file on stdout");
    }

    @Test
    void standardInputIsReadAsAStreamInEitherFormat() throws IOException {
        Path stream = dir.resolve("in.arrows");
        CliFixtures.writeXName(stream, true, allocator);
        for (Path source : List.of(in, stream)) {
            CliRun run = CliRun.withInput(
                    Files.readAllBytes(source),
                    "eval",
                    "x * 2 + 1",
                    "--device",
                    "cpu",
                    "--input",
                    "-",
                    "--output",
                    "-");
            assertSucceeded(run);
            assertEquals(
                    TWICE_PLUS_ONE,
                    CliFixtures.readResult(run.outBytes(), allocator),
                    source.getFileName().toString());
        }
    }

    /** Replacing an existing file keeps its permissions; the new file is another inode, moved into place. */
    @Test
    void aReplacedFileKeepsItsPermissions() throws IOException {
        Path out = dir.resolve("out.arrow");
        Files.writeString(out, "an earlier result");
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rw-r-----"));
        Object inode = Files.readAttributes(out, BasicFileAttributes.class).fileKey();
        assertSucceeded(CliRun.of(
                "eval", "x * 2 + 1", "--device", "cpu", "--input", in.toString(), "--output", out.toString()));
        assertEquals(TWICE_PLUS_ONE, CliFixtures.readResult(Files.readAllBytes(out), allocator));
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(out)));
        assertFalse(
                inode.equals(
                        Files.readAttributes(out, BasicFileAttributes.class).fileKey()),
                "renamed into place");
        assertEquals(List.of("in.arrow", "out.arrow"), names(dir), "no temporary file left");
    }

    /** Expressions that start with '-' are expressions; their values by hand (x: 1, 3, NULL, 5, 2.5, NULL, 0.5). */
    @Test
    void expressionsThatStartWithAMinusAreExpressions() throws IOException {
        Map<List<String>, List<Object>> cases = Map.of(
                List.of("-x + 1"), Arrays.asList(0.0, -2.0, null, -4.0, -1.5, null, 0.5),
                List.of("- x"), Arrays.asList(-1.0, -3.0, null, -5.0, -2.5, null, -0.5),
                List.of("-x * -1"), Arrays.asList(1.0, 3.0, null, 5.0, 2.5, null, 0.5),
                List.of("--", "-x"), Arrays.asList(-1.0, -3.0, null, -5.0, -2.5, null, -0.5),
                List.of("-1"), Arrays.asList(-1, -1, -1, -1, -1, -1, -1),
                List.of("-2.5 < x"), Arrays.asList(true, true, null, true, true, null, true));
        for (var c : cases.entrySet()) {
            Path out = dir.resolve("out.arrow");
            List<String> args = new ArrayList<>(
                    List.of("eval", "--device", "cpu", "--input", in.toString(), "--output", out.toString()));
            args.addAll(c.getKey());
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertSucceeded(run);
            assertEquals(
                    c.getValue(),
                    CliFixtures.readResult(Files.readAllBytes(out), allocator),
                    String.join(" ", c.getKey()));
        }
    }

    /** The command boundary turns the JVM's StackOverflowError and OutOfMemoryError into one line and exit 1. */
    @Test
    void stackOverflowAndOutOfMemoryAreOneLineAndExitOne() {
        for (var c : Map.of(
                        "overflow",
                        "error: stack overflow (StackOverflowError)",
                        "exhaust",
                        "error: out of memory (OutOfMemoryError: Java heap space)")
                .entrySet()) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream old = System.err;
            int code;
            try {
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                CommandLine cl = QuiverCli.commandLine();
                cl.addSubcommand("overflow", new Overflow());
                cl.addSubcommand("exhaust", new Exhaust());
                code = cl.execute(c.getKey());
            } finally {
                System.setErr(old);
            }
            String text = err.toString(StandardCharsets.UTF_8);
            assertEquals(1, code, text);
            assertTrue(text.startsWith(c.getValue()), text);
            assertEquals(1, text.lines().count(), "one line: " + text);
        }
    }

    @CommandLine.Command(name = "overflow")
    static final class Overflow implements Callable<Integer> {
        @Override
        public Integer call() {
            return depth(0);
        }

        private static int depth(int n) {
            return depth(n + 1) + 1;
        }
    }

    /** Throws the error a full heap throws; filling the test JVM's heap for real would harm the tests beside it. */
    @CommandLine.Command(name = "exhaust")
    static final class Exhaust implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new OutOfMemoryError("Java heap space");
        }
    }

    /** A timestamp[s] beyond java.time's years prints as its ticks instead of failing the table. */
    @Test
    void theTablePrintsATimestampOutsideJavasYearsAsItsTicks() throws IOException {
        Path path = dir.resolve("far.arrow");
        Schema schema = new Schema(List.of(new DataType.Timestamp(DataType.TimeUnit.SECOND, null).toField("t", true)));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                ArrowFileWriter writer =
                        new ArrowFileWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)) {
            TimeStampSecVector t = (TimeStampSecVector) root.getVector("t");
            t.allocateNew(2);
            t.set(0, 0);
            t.set(1, Long.MAX_VALUE);
            t.setValueCount(2);
            root.setRowCount(2);
            writer.start();
            writer.writeBatch();
            writer.end();
        }
        CliRun run = CliRun.of("eval", "t IS NULL", "--device", "cpu", "--input", path.toString());
        assertSucceeded(run);
        List<String> lines = run.out().lines().toList();
        assertTrue(lines.get(2).matches("1970-01-01 00:00:00 +\\| false"), run.out());
        assertEquals(
                "+292277026596-12-04 15:30:07 | false",
                lines.get(3),
                run.out()); // Long.MAX_VALUE seconds, as TemporalText writes it
    }

    /**
     * Control characters in the data reach the terminal escaped: ESC, LF, CR, TAB, DEL, a C1 control
     * and the bidirectional overrides and isolates; other text (a backslash, accents) as it is.
     */
    @Test
    void theTableEscapesControlCharactersInTheData() throws IOException {
        String literal = "\u001B[31mRED\nline2\rx\ty\u007F\u009B\u202Eevil\u2066\\é";
        CliRun run = CliRun.of(
                "eval", "'" + literal + "' || name", "--device", "cpu", "--input", in.toString(), "--limit", "1");
        assertSucceeded(run);
        List<String> lines = run.out().lines().toList();
        assertEquals(
                4, lines.size(), "a header, a rule, one row, the totals: no line came from the data\n" + run.out());
        assertEquals("abc  | \\u001B[31mRED\\nline2\\rx\\ty\\u007F\\u009B\\u202Eevil\\u2066\\é" + "abc", lines.get(2));
        for (char c : run.out().toCharArray()) {
            assertFalse(
                    c != '\n' && ResultTable.printable(String.valueOf(c)).length() != 1,
                    "no raw control character: U+" + Integer.toHexString(c));
        }
    }

    /** Every character a terminal acts on, and only those, is escaped, each as its own hand-written escape. */
    @Test
    void printableEscapesExactlyTheCharactersATerminalActsOn() {
        assertEquals(
                "\\n\\r\\t\\u0000\\u001F\\u007F\\u0080\\u009F",
                ResultTable.printable("\n\r\t\u0000\u001F\u007F\u0080\u009F"));
        assertEquals(
                "\\u061C\\u200E\\u200F\\u2028\\u2029\\u202A\\u202E\\u2066\\u2069",
                ResultTable.printable("\u061C\u200E\u200F\u2028\u2029\u202A\u202E\u2066\u2069"));
        String shown =
                " ~\u00A0é\u200D\u2065\u206A€\\\uD83D\uDE00"; // space, tilde, NBSP, é, ZWJ, neighbours of the ranges,
        // €, \\, an emoji
        assertSame(shown, ResultTable.printable(shown));
    }

    private Path fiveBatchesWithAZeroInTheThird() throws IOException {
        Path five = dir.resolve("five.arrow");
        if (!Files.exists(five)) {
            CliFixtures.writeInts(five, "d", new int[][] {{1, 2}, {3, 4}, {0, 5}, {6, 7}, {8, 9}}, allocator);
        }
        return five;
    }

    private static CompletableFuture<byte[]> readAll(Path fifo) {
        return CompletableFuture.supplyAsync(() -> {
            try (InputStream i = Files.newInputStream(fifo)) {
                return i.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private static void assertSucceeded(CliRun run) {
        assertEquals(0, run.exitCode(), run.err());
        assertFalse(run.err().contains("\tat "), run.err());
        assertEquals(0L, run.subcommand("eval", EvalCommand.class).bytesLeft, "the command's allocator ended at zero");
    }

    private static void assertFailed(CliRun run, int code, String fragment) {
        assertEquals(code, run.exitCode(), run.err());
        assertTrue(run.err().contains(fragment), run.err());
        assertFalse(run.err().contains("\tat "), run.err());
        assertEquals(0L, run.subcommand("eval", EvalCommand.class).bytesLeft, "the command's allocator ended at zero");
    }

    private static boolean isFifo(Path p) throws IOException {
        return fileType(p) == 0010000; // S_IFIFO
    }

    private static boolean isDevice(Path p) throws IOException {
        return fileType(p) == 0020000; // S_IFCHR
    }

    private static int fileType(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0170000;
    }

    private static List<String> names(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
