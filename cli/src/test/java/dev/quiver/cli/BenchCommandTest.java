package dev.quiver.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bench's output contract: one JSON object per line with the documented fields, every
 * workload and device present, each device's result checked against the row loop (a mismatch
 * would be an exit code of 1). Timings themselves are not asserted here.
 */
class BenchCommandTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run bench(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        PrintStream oldOut = System.out, oldErr = System.err;
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = new CommandLine(new QuiverCli()).execute(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void jsonLinesCarryTheDocumentedFieldsForEveryWorkloadAndDevice() throws Exception {
        Run run = bench("bench", "--format", "json", "--rows", "5000", "--batch-rows", "1000,5000", "--nulls", "0,0.1",
                "--iterations", "1", "--warmup", "1", "--warmup-ms", "0");
        assertEquals(0, run.exitCode(), run.err());
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.out().strip().split("\n")) {
            lines.add(json.readTree(line));
        }
        Set<String> workloads = new LinkedHashSet<>(), devices = new LinkedHashSet<>();
        for (JsonNode n : lines) {
            List<String> fields = new ArrayList<>();
            n.fieldNames().forEachRemaining(fields::add);
            assertEquals(List.of("workload", "rows", "batchRows", "device", "medianMs", "gbPerSec", "speedupVsRowLoop"), fields);
            assertEquals(5000, n.get("rows").asInt());
            assertTrue(n.get("medianMs").asDouble() > 0, n.toString());
            assertTrue(Double.isFinite(n.get("speedupVsRowLoop").asDouble()), n.toString());
            workloads.add(n.get("workload").asText());
            devices.add(n.get("device").asText());
            if (n.get("device").asText().equals("row-loop")) {
                assertEquals(1.0, n.get("speedupVsRowLoop").asDouble());
            }
        }
        assertEquals(Set.of("a*b+c", "a*b+c [10% nulls]", "sqrt(x*x+y*y)", "sqrt(x*x+y*y) [10% nulls]"), workloads);
        assertTrue(devices.containsAll(List.of("row-loop", "vector-api-loop", "cpu")), devices.toString());
        int perConfig = devices.size();
        assertEquals(4 * 2 * perConfig, lines.size(), "every device on every workload and batch size");
        assertTrue(run.err().contains("[8/8] sqrt(x*x+y*y) [10% nulls], 5000 rows in batches of 5000"), run.err());
    }

    @Test
    void theTableNamesTheMachineAndItsDevices() {
        Run run = bench("bench", "--rows", "2000", "--batch-rows", "2000", "--nulls", "0", "--workload", "a*b+c",
                "--iterations", "1", "--warmup", "1", "--warmup-ms", "0");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("Quiver bench: Java "), run.out());
        assertTrue(run.out().contains("  device cpu: "), run.out());
        assertTrue(run.out().matches("(?s).*\\na\\*b\\+c +2000 +2000 cpu .*"), run.out());
    }

    @Test
    void anUnknownWorkloadIsAnErrorThatListsTheKnownOnes() {
        Run run = bench("bench", "--workload", "nope", "--rows", "10");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("no workload matches [nope]; known: a*b+c, sqrt(x*x+y*y)"), run.err());
    }
}
