package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The program cache across processes: a first child JVM builds {@link CachedProgramChild#PROGRAM}
 * from source and stores its binary; a second one, started afresh on the same directory, loads
 * it and builds nothing, and both compute what Java computes.
 */
class ProgramCacheAcrossProcessesTest {
    private static final long CHILD_TIMEOUT_SECONDS = 120;

    @TempDir
    Path dir;

    @Test
    void aSecondProcessLoadsTheProgramTheFirstOneBuilt() throws Exception {
        TestDevices.require();
        String expected = CachedProgramChild.digest(CachedProgramChild::isNull, CachedProgramChild::expected);

        Map<String, String> first = runChild();
        assertEquals(expected, first.get("RESULT"), "the first process computes what Java does");
        assertEquals("1 0 0 1", first.get("STATS"), "built from source and stored (built loaded rejected stored)");
        assertEquals("0 0", first.get("LEFT"), "OpenCL objects and Arrow bytes left");

        Map<String, String> second = runChild();
        assertEquals(
                "0 1 0 0",
                second.get("STATS"),
                "loaded from the disk cache, nothing built (built loaded rejected stored)");
        assertEquals(expected, second.get("RESULT"), "the loaded program computes the same values");
        assertEquals("0 0", second.get("LEFT"));
    }

    /** Runs {@link CachedProgramChild} on {@link #dir} and returns its {@code KEY value} lines. */
    private Map<String, String> runChild() throws IOException, InterruptedException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        command.add(java);
        // The test JVM's own options (surefire's argLine: --add-modules, --enable-native-access, --add-opens, -Xmx),
        // without a debugger's agent, whose port the child could not take.
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!option.startsWith("-agentlib:jdwp") && !option.startsWith("-Xrunjdwp")) {
                command.add(option);
            }
        }
        command.addAll(List.of(
                "-cp", System.getProperty("java.class.path"), CachedProgramChild.class.getName(), dir.toString()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (System.getenv("LD_PRELOAD") == null) {
            // As surefire does: PoCL's LLVM must not take the JVM's SIGSEGV (README, "OpenCL and the JVM's signals").
            pb.environment()
                    .put(
                            "LD_PRELOAD",
                            Path.of(System.getProperty("java.home"), "lib", "libjsig.so")
                                    .toString());
        }
        Process p = pb.start();
        // Read while it runs, so a full pipe cannot stall it.
        StringBuilder out = new StringBuilder();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                out.append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                out.append("(reading the child's output failed: ").append(e).append(')');
            }
        });
        if (!p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            reader.join(5_000);
            fail("the child JVM did not finish in " + CHILD_TIMEOUT_SECONDS + " s: " + command + "\n" + out);
        }
        reader.join();
        assertEquals(0, p.exitValue(), "the child JVM failed: " + command + "\n" + out);
        Map<String, String> lines = out.toString()
                .lines()
                .filter(l -> l.matches("(RESULT|STATS|LEFT) .*"))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf(' ')), l -> l.substring(l.indexOf(' ') + 1)));
        assertTrue(lines.keySet().containsAll(List.of("RESULT", "STATS", "LEFT")), "the child's output:\n" + out);
        return lines;
    }
}
