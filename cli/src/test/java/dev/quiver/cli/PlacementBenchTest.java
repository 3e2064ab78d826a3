package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code quiver bench --placement}: every case at every batch size in each transfer mode (both on a
 * machine with OpenCL, the device's own first), in the table and as JSON lines with exactly the
 * documented fields, regret and oracle consistent with the times, and the bytes the OpenCL policy
 * copied per batch equal to a count by hand (none in zero copy). Timings themselves are not asserted.
 */
class PlacementBenchTest {

    private static final List<String> CASES = List.of("cheap", "predicate", "transcendental", "heavy");
    private static final String[] SHORT = {
        "--rows", "64K", "--batch-rows", "1K,16K", "--iterations", "1", "--warmup", "1", "--warmup-ms", "0"
    };

    /** Per case, its float64 inputs and its result's bits per row (a Boolean is a bitmap). */
    private static final Map<String, int[]> SHAPE = Map.of(
            "cheap",
            new int[] {3, 64},
            "predicate",
            new int[] {3, 1},
            "transcendental",
            new int[] {4, 64},
            "heavy",
            new int[] {3, 64});

    /**
     * Bytes one batch of {@code rows} rows copies to the device and back in {@code transfer} mode: with
     * copies, every input once and the result once (no nulls: the kernels run dense, validity stays home).
     */
    static long[] expectedBytes(String caseName, String transfer, int rows) {
        int[] shape = SHAPE.get(caseName);
        return transfer.equals("copy")
                ? new long[] {(long) shape[0] * 8 * rows, (long) shape[1] * rows / 8}
                : new long[] {0, 0};
    }

    private static CliRun placement(String... more) {
        List<String> args = new ArrayList<>(List.of("bench", "--placement"));
        args.addAll(List.of(SHORT));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }

    @Test
    void theTableHasEveryCaseAtEveryBatchSizeAndTheTotals() {
        CliRun run = placement();
        assertEquals(0, run.exitCode(), run.err());
        String out = run.out();
        assertTrue(out.startsWith("Quiver bench --placement: "), out);
        assertTrue(out.contains("  device cpu: "), out);
        assertTrue(out.contains("    figures: launch "), "each device with its figures: " + out);
        assertTrue(
                out.matches("(?s).*\\ncase +rows +batchRows +transfer +cpu ms +opencl ms +auto ms +oracle ms +regret"
                        + " +B to dev/batch +B from dev/batch +auto ran on.*"),
                out);
        boolean openCl = !out.contains("OpenCL: no device");
        List<String> modes = openCl ? PlacementBenchChartTest.transferModes(out) : List.of("-");
        if (openCl) {
            assertEquals(Set.of("zero-copy", "copy"), Set.copyOf(modes), out);
        }
        for (String c : CASES) {
            for (String batch : List.of("1K", "16K")) {
                for (String mode : modes) {
                    Matcher m = Pattern.compile("\n" + c + " +64K +" + batch + " +" + Pattern.quote(mode)
                                    + " +[0-9.]+ +([0-9.]+|-) +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% +([0-9]+|-) +([0-9]+|-) +cpu \\d+( / "
                                    + Pattern.quote(PlacementBench.label("opencl", mode.equals("-") ? null : mode))
                                    + " \\d+)?\n")
                            .matcher(out);
                    assertTrue(m.find(), c + " " + batch + " " + mode + ": " + out);
                    if (!m.group(1).equals("-")) {
                        long[] expected = expectedBytes(c, mode, batch.equals("1K") ? 1024 : 16384);
                        assertEquals(
                                expected[0],
                                Long.parseLong(m.group(2)),
                                c + " " + batch + " " + mode + " to the device");
                        assertEquals(
                                expected[1],
                                Long.parseLong(m.group(3)),
                                c + " " + batch + " " + mode + " from the device");
                    }
                }
            }
        }
        if (openCl) {
            for (String mode : modes) {
                assertTrue(out.contains("\nTotals over 8 cases, transfer " + mode + ": auto "), out);
            }
            assertTrue(out.contains("  opencl[" + modes.get(1) + "] took "), out);
        } else {
            assertTrue(out.contains("\nTotals over 8 cases: auto "), out);
        }
        assertTrue(out.contains("auto/oracle "), out);
        assertTrue(out.contains("auto/worse fixed "), out);
        assertTrue(out.contains("no 64K case was run"), out);
        assertTrue(
                out.contains("reproduce: ./quiver bench --placement --rows 64K --batch-rows 1K,16K --iterations 1 "),
                out);
        assertTrue(run.err().contains("[8/8] heavy 64K rows in batches of 16K"), run.err());
        assertFalse(run.err().contains("ERROR"), run.err());
    }

    @Test
    void jsonLinesHaveExactlyTheDocumentedFieldsAndConsistentRegret() throws Exception {
        CliRun run = placement("--format", "json");
        assertEquals(0, run.exitCode(), run.err());
        boolean openCl = !run.err().contains("OpenCL: no device");
        List<String> modes = openCl ? PlacementBenchChartTest.transferModes(run.err()) : Arrays.asList((String) null);
        ObjectMapper json = new ObjectMapper();
        Set<String> seen = new LinkedHashSet<>();
        String[] lines = run.out().strip().split("\n");
        for (String line : lines) {
            JsonNode n = json.readTree(line);
            List<String> fields = new ArrayList<>();
            n.fieldNames().forEachRemaining(fields::add);
            assertEquals(FIELDS, fields);
            assertEquals(65536, n.get("rows").asInt());
            seen.add(n.get("case").asText() + "@" + n.get("batchRows").asInt() + "@"
                    + n.get("transfer").asText(null));
            checkConsistent(n, openCl);
        }
        Set<String> expected = new LinkedHashSet<>();
        for (String c : CASES) {
            for (int b : new int[] {1024, 16384}) {
                for (String mode : modes) {
                    expected.add(c + "@" + b + "@" + mode);
                }
            }
        }
        assertEquals(expected, seen);
        assertEquals(8 * modes.size(), lines.length, run.out());
        assertTrue(run.err().contains("Totals over 8 cases"), "the totals go to stderr: " + run.err());
        assertTrue(run.err().contains("    figures: "), "the device list goes to stderr: " + run.err());
    }

    @Test
    void transferRestrictsTheSuiteToOneMode() throws Exception {
        CliRun run = placement("--format", "json", "--workload", "cheap", "--transfer", "copy");
        assertEquals(0, run.exitCode(), run.err());
        if (run.err().contains("OpenCL: no device")) {
            return; // nothing to restrict: the cpu and auto rows alone, checked by the test without OpenCL
        }
        String[] lines = run.out().strip().split("\n");
        assertEquals(2, lines.length, run.out());
        for (String line : lines) {
            JsonNode n = new ObjectMapper().readTree(line);
            assertEquals("copy", n.get("transfer").asText(), line);
            checkConsistent(n, true);
        }
        assertTrue(run.err().contains(" [copy]: "), "the device is listed in copy mode: " + run.err());
        assertTrue(run.err().contains(", transfer copy (configured)"), run.err());
        assertFalse(run.err().contains("[zero-copy]"), run.err());
        assertTrue(
                run.err().contains("reproduce: ./quiver bench --placement --rows 64K")
                        && run.err().contains(" --transfer copy"),
                run.err());
    }

    @Test
    void withoutOpenClTheModeStillRunsAndOpenclIsNull() throws Exception {
        CliRun run = placement("--format", "json", "--no-opencl", "--workload", "cheap,transcendental");
        assertEquals(0, run.exitCode(), run.err());
        String[] lines = run.out().strip().split("\n");
        assertEquals(4, lines.length, run.out());
        for (String line : lines) {
            JsonNode n = new ObjectMapper().readTree(line);
            assertTrue(n.get("openclMs").isNull(), line);
            assertTrue(n.get("transfer").isNull(), line);
            assertEquals(n.get("cpuMs").asDouble(), n.get("oracleMs").asDouble(), line);
            checkConsistent(n, false);
        }
        assertTrue(run.err().contains("OpenCL: no device"), run.err());
    }

    @Test
    void optionsThatDoNotApplyAndUnknownCasesAreExitTwo() {
        CliRun expr = CliRun.of("bench", "--placement", "--expr", "x", "--schema", "x:float64");
        assertEquals(2, expr.exitCode());
        assertTrue(expr.err().contains("--placement"), expr.err());
        CliRun unknown = CliRun.of("bench", "--placement", "--workload", "nope");
        assertEquals(2, unknown.exitCode());
        assertTrue(unknown.err().contains("known: cheap, predicate, transcendental, heavy"), unknown.err());
        CliRun noOpenClAlone = CliRun.of("bench", "--no-opencl", "--rows", "10");
        assertEquals(2, noOpenClAlone.exitCode());
        CliRun transferWithout = CliRun.of("bench", "--placement", "--no-opencl", "--transfer", "copy");
        assertEquals(2, transferWithout.exitCode());
        assertTrue(
                transferWithout.err().contains("--transfer")
                        && transferWithout.err().contains("--no-opencl"),
                transferWithout.err());
        CliRun badMode = CliRun.of("bench", "--placement", "--transfer", "dma");
        assertEquals(2, badMode.exitCode());
        assertTrue(
                badMode.err().contains("unknown OpenCL transfer mode 'dma': use auto, zero-copy or copy"),
                badMode.err());
    }

    private static final List<String> FIELDS = List.of(
            "case",
            "rows",
            "batchRows",
            "transfer",
            "cpuMs",
            "openclMs",
            "autoMs",
            "oracleMs",
            "regret",
            "openclBytesToDevicePerBatch",
            "openclBytesFromDevicePerBatch");

    /**
     * oracle = min of the present fixed times; regret = auto / oracle - 1 within the rounding of the printed
     * figures; the bytes per batch as counted by hand.
     */
    private static void checkConsistent(JsonNode n, boolean openCl) {
        double cpu = n.get("cpuMs").asDouble(),
                auto = n.get("autoMs").asDouble(),
                oracle = n.get("oracleMs").asDouble();
        assertTrue(cpu > 0 && auto > 0 && oracle > 0, n.toString());
        assertEquals(openCl, !n.get("openclMs").isNull(), n.toString());
        assertEquals(openCl, !n.get("transfer").isNull(), n.toString());
        assertEquals(openCl, !n.get("openclBytesToDevicePerBatch").isNull(), n.toString());
        if (openCl) {
            long[] expected = expectedBytes(
                    n.get("case").asText(),
                    n.get("transfer").asText(),
                    n.get("batchRows").asInt());
            assertEquals(expected[0], n.get("openclBytesToDevicePerBatch").asLong(), n.toString());
            assertEquals(expected[1], n.get("openclBytesFromDevicePerBatch").asLong(), n.toString());
        }
        double min = n.get("openclMs").isNull()
                ? cpu
                : Math.min(cpu, n.get("openclMs").asDouble());
        assertEquals(min, oracle, n.toString());
        // ms are rounded to 4 decimals, regret to 4 decimals
        double tolerance = 5e-5 + 5e-5 / oracle * (1 + auto / oracle) + 1e-9;
        assertEquals(auto / oracle - 1, n.get("regret").asDouble(), tolerance, n.toString());
    }
}
