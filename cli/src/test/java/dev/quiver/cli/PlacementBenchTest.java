package dev.quiver.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code quiver bench --placement}: every case at every batch size, in the table and as JSON
 * lines with exactly the documented fields, regret and oracle consistent with the times. Timings
 * themselves are not asserted.
 */
class PlacementBenchTest {

    private static final List<String> CASES = List.of("cheap", "predicate", "transcendental", "heavy");
    private static final String[] SHORT = {"--rows", "64K", "--batch-rows", "1K,16K", "--iterations", "1", "--warmup", "1",
            "--warmup-ms", "0"};

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
        assertTrue(out.matches("(?s).*\\ncase +rows +batchRows +cpu ms +opencl ms +auto ms +oracle ms +regret +auto ran on.*"), out);
        for (String c : CASES) {
            for (String batch : List.of("1K", "16K")) {
                assertTrue(out.matches("(?s).*\\n" + c + " +64K +" + batch + " +[0-9.]+ +([0-9.]+|-) +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% +cpu \\d+.*"),
                        c + " " + batch + ": " + out);
            }
        }
        assertTrue(out.contains("\nTotals over 8 cases: auto "), out);
        assertTrue(out.contains("auto/oracle "), out);
        assertTrue(out.contains("auto/worse fixed "), out);
        assertTrue(out.contains("no 64K case was run"), out);
        assertTrue(out.contains("reproduce: ./quiver bench --placement --rows 64K --batch-rows 1K,16K --iterations 1 "), out);
        assertTrue(run.err().contains("[8/8] heavy 64K rows in batches of 16K"), run.err());
        assertFalse(run.err().contains("ERROR"), run.err());
    }

    @Test
    void jsonLinesHaveExactlyTheEightFieldsAndConsistentRegret() throws Exception {
        CliRun run = placement("--format", "json");
        assertEquals(0, run.exitCode(), run.err());
        boolean openCl = !run.err().contains("OpenCL: no device");
        ObjectMapper json = new ObjectMapper();
        Set<String> seen = new LinkedHashSet<>();
        String[] lines = run.out().strip().split("\n");
        for (String line : lines) {
            JsonNode n = json.readTree(line);
            List<String> fields = new ArrayList<>();
            n.fieldNames().forEachRemaining(fields::add);
            assertEquals(List.of("case", "rows", "batchRows", "cpuMs", "openclMs", "autoMs", "oracleMs", "regret"), fields);
            assertEquals(65536, n.get("rows").asInt());
            seen.add(n.get("case").asText() + "@" + n.get("batchRows").asInt());
            checkConsistent(n, openCl);
        }
        Set<String> expected = new LinkedHashSet<>();
        for (String c : CASES) {
            for (int b : new int[]{1024, 16384}) {
                expected.add(c + "@" + b);
            }
        }
        assertEquals(expected, seen);
        assertEquals(8, lines.length, run.out());
        assertTrue(run.err().contains("Totals over 8 cases"), "the totals go to stderr: " + run.err());
        assertTrue(run.err().contains("    figures: "), "the device list goes to stderr: " + run.err());
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
    }

    /** oracle = min of the present fixed times; regret = auto / oracle - 1 within the rounding of the printed figures. */
    private static void checkConsistent(JsonNode n, boolean openCl) {
        double cpu = n.get("cpuMs").asDouble(), auto = n.get("autoMs").asDouble(), oracle = n.get("oracleMs").asDouble();
        assertTrue(cpu > 0 && auto > 0 && oracle > 0, n.toString());
        assertEquals(openCl, !n.get("openclMs").isNull(), n.toString());
        double min = n.get("openclMs").isNull() ? cpu : Math.min(cpu, n.get("openclMs").asDouble());
        assertEquals(min, oracle, n.toString());
        // ms are rounded to 4 decimals, regret to 4 decimals
        double tolerance = 5e-5 + 5e-5 / oracle * (1 + auto / oracle) + 1e-9;
        assertEquals(auto / oracle - 1, n.get("regret").asDouble(), tolerance, n.toString());
    }
}
