package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The command line's bad-input catalogue: golden files, one topic each, in
 * {@code src/test/resources/bad-input/*.txt} (format in {@code bad-input/README.md}). Each case runs
 * {@code quiver} in process, in a fresh directory of fixtures (input files, links to them, a
 * directory, a FIFO, an earlier result), and proves its exit status, a fragment of stderr, that
 * stderr has no stack trace, that the command's allocator ended at zero, and that no fixture was
 * lost or changed and no file was left behind, except the outputs the case names.
 *
 * <p>{@code -Dquiver.golden.regenerate=true} rewrites each case's {@code exit} and {@code stderr}
 * lines from what the command does now; review the diff.
 */
class CliBadInputCatalogueTest {
    private static final boolean REGENERATE = Boolean.getBoolean("quiver.golden.regenerate");

    private static BufferAllocator allocator;
    private static Path work;

    @BeforeAll
    static void open() throws IOException {
        allocator = new RootAllocator();
        work = Files.createTempDirectory("quiver-cli-catalogue-");
    }

    @AfterAll
    static void close() throws IOException {
        try (Stream<Path> all = Files.walk(work)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        assertEquals(0, allocator.getAllocatedMemory(), "the fixtures' allocator leaked");
        allocator.close();
    }

    @TestFactory
    Stream<DynamicNode> catalogue() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(resources())) {
            files = list.filter(p -> p.toString().endsWith(".txt")).sorted().toList();
        }
        assertFalse(files.isEmpty(), "no golden files in " + resources());
        List<DynamicNode> topics = new ArrayList<>();
        for (Path file : files) {
            List<Case> cases = parse(file);
            Map<Case, String[]> regenerated = new LinkedHashMap<>();
            List<DynamicTest> tests = new ArrayList<>();
            for (Case c : cases) {
                tests.add(DynamicTest.dynamicTest(c.name, () -> run(c, regenerated)));
            }
            if (REGENERATE) {
                tests.add(DynamicTest.dynamicTest(
                        "(rewrite " + file.getFileName() + ")", () -> rewrite(file, cases, regenerated)));
            }
            topics.add(DynamicContainer.dynamicContainer(file.getFileName().toString(), tests));
        }
        return topics.stream();
    }

    /** One case: the arguments, with fixture names resolved in a fresh directory, and what must follow. */
    private static final class Case {
        String name;
        String run;
        String stdin;
        Integer exit;
        String stderr;
        String stdout;
        final Map<String, Integer> outputs = new TreeMap<>();
        int exitLine = -1, stderrLine = -1, lastLine;
    }

    private static void run(Case c, Map<Case, String[]> regenerated) throws IOException {
        Path dir =
                Files.createDirectory(work.resolve(c.name.replaceAll("[^A-Za-z0-9]+", "-") + "-" + System.nanoTime()));
        writeFixtures(dir);
        Map<String, String> before = CliFixtures.snapshot(dir);
        String[] args = words(c.run, dir).toArray(String[]::new);
        byte[] stdin = c.stdin == null ? new byte[0] : Files.readAllBytes(dir.resolve(c.stdin));
        CliRun run = CliRun.withInput(stdin, args);
        // Paths in messages as the golden files write them: @NAME
        String err = run.err().replace(dir.toRealPath() + "/", "@").replace(dir + "/", "@");
        if (REGENERATE) {
            regenerated.put(c, new String[] {Integer.toString(run.exitCode()), significantLine(err)});
        } else {
            if (c.exit == null || c.stderr == null) {
                fail("case '" + c.name
                        + "' has no exit or stderr line; regenerate with -Dquiver.golden.regenerate=true");
            }
            assertEquals(c.exit.intValue(), run.exitCode(), "exit status; stderr:\n" + err);
            assertTrue(err.contains(c.stderr), "stderr has '" + c.stderr + "':\n" + err);
        }
        if (c.stdout != null) {
            assertTrue(run.out().contains(c.stdout), "stdout has '" + c.stdout + "':\n" + run.out());
        }
        assertFalse(err.contains("\tat ") || err.contains("Exception in thread"), "no stack trace:\n" + err);
        if (run.exitCode() != 0 && !err.startsWith("error: ")) {
            // picocli's own usage errors name the argument, then show the usage
            assertTrue(
                    err.startsWith("Unknown option")
                            || err.startsWith("Missing required")
                            || err.startsWith("Unmatched argument")
                            || err.startsWith("Invalid value"),
                    "one error first:\n" + err);
        }
        if (args.length > 0 && args[0].equals("eval")) {
            long left = run.subcommand("eval", EvalCommand.class).bytesLeft;
            assertTrue(left == 0 || left == -1, "the command's allocator ended at zero (or was never opened): " + left);
        }
        Map<String, String> after = CliFixtures.snapshot(dir);
        for (var output : c.outputs.entrySet()) {
            Path file = dir.resolve(output.getKey());
            assertTrue(Files.isRegularFile(file), output.getKey() + " was written");
            assertEquals(
                    output.getValue(),
                    CliFixtures.readResult(Files.readAllBytes(file), allocator).size(),
                    "rows in " + output.getKey());
            after.remove(output.getKey());
            before.remove(output.getKey());
        }
        assertEquals(before, after, "no fixture lost or changed, nothing left behind (stderr:\n" + err + ")");
    }

    /**
     * The line of stderr a golden file keeps: the first {@code error: } line, else the first that is not
     * a log record (calibration logs through java.util.logging, with the time), else nothing.
     */
    private static String significantLine(String err) {
        List<String> lines = err.lines().toList();
        return lines.stream()
                .filter(l -> l.startsWith("error: "))
                .findFirst()
                .or(() -> lines.stream()
                        .filter(l -> !LOG_RECORD.matcher(l).find())
                        .findFirst())
                .orElse("");
    }

    private static final Pattern LOG_RECORD =
            Pattern.compile("^([A-Z][a-z]{2} \\d{1,2}, \\d{4} |(SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST): )");

    /** The standard fixtures, listed in bad-input/README.md. */
    private static void writeFixtures(Path dir) throws IOException {
        CliFixtures.writeXName(dir.resolve("in.arrow"), false, allocator);
        CliFixtures.writeXName(dir.resolve("in.arrows"), true, allocator);
        CliFixtures.writeInts(
                dir.resolve("five.arrow"), "d", new int[][] {{1, 2}, {3, 4}, {0, 5}, {6, 7}, {8, 9}}, allocator);
        CliFixtures.writeInts(dir.resolve("old.arrow"), "result", new int[][] {{7, 8, 9}}, allocator);
        CliFixtures.writeDecreasingOffsets(dir.resolve("bad-offsets.arrow"), allocator);
        Files.writeString(dir.resolve("notes.txt"), "notes, not Arrow\n");
        Files.writeString(dir.resolve("garbage.arrow"), "this is not arrow");
        Files.write(dir.resolve("empty.arrow"), new byte[0]);
        byte[] in = Files.readAllBytes(dir.resolve("in.arrow"));
        Files.write(dir.resolve("truncated.arrow"), Arrays.copyOf(in, in.length / 2));
        Files.createDirectory(dir.resolve("dir"));
        Files.writeString(dir.resolve("dir/keep.txt"), "kept\n");
        Files.createSymbolicLink(dir.resolve("link-to-in.arrow"), Path.of("in.arrow"));
        Files.createLink(dir.resolve("hard-in.arrow"), dir.resolve("in.arrow"));
        Files.createSymbolicLink(dir.resolve("link-to-old.arrow"), Path.of("old.arrow"));
        Files.createSymbolicLink(dir.resolve("link-to-dir"), Path.of("dir"));
        Files.createSymbolicLink(dir.resolve("dangling.arrow"), Path.of("missing.arrow"));
        CliFixtures.mkfifo(dir.resolve("fifo"));
        CliFixtures.writePatched(dir.resolve("buffer-beyond-body.arrow"), false, 8008, 1L << 33, allocator);
        CliFixtures.writePatched(dir.resolve("huge-body.arrows"), true, 8136, 1L << 50, allocator);
        Files.write(
                dir.resolve("huge-message.arrows"), new byte[] {-1, -1, -1, -1, (byte) 0xF0, -1, -1, 0x7F, 1, 2, 3, 4});
    }

    /** {@code line} split into words: blanks separate, "..." quotes; @NAME is the fixture NAME in {@code dir}. */
    static List<String> words(String line, Path dir) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (ch == '"') {
                quoted = !quoted;
                word = word == null ? new StringBuilder() : word;
            } else if (ch == ' ' && !quoted) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(ch);
            }
        }
        if (quoted) {
            throw new IllegalArgumentException("unclosed quote in: " + line);
        }
        if (word != null) {
            words.add(word.toString());
        }
        // Path.resolve drops a trailing '/', which some cases are about
        return words.stream()
                .map(w -> w.startsWith("@") ? dir.resolve(w.substring(1)) + (w.endsWith("/") ? "/" : "") : w)
                .toList();
    }

    private static List<Case> parse(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Case> cases = new ArrayList<>();
        Case c = null;
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.indexOf(' ');
            String key = space < 0 ? line : line.substring(0, space);
            String value = space < 0 ? "" : line.substring(space + 1);
            if (key.equals("case")) {
                c = new Case();
                c.name = value;
                if (cases.stream().anyMatch(o -> o.name.equals(value))) {
                    throw new IllegalArgumentException(file + ":" + (n + 1) + ": two cases named '" + value + "'");
                }
                cases.add(c);
            } else if (c == null) {
                throw new IllegalArgumentException(file + ":" + (n + 1) + ": '" + key + "' before the first case");
            } else {
                switch (key) {
                    case "run" -> c.run = value;
                    case "stdin" -> c.stdin = value.startsWith("@") ? value.substring(1) : value;
                    case "exit" -> {
                        c.exit = Integer.parseInt(value.trim());
                        c.exitLine = n;
                    }
                    case "stderr" -> {
                        c.stderr = value;
                        c.stderrLine = n;
                    }
                    case "stdout" -> c.stdout = value;
                    case "writes" -> {
                        String[] parts = value.trim().split(" +");
                        c.outputs.put(parts[0], Integer.parseInt(parts[1]));
                    }
                    default ->
                        throw new IllegalArgumentException(file + ":" + (n + 1) + ": unknown line '" + key + "'");
                }
            }
            c.lastLine = n;
        }
        for (Case k : cases) {
            if (k.run == null) {
                throw new IllegalArgumentException(file + ": case '" + k.name + "' has no run line");
            }
        }
        return cases;
    }

    private static Path resources() {
        try {
            return Path.of(
                    CliBadInputCatalogueTest.class.getResource("/bad-input").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes the regenerated exit and stderr lines into the source tree's copy of {@code file}. */
    private static void rewrite(Path file, List<Case> cases, Map<Case, String[]> regenerated) {
        List<String> out = new ArrayList<>(readLines(file));
        Map<Integer, List<String>> insertAfter = new TreeMap<>(Comparator.reverseOrder());
        for (Case c : cases) {
            String[] now = regenerated.get(c);
            if (now == null) {
                continue;
            }
            List<String> missing = new ArrayList<>();
            if (c.exitLine >= 0) {
                out.set(c.exitLine, "exit " + now[0]);
            } else {
                missing.add("exit " + now[0]);
            }
            if (c.stderrLine >= 0) {
                out.set(c.stderrLine, "stderr " + now[1]);
            } else {
                missing.add("stderr " + now[1]);
            }
            if (!missing.isEmpty()) {
                insertAfter.put(c.lastLine, missing);
            }
        }
        insertAfter.forEach((line, added) -> out.addAll(line + 1, added));
        Path source = Path.of(
                System.getProperty("user.dir"),
                "src",
                "test",
                "resources",
                "bad-input",
                file.getFileName().toString());
        try {
            Files.write(source, out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
