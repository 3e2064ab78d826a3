package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./quiver} launcher script, run as a user runs it, in a separate process: the JVM
 * options a user gives win over the defaults, and {@code /dev/stdin}, {@code /dev/stdout} and
 * {@code --input -} on pipes and redirections, which an in-process run cannot have.
 *
 * <p>The script runs from a copy of the repository's layout in a temporary directory (the script,
 * {@code ci/java.sh}, {@code cli/target/jvm.options}, and the CLI jar and {@code lib/} made from this
 * test's class path), so it finds everything built and never starts a build: the real
 * {@code cli/target} has no jar yet while the tests run.
 */
class LauncherTest {

    private static final long GUARD_SECONDS = 300;

    @TempDir
    static Path root;

    private static BufferAllocator allocator;

    @BeforeAll
    static void layout() throws IOException {
        allocator = new RootAllocator();
        Path repository = Path.of(System.getProperty("user.dir")).getParent(); // surefire runs in cli/
        Files.copy(repository.resolve("quiver"), root.resolve("quiver"));
        Files.createDirectories(root.resolve("ci"));
        Files.copy(repository.resolve("ci/java.sh"), root.resolve("ci/java.sh"));
        Path target = Files.createDirectories(root.resolve("cli/target"));
        Files.copy(repository.resolve("cli/target/jvm.options"), target.resolve("jvm.options"));
        Path lib = Files.createDirectories(target.resolve("lib"));
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        int n = 0;
        for (String entry : classPath.split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p) && !p.endsWith("test-classes")) {
                jar(p, lib.resolve("classes-" + n++ + ".jar"));
            } else if (Files.isRegularFile(p) && entry.endsWith(".jar")) {
                Files.createSymbolicLink(lib.resolve(n++ + "-" + p.getFileName()), p);
            }
        }
        jar(Files.createDirectories(root.resolve("empty")), target.resolve("quiver-cli-0.1.0-SNAPSHOT.jar"));
    }

    @AfterAll
    static void close() {
        assertEquals(0, allocator.getAllocatedMemory());
        allocator.close();
    }

    @Test
    void aSmallerHeapInQuiverJavaOptsStarts() throws Exception {
        Run run = run(Map.of("QUIVER_JAVA_OPTS", "-Xmx64m -XX:+PrintCommandLineFlags"), "--version");
        assertEquals(0, run.code, run.all());
        assertTrue(run.out.contains("-XX:MaxHeapSize=67108864"), run.out);
        assertFalse(run.out.contains("-XX:InitialHeapSize=1073741824"), "no -Xms1g beside -Xmx64m: " + run.out);
        assertTrue(run.out.contains("quiver 0.1.0"), run.out);
    }

    @Test
    void withoutQuiverJavaOptsTheDefaultsStay() throws Exception {
        Run run = run(Map.of("QUIVER_JAVA_OPTS", "-XX:+PrintCommandLineFlags"), "--version");
        assertEquals(0, run.code, run.all());
        assertTrue(run.out.contains("-XX:InitialHeapSize=1073741824"), run.out);
        assertTrue(run.out.contains("-XX:MaxHeapSize=4294967296"), run.out);
        assertTrue(run.out.contains("-XX:+UseParallelGC"), run.out);
    }

    @Test
    void aCollectorInQuiverJavaOptsReplacesTheDefaultOne() throws Exception {
        Run run = run(Map.of("QUIVER_JAVA_OPTS", "-XX:+UseSerialGC -Xms16m -XX:+PrintCommandLineFlags"), "--version");
        assertEquals(0, run.code, run.all());
        assertTrue(run.out.contains("-XX:+UseSerialGC"), run.out);
        assertFalse(run.out.contains("UseParallelGC"), run.out);
        assertTrue(run.out.contains("-XX:InitialHeapSize=16777216"), run.out);
    }

    /** A pipe into /dev/stdin (an IPC file, read through its stream) and out of /dev/stdout (written in place). */
    @Test
    void devStdinAndDevStdoutOnPipes() throws Exception {
        Path in = root.resolve("in.arrow");
        CliFixtures.writeXName(in, false, allocator);
        Path out = root.resolve("out.arrow");
        Run run = shell("cat '" + in + "' | '" + root.resolve("quiver")
                + "' eval 'x * 2 + 1' --device cpu --input /dev/stdin " + "--output /dev/stdout | cat > '" + out + "'");
        assertEquals(0, run.code, run.all());
        assertEquals(
                Arrays.asList(3.0, 7.0, null, 11.0, 6.0, null, 2.0),
                CliFixtures.readResult(Files.readAllBytes(out), allocator));
    }

    /** Standard input redirected from the output file: the same file, refused under '-' and /dev/stdin alike. */
    @Test
    void theOutputIsRefusedWhenItIsTheRedirectedStandardInput() throws Exception {
        Path in = root.resolve("same.arrow");
        CliFixtures.writeXName(in, false, allocator);
        String before = CliFixtures.sha256(Files.readAllBytes(in));
        for (String name : List.of("-", "/dev/stdin")) {
            Run run = shell("'" + root.resolve("quiver") + "' eval x --device cpu --input " + name + " --output '" + in
                    + "' < '" + in + "'");
            assertEquals(2, run.code, run.all());
            assertTrue(run.err.contains("is the input"), run.err);
            assertFalse(run.err.contains("\tat "), run.err);
            assertEquals(before, CliFixtures.sha256(Files.readAllBytes(in)), "the input is unchanged");
        }
        try (Stream<Path> s = Files.list(root)) {
            assertEquals(
                    List.of(),
                    s.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList(),
                    "no temporary file");
        }
    }

    /**
     * {@code --output -} with standard output appended onto the input ({@code >>}), under its name, a hard
     * link, or as the redirected standard input: refused before anything is written, the input unchanged.
     */
    @Test
    void standardOutputRedirectedOntoTheInputIsRefused() throws Exception {
        Path work = Files.createDirectory(root.resolve("appended"));
        Path in = work.resolve("in.arrow");
        CliFixtures.writeXName(in, false, allocator);
        Files.createLink(work.resolve("hard.arrow"), in);
        String before = CliFixtures.sha256(Files.readAllBytes(in));
        String quiver = "'" + root.resolve("quiver") + "' eval 'x * 2' --device cpu ";
        for (String script : List.of(
                quiver + "--input '" + in + "' --output - >> '" + in + "'",
                quiver + "--input '" + in + "' --output - >> '" + work.resolve("hard.arrow") + "'",
                quiver + "--input - --output - < '" + in + "' >> '" + in + "'",
                quiver + "--input - --output /dev/stdout < '" + in + "' >> '" + in + "'")) {
            Run run = shell(script);
            assertEquals(2, run.code, script + "\n" + run.all());
            assertTrue(run.err.contains("is the input"), run.err);
            assertFalse(run.err.contains("\tat "), run.err);
            assertEquals(before, CliFixtures.sha256(Files.readAllBytes(in)), "the input is unchanged: " + script);
        }
        assertEquals(List.of(), temporaryFiles(work), "no temporary file");
        // Standard output on another file is still written: the check is about the input's file only.
        Path out = work.resolve("out.arrow");
        Run run = shell(quiver + "--input - --output - < '" + in + "' > '" + out + "'");
        assertEquals(0, run.code, run.all());
        assertEquals(
                Arrays.asList(2.0, 6.0, null, 10.0, 5.0, null, 1.0),
                CliFixtures.readResult(Files.readAllBytes(out), allocator));
    }

    /**
     * A closed standard input, output or error is opened on /dev/null by the launcher: {@code --input -}
     * then reads an empty input (exit 2, not a JVM crash reading the JVM's own lib/modules as fd 0).
     */
    @Test
    void aClosedStandardStreamIsReadAsEmptyOrDiscarded() throws Exception {
        Path in = root.resolve("closed.arrow");
        CliFixtures.writeXName(in, false, allocator);
        String quiver = "'" + root.resolve("quiver") + "' eval ";
        Run closedIn = shell(quiver + "x --device cpu --input - <&-");
        assertEquals(2, closedIn.code, closedIn.all());
        assertTrue(
                closedIn.err.contains(
                        "error: standard input is not an Arrow IPC file or stream: Unexpected end of input. Missing schema."),
                closedIn.err);
        Run closedOut = shell(quiver + "'x * 2' --device cpu --input '" + in + "' >&-");
        assertEquals(0, closedOut.code, closedOut.all());
        assertEquals("", closedOut.out, "the table went to /dev/null");
        Run closedErr = shell(quiver + "'x +' --device cpu --input '" + in + "' 2>&-");
        assertEquals(2, closedErr.code, closedErr.all());
        assertEquals("", closedErr.err, "the error went to /dev/null");
    }

    /**
     * Text read as a stream declares a first message of gigabytes: in a small heap that is the input's
     * fault (exit 2), not "out of memory" (exit 1), on standard input (no file size to check it
     * against) and in a file (checked against its size before the reader allocates).
     */
    @Test
    void aCorruptLengthInASmallHeapIsAnInputError() throws Exception {
        Path text = root.resolve("hello.txt");
        Files.writeString(text, "hello, this is not arrow\n");
        String quiver = "QUIVER_JAVA_OPTS=-Xmx64m '" + root.resolve("quiver") + "' eval x --device cpu ";
        Run piped = shell("cat '" + text + "' | " + quiver + "--input -");
        assertEquals(2, piped.code, piped.all());
        assertTrue(
                piped.err.contains("error: standard input is not an Arrow IPC file or stream: it declares a length"),
                piped.err);
        assertFalse(piped.err.contains("out of memory (") || piped.err.contains("\tat "), piped.err);
        Run file = shell(quiver + "--input '" + text + "'");
        assertEquals(2, file.code, file.all());
        assertTrue(
                file.err.contains(
                        "is not an Arrow IPC file or stream: it declares a first message of 1819043176 bytes, "
                                + "more than the file's 25 bytes"),
                file.err);
    }

    /**
     * SIGTERM (as Ctrl-C) while the output is being written: the JVM's exit removes the temporary
     * file, and the earlier output is as it was. The run waits on a FIFO that has its batches but not
     * its end, so it is stopped while writing.
     */
    @Test
    void aRunStoppedWhileWritingLeavesNoTemporaryFile() throws Exception {
        Path work = Files.createDirectory(root.resolve("stopped"));
        Path stream = work.resolve("in.arrows");
        CliFixtures.writeXName(stream, true, allocator);
        byte[] bytes = Files.readAllBytes(stream);
        Path fifo = work.resolve("in.fifo");
        CliFixtures.mkfifo(fifo);
        Path out = work.resolve("out.arrow");
        Files.writeString(out, "an earlier result");
        Process p = new ProcessBuilder(
                        "bash",
                        root.resolve("quiver").toString(),
                        "eval",
                        "x * 2",
                        "--device",
                        "cpu",
                        "--input",
                        fifo.toString(),
                        "--output",
                        out.toString())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        CountDownLatch stopped = new CountDownLatch(1);
        CompletableFuture<Void> feeder = CompletableFuture.runAsync(() -> {
            try (OutputStream feed = Files.newOutputStream(fifo)) { // opens once the command opens its end
                feed.write(bytes, 0, bytes.length - 8); // every batch, not the end-of-stream marker
                feed.flush();
                stopped.await(); // held open: at the end of the FIFO the stream would end, and the run succeed
            } catch (IOException | InterruptedException e) {
                // the pipe broke as the command stopped: what matters is checked below
            }
        });
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
            while (temporaryFiles(work).isEmpty()) {
                assertTrue(p.isAlive() && System.nanoTime() < deadline, "the command is writing its temporary file");
                Thread.sleep(50);
            }
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(GUARD_SECONDS, TimeUnit.SECONDS), "the command stopped");
        } finally {
            p.destroyForcibly();
            stopped.countDown();
            // Should the command have died before opening the FIFO, the feeder still waits in its open: opened
            // for reading and writing, which never blocks on Linux, the FIFO has a reader and lets it go.
            try (var unblock = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                feeder.get(GUARD_SECONDS, TimeUnit.SECONDS);
            }
        }
        assertEquals(143, p.exitValue(), "stopped by SIGTERM");
        assertEquals(List.of(), temporaryFiles(work), "the temporary file is gone");
        assertEquals("an earlier result", Files.readString(out), "the earlier output is as it was");
    }

    private static List<Path> temporaryFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(f -> f.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    private record Run(int code, String out, String err) {
        String all() {
            return "stdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    private static Run run(Map<String, String> env, String... args) throws Exception {
        List<String> command =
                new ArrayList<>(List.of("bash", root.resolve("quiver").toString()));
        command.addAll(List.of(args));
        return start(new ProcessBuilder(command), env);
    }

    private static Run shell(String script) throws Exception {
        return start(new ProcessBuilder("bash", "-o", "pipefail", "-c", script), Map.of());
    }

    private static Run start(ProcessBuilder pb, Map<String, String> env) throws Exception {
        pb.environment().remove("QUIVER_JAVA_OPTS");
        pb.environment().remove("QUIVER_REBUILD");
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Path out = Files.createTempFile(root, "stdout-", ".txt"), err = Files.createTempFile(root, "stderr-", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(GUARD_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the launcher did not finish in " + GUARD_SECONDS + " s");
        }
        Run run = new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return run;
    }

    /** A jar of everything under {@code dir}. */
    private static void jar(Path dir, Path jar) throws IOException {
        try (OutputStream o = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(o);
                Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.filter(Files::isRegularFile).sorted().toList()) {
                j.putNextEntry(new JarEntry(dir.relativize(p).toString().replace(File.separatorChar, '/')));
                Files.copy(p, j);
                j.closeEntry();
            }
        }
    }
}
