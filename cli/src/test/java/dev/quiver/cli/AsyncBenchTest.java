package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.Quiver;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryRuntime;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * {@code quiver bench --async}: every default config in the table and as JSON lines with exactly
 * the documented fields, the HTTP requests exactly ceil(rows / rows per call) (one per row for
 * 1x1), 1000x4 far faster than 1x1 scaled to the same rows, the checks that fail a run (a wrong
 * score, a wrong request count), and the options that do not go with it.
 */
class AsyncBenchTest {

    /** 3000 rows, 1x1 on 200 of them, 1 ms per request: about a second per run of the command. */
    private static final String[] FAST = {
        "--rows", "3000", "--per-row-rows", "200", "--iterations", "1", "--latency-ms", "1"
    };

    private static final List<String> FIELDS = List.of(
            "config",
            "rowsPerCall",
            "maxInFlight",
            "rows",
            "medianMs",
            "rowsPerSec",
            "requests",
            "peakInFlight",
            "speedupVsPerRow");

    private static CliRun async(String... more) {
        List<String> args = new ArrayList<>(List.of("bench", "--async"));
        args.addAll(List.of(FAST));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }

    @Test
    void theTableHasEveryDefaultConfigWithExactRequestCounts() {
        CliRun run = async();
        assertEquals(0, run.exitCode(), run.err());
        String out = run.out();
        assertTrue(out.startsWith("Quiver bench --async: "), out);
        assertTrue(out.contains(" cores, "), out);
        assertTrue(out.contains("Java " + Runtime.version()), out);
        assertTrue(out.contains("1 ms latency per request"), out);
        assertTrue(out.contains("TCP_NODELAY on"), out);
        assertTrue(
                out.matches(
                        "(?s).*\\nconfig +rows/call +in flight +rows +median ms +rows/s +requests +peak +waiting +vs per-row\\n.*"),
                out);
        // config, rows/call, in flight, rows, median ms, rows/s, requests, peak, waiting, vs per-row
        String num = " +[0-9.]+", grouped = " +[0-9,]+";
        assertTrue(out.matches("(?s).*\\n1x1 +1 +1 +200\\*" + num + grouped + " +200 +1 +\\d+% +1\\.00x\\n.*"), out);
        assertTrue(out.matches("(?s).*\\n1000x1 +1000 +1 +3000" + num + grouped + " +3 +1 +\\d+% +[0-9.]+x\\n.*"), out);
        assertTrue(
                out.matches("(?s).*\\n1000x4 +1000 +4 +3000" + num + grouped + " +3 +[1-3] +\\d+% +[0-9.]+x\\n.*"),
                out);
        assertTrue(
                out.matches("(?s).*\\n1000x16 +1000 +16 +3000" + num + grouped + " +3 +[1-3] +\\d+% +[0-9.]+x\\n.*"),
                out);
        assertTrue(
                out.matches("(?s).*\\nbatchx4 +8192 +4 +3000" + num + grouped + " +1 +1 +\\d+% +[0-9.]+x\\n.*"), out);
        assertTrue(out.contains("  * 1x1 ran on 200 of the 3000 rows (--per-row-rows): "), out);
        assertTrue(out.contains("ms scaled to 3000 rows; every speedup compares with its time per row"), out);
        assertTrue(out.contains("1000x16 peaked at "), "a 3000-row stream holds 3 calls of 1000 rows: " + out);
        assertTrue(
                out.contains("  reproduce: ./quiver bench --async --rows 3000 --per-row-rows 200 --latency-ms 1 "
                        + "--async-configs 1x1,1000x1,1000x4,1000x16,batchx4 --iterations 1 --warmup 1 --seed 42"),
                out);
        assertTrue(run.err().contains("[5/5] batchx4: 3000 rows"), run.err());
        assertFalse(run.err().contains("ERROR"), run.err());
    }

    @Test
    void jsonLinesHaveExactlyTheNineFieldsAndBatchingBeatsPerRowCalls() throws Exception {
        CliRun run = async("--format", "json");
        assertEquals(0, run.exitCode(), run.err());
        Map<String, JsonNode> byConfig = new LinkedHashMap<>();
        for (String line : run.out().strip().split("\n")) {
            JsonNode n = new ObjectMapper().readTree(line);
            List<String> fields = new ArrayList<>();
            n.fieldNames().forEachRemaining(fields::add);
            assertEquals(FIELDS, fields, line);
            byConfig.put(n.get("config").asText(), n);
        }
        assertEquals(
                List.of("1x1", "1000x1", "1000x4", "1000x16", "batchx4"), List.copyOf(byConfig.keySet()), run.out());
        // config -> rows per call, calls in flight, rows, requests
        Map<String, long[]> expected = Map.of(
                "1x1",
                new long[] {1, 1, 200, 200},
                "1000x1",
                new long[] {1000, 1, 3000, 3},
                "1000x4",
                new long[] {1000, 4, 3000, 3},
                "1000x16",
                new long[] {1000, 16, 3000, 3},
                "batchx4",
                new long[] {8192, 4, 3000, 1});
        for (var e : expected.entrySet()) {
            JsonNode n = byConfig.get(e.getKey());
            long[] x = e.getValue();
            assertEquals(x[0], n.get("rowsPerCall").asLong(), n.toString());
            assertEquals(x[1], n.get("maxInFlight").asLong(), n.toString());
            assertEquals(x[2], n.get("rows").asLong(), n.toString());
            assertEquals(x[3], n.get("requests").asLong(), n.toString());
            int peak = n.get("peakInFlight").asInt();
            assertTrue(peak >= 1 && peak <= Math.min(x[1], x[3]), n.toString());
            double ms = n.get("medianMs").asDouble();
            assertTrue(ms > 0, n.toString());
            assertEquals(
                    x[2] / (ms / 1e3), n.get("rowsPerSec").asDouble(), 0.5 + x[2] / (ms / 1e3) * 1e-3, n.toString());
        }
        JsonNode perRow = byConfig.get("1x1"), batched = byConfig.get("1000x4");
        assertEquals(1.0, perRow.get("speedupVsPerRow").asDouble());
        assertTrue(batched.get("peakInFlight").asInt() >= 2, "the 3 calls of the one batch overlap: " + batched);
        double perRowScaledMs = perRow.get("medianMs").asDouble() / 200 * 3000;
        double batchedMs = batched.get("medianMs").asDouble();
        // 3000 calls of at least 1 ms one after the other against 3 calls, 3 at a time: hundreds of times faster
        // where nothing else runs; 10x leaves room for a loaded machine.
        assertTrue(
                perRowScaledMs > 10 * batchedMs, "1x1 scaled " + perRowScaledMs + " ms, 1000x4 " + batchedMs + " ms");
        assertTrue(perRowScaledMs >= 3000, "3000 requests of at least 1 ms each: " + perRowScaledMs);
        assertEquals(
                perRowScaledMs / batchedMs,
                batched.get("speedupVsPerRow").asDouble(),
                0.01 + perRowScaledMs / batchedMs * 2e-3,
                batched.toString());
        assertTrue(run.err().contains("Quiver bench --async: "), "the header goes to stderr: " + run.err());
        assertTrue(run.err().contains("reproduce: ./quiver bench --async "), run.err());
    }

    @Test
    void configsOfYourOwnAndNoBaselineMeanNoSpeedup() throws Exception {
        CliRun run = CliRun.of(
                "bench",
                "--async",
                "--rows",
                "1500",
                "--per-row-rows",
                "100",
                "--iterations",
                "1",
                "--warmup",
                "0",
                "--latency-ms",
                "0",
                "--async-configs",
                "1x2,500x2,batchx1,700x3",
                "--format",
                "json");
        assertEquals(0, run.exitCode(), run.err());
        String[] lines = run.out().strip().split("\n");
        assertEquals(4, lines.length, run.out());
        // config, rows, requests
        Object[][] expected = {{"1x2", 100, 100}, {"500x2", 1500, 3}, {"batchx1", 1500, 1}, {"700x3", 1500, 3}};
        for (int i = 0; i < lines.length; i++) {
            JsonNode n = new ObjectMapper().readTree(lines[i]);
            assertEquals(expected[i][0], n.get("config").asText(), lines[i]);
            assertEquals(expected[i][1], n.get("rows").asInt(), lines[i]);
            assertEquals(expected[i][2], n.get("requests").asInt(), lines[i]);
            assertTrue(n.get("speedupVsPerRow").isNull(), lines[i]);
        }
        assertTrue(run.err().contains("no 1x1 config was run: no speedups"), run.err());
        assertTrue(run.err().contains("1x2 ran on 100 of the 1500 rows"), run.err());
    }

    @Test
    void aWrongScoreOrAWrongRequestCountFailsTheRun() throws Exception {
        AsyncBench.Data data = new AsyncBench.Data(2500, 7);
        try (RootAllocator allocator = new RootAllocator();
                HttpClient http = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build();
                QueryRuntime runtime = QueryRuntime.create(2)) {
            // The service miscounts texts of 5 letters.
            try (LoopbackScoreServer wrong = new LoopbackScoreServer(0, t -> t.length() == 5 ? 6 : t.length());
                    Quiver quiver =
                            AsyncBench.quiverWith(allocator, new HttpScoreFunction(http, wrong.endpoint(), 1000, 4))) {
                PipelinePlan plan = AsyncBench.plan(quiver);
                IllegalStateException e = assertThrows(
                        IllegalStateException.class,
                        () -> AsyncBench.runOnce(
                                allocator, runtime, wrong, plan, data, new AsyncBench.Config(1000, 4), 2500));
                assertTrue(
                        e.getMessage().matches("row \\d+ \\('[a-z]{5}'\\): score 6\\.0, expected 5\\.0"),
                        e.getMessage());
            }
            // The function makes calls of 500 rows where the config says 1000: 5 requests, not 3.
            try (LoopbackScoreServer server = new LoopbackScoreServer(0);
                    Quiver quiver =
                            AsyncBench.quiverWith(allocator, new HttpScoreFunction(http, server.endpoint(), 500, 4))) {
                PipelinePlan plan = AsyncBench.plan(quiver);
                IllegalStateException e = assertThrows(
                        IllegalStateException.class,
                        () -> AsyncBench.runOnce(
                                allocator, runtime, server, plan, data, new AsyncBench.Config(1000, 4), 2500));
                assertTrue(
                        e.getMessage()
                                .contains(
                                        "the server counted 5 HTTP requests and the pipeline 5 calls, expected 3 = ceil(2500 / 1000)"),
                        e.getMessage());
                // And as configured it passes.
                AsyncBench.Run ok =
                        AsyncBench.runOnce(allocator, runtime, server, plan, data, new AsyncBench.Config(500, 4), 2500);
                assertTrue(ok.ms() > 0 && ok.peakInFlight() >= 1 && ok.peakInFlight() <= 4, ok.toString());
            }
            assertEquals(0, allocator.getAllocatedMemory(), "a failed run frees what it allocated");
        }
    }

    @Test
    void optionsThatDoNotGoWithAsyncAndBadConfigsAreExitTwo() {
        CliRun both = CliRun.of("bench", "--async", "--placement");
        assertEquals(2, both.exitCode());
        assertTrue(both.err().contains("--async and --placement are two different benchmarks"), both.err());

        CliRun syntax = CliRun.of("bench", "--async", "--async-configs", "1x1,1000by4");
        assertEquals(2, syntax.exitCode());
        assertTrue(syntax.err().contains("bad async config '1000by4': not of the form ROWSxCALLS"), syntax.err());
        assertTrue(syntax.err().contains("e.g. 1x1,1000x4,batchx4"), syntax.err());

        for (String bad : List.of("0x4", "1000x0", "x4", "1000x", "1000x4x2", "ax4", "1000x2000")) {
            CliRun r = CliRun.of("bench", "--async", "--async-configs", bad);
            assertEquals(2, r.exitCode(), bad + ": " + r.err());
            assertTrue(r.err().contains("bad async config '" + bad + "'"), r.err());
        }

        CliRun twice = CliRun.of("bench", "--async", "--async-configs", "1000x4,1000x4");
        assertEquals(2, twice.exitCode());
        assertTrue(twice.err().contains("lists a config twice"), twice.err());

        CliRun expr = CliRun.of("bench", "--async", "--expr", "x", "--schema", "x:float64");
        assertEquals(2, expr.exitCode());
        assertTrue(expr.err().contains("--expr, --schema do not go with it"), expr.err());

        CliRun rows = CliRun.of("bench", "--async", "--rows", "1K,2K");
        assertEquals(2, rows.exitCode());
        assertTrue(rows.err().contains("one --rows value"), rows.err());

        CliRun latency = CliRun.of("bench", "--async", "--latency-ms", "-1");
        assertEquals(2, latency.exitCode());
        assertTrue(latency.err().contains("--latency-ms must be between 0 and 60000"), latency.err());

        CliRun alone = CliRun.of("bench", "--latency-ms", "5", "--rows", "10");
        assertEquals(2, alone.exitCode());
        assertTrue(alone.err().contains("go with --async"), alone.err());
    }
}
