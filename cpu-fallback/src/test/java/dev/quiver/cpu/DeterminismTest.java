package dev.quiver.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A result depends on the input, the program and the device, never on the state of the JIT
 * (docs/math.md, "Determinism"): every inexact math function, and arithmetic, over one batch of
 * hostile values ({@link DeterminismProbe}) gives the same bits on each of 50 runs in this JVM,
 * where the loops start in the interpreter, go through C1 and end in C2, and the same bits as
 * a JVM that runs them with C1 only ({@code -XX:TieredStopAtLevel=1}) and one that only
 * interprets them ({@code -Xint}), each on a prefix of the batch (the Vector API without C2 runs
 * one object per operation: some microseconds per vector in the interpreter). The two JVMs run
 * while this one computes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeterminismTest {
    private static final int ROWS = 200_000;
    private static final int PASSES = 50;
    private static final int C1_ROWS = 50_000;
    private static final int INTERPRETED_ROWS = 2_048;
    /** A hang guard for a forked JVM, not a timing. */
    private static final long FORK_TIMEOUT_MINUTES = 15;

    /** One backend, so the prefixes below run the loops the 50 runs compiled. */
    private final CpuBackend cpu = new CpuBackend();

    private Fork c1;
    private Fork interpreter;
    private Map<String, List<String>> inProcess;

    /** A JVM running {@link DeterminismProbe}, its output in a file. */
    private record Fork(String flag, Process process, Path log) {}

    @BeforeAll
    void startForks() throws IOException {
        c1 = fork(C1_ROWS, "-XX:TieredStopAtLevel=1");
        interpreter = fork(INTERPRETED_ROWS, "-Xint");
    }

    @AfterAll
    void stopForks() throws IOException {
        for (Fork f : List.of(c1, interpreter)) {
            if (f != null) {
                f.process().destroyForcibly();
                Files.deleteIfExists(f.log());
            }
        }
    }

    /** The hashes of the 50 runs of this JVM, computed once. */
    private synchronized Map<String, List<String>> inProcess() {
        if (inProcess == null) {
            inProcess = DeterminismProbe.hashes(cpu, ROWS, PASSES);
        }
        return inProcess;
    }

    @Test
    void everyRunInThisJvmGivesTheSameBits() {
        List<String> differing = new ArrayList<>();
        inProcess().forEach((name, runs) -> {
            long distinct = runs.stream().distinct().count();
            if (distinct > 1) {
                differing.add(name + ": " + distinct + " different results over " + runs.size() + " runs");
            }
        });
        assertTrue(differing.isEmpty(), String.join("\n", differing));
    }

    @Test
    void aJvmWithC1OnlyGivesTheSameBits() throws Exception {
        assertSameAsHere(c1, C1_ROWS, "C1 only");
    }

    @Test
    void aJvmThatOnlyInterpretsGivesTheSameBits() throws Exception {
        assertSameAsHere(interpreter, INTERPRETED_ROWS, "interpreter only");
    }

    /** The fork's hashes against this JVM's for the same rows, computed by the loops the 50 runs compiled (C2). */
    private void assertSameAsHere(Fork fork, int rows, String what) throws Exception {
        inProcess();
        Map<String, String> here = new LinkedHashMap<>();
        DeterminismProbe.hashes(cpu, rows, 1).forEach((name, runs) -> here.put(name.replace(' ', '_'), runs.getLast()));
        Map<String, String> forked = result(fork);
        assertEquals(here.keySet(), forked.keySet(), "the cases of the forked JVM");
        List<String> differing = new ArrayList<>();
        here.forEach((name, hash) -> {
            if (!hash.equals(forked.get(name))) {
                differing.add(name);
            }
        });
        assertTrue(differing.isEmpty(), what + ": different bits from this JVM's for " + differing);
    }

    /** Starts {@link DeterminismProbe} in a new JVM: this one's java and class path, the Vector API, and {@code flag}. */
    private static Fork fork(int rows, String flag) throws IOException {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules=jdk.incubator.vector",
                "-XX:+UseSerialGC",
                "-Xmx512m",
                flag,
                "-cp",
                System.getProperty("java.class.path"),
                DeterminismProbe.class.getName(),
                Integer.toString(rows),
                "1");
        Path log = Files.createTempFile("quiver-determinism", ".txt");
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new Fork(flag, p, log);
    }

    /** The fork's hashes, per case, once it has ended. */
    private static Map<String, String> result(Fork fork) throws IOException, InterruptedException {
        if (!fork.process().waitFor(FORK_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            throw new AssertionError(
                    "the forked JVM (" + fork.flag() + ") did not end within " + FORK_TIMEOUT_MINUTES + " minutes");
        }
        String text = Files.readString(fork.log(), StandardCharsets.UTF_8);
        assertEquals(0, fork.process().exitValue(), "the forked JVM (" + fork.flag() + ") failed:\n" + text);
        Map<String, String> hashes = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] parts = line.trim().split(" ");
            if (parts.length == 2 && parts[1].length() == 64) {
                hashes.put(parts[0], parts[1]);
            }
        }
        return hashes;
    }
}
