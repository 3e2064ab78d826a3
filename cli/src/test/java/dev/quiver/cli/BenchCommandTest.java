package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.Quiver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The bench's output contract: one JSON object per line with the documented fields, every
 * workload and device present, each device's result checked against the row loop (a mismatch
 * would be an exit code of 1). Timings themselves are not asserted here.
 */
class BenchCommandTest {

    private record Run(int exitCode, String out, String err) {}

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
        Run run = bench(
                "bench",
                "--format",
                "json",
                "--rows",
                "5000",
                "--batch-rows",
                "1000,5000",
                "--nulls",
                "0,0.1",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0");
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
            assertEquals(
                    List.of("workload", "rows", "batchRows", "device", "medianMs", "gbPerSec", "speedupVsRowLoop"),
                    fields);
            assertEquals(5000, n.get("rows").asInt());
            assertTrue(n.get("medianMs").asDouble() > 0, n.toString());
            assertTrue(Double.isFinite(n.get("speedupVsRowLoop").asDouble()), n.toString());
            workloads.add(n.get("workload").asText());
            devices.add(n.get("device").asText());
            if (n.get("device").asText().equals("row-loop")) {
                assertEquals(1.0, n.get("speedupVsRowLoop").asDouble());
            }
        }
        assertEquals(
                Set.of(
                        "a*b+c",
                        "a*b+c [10% nulls]",
                        "sqrt(x*x+y*y)",
                        "sqrt(x*x+y*y) [10% nulls]",
                        "haversine",
                        "haversine [10% nulls]"),
                workloads);
        assertTrue(devices.containsAll(List.of("row-loop", "vector-api-loop", "cpu")), devices.toString());
        int perConfig = devices.size();
        assertEquals(6 * 2 * perConfig, lines.size(), "every device on every workload and batch size");
        assertTrue(run.err().contains("[12/12] haversine [10% nulls], 5000 rows in batches of 5000"), run.err());
    }

    @Test
    void theTableNamesTheMachineAndItsDevices() {
        Run run = bench(
                "bench",
                "--rows",
                "2000",
                "--batch-rows",
                "2000",
                "--nulls",
                "0",
                "--workload",
                "a*b+c",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("Quiver bench: Java "), run.out());
        assertTrue(run.out().contains("  device cpu: "), run.out());
        assertTrue(run.out().matches("(?s).*\\na\\*b\\+c +2000 +2000 cpu .*"), run.out());
    }

    /** A slow run is warmed up and timed fewer times: at least 1 warm-up run and 3 timed ones, within --budget-ms. */
    @Test
    void theBudgetCutsSlowRunsShort() {
        try (var allocator = new RootAllocator();
                var batch = VectorSchemaRoot.create(SchemaSpec.parse("x:float64"), allocator)) {
            batch.setRowCount(1);
            int[] calls = {0};
            Function<VectorSchemaRoot, FieldVector> slow = b -> {
                calls[0]++;
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                var v = new Float8Vector("r", allocator);
                v.allocateNew(1);
                v.setValueCount(1);
                return v;
            };
            BenchCommand bench = new BenchCommand();
            bench.warmup = 3;
            bench.warmupMs = 0;
            bench.iterations = 7;
            bench.budgetMs = 0;
            assertTrue(bench.medianMs(List.of(batch), slow) >= 20);
            assertEquals(3 + 7, calls[0], "no budget: every run");
            calls[0] = 0;
            // Each run takes at least 20 ms: the warm-up is over its 15 ms after 1 run, the timing over its 30 ms after
            // 3.
            bench.budgetMs = 30;
            assertTrue(bench.medianMs(List.of(batch), slow) >= 20);
            assertEquals(1 + 3, calls[0], "at least 1 warm-up run and 3 timed runs");
            calls[0] = 0;
            bench.budgetMs = 1;
            bench.iterations = 2;
            bench.medianMs(List.of(batch), slow);
            assertEquals(1 + 2, calls[0], "at least 1 warm-up run, and --iterations when it is under 3");
        }
    }

    @Test
    void anUnknownWorkloadIsAnErrorThatListsTheKnownOnes() {
        Run run = bench("bench", "--workload", "nope", "--rows", "10");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("no workload matches [nope]; known: a*b+c, sqrt(x*x+y*y), haversine"), run.err());
    }

    @Test
    void anExpressionOfYourOwnGivesTheSameJsonRecordsAgainstTheCpuBaseline() throws Exception {
        String expr = "CASE WHEN upper(name) LIKE 'A%' THEN x * 2 ELSE CAST(n AS DOUBLE) END";
        Run run = bench(
                "bench",
                "--expr",
                expr,
                "--schema",
                "x:float64,n:int32,name:utf8",
                "--format",
                "json",
                "--rows",
                "3000",
                "--batch",
                "1000",
                "--nulls",
                "0,0.2",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(!run.err().contains("ERROR"), "every device agrees with the cpu: " + run.err());
        ObjectMapper json = new ObjectMapper();
        Set<String> workloads = new LinkedHashSet<>(), devices = new LinkedHashSet<>();
        int lines = 0;
        for (String line : run.out().strip().split("\n")) {
            JsonNode n = json.readTree(line);
            lines++;
            List<String> fields = new ArrayList<>();
            n.fieldNames().forEachRemaining(fields::add);
            assertEquals(
                    List.of("workload", "rows", "batchRows", "device", "medianMs", "gbPerSec", "speedupVsRowLoop"),
                    fields);
            assertEquals(3000, n.get("rows").asInt());
            assertEquals(1000, n.get("batchRows").asInt());
            assertTrue(n.get("medianMs").asDouble() > 0, n.toString());
            assertTrue(
                    n.get("gbPerSec").asDouble() >= 0
                            && Double.isFinite(n.get("gbPerSec").asDouble()),
                    n.toString());
            assertTrue(Double.isFinite(n.get("speedupVsRowLoop").asDouble()), n.toString());
            workloads.add(n.get("workload").asText());
            devices.add(n.get("device").asText());
            if (n.get("device").asText().equals("cpu")) {
                assertEquals(1.0, n.get("speedupVsRowLoop").asDouble(), "the cpu device is the baseline");
            }
        }
        assertEquals(Set.of(expr, expr + " [20% nulls]"), workloads);
        assertEquals("cpu", devices.iterator().next(), devices.toString());
        assertTrue(!devices.contains("row-loop") && !devices.contains("vector-api-loop"), devices.toString());
        assertEquals(2 * devices.size(), lines);
        assertTrue(run.err().contains("baseline: Quiver's own cpu device"), run.err());
    }

    @Test
    void everyScalarTypeCanBeGeneratedAndTimedOnEveryDevice() {
        Run run = bench(
                "bench",
                "--expr",
                "a + b",
                "--schema",
                "a:int64,b:int64,c:int8,d:int16,e:uint8,f:uint16,g:uint32,"
                        + "h:uint64,i:float32,j:boolean,k:decimal(10,2),l:utf8,m:large_utf8,o:binary,p:date32,"
                        + "q:timestamp[us],r:timestamp[ms, UTC],s:null",
                "--rows",
                "500",
                "--nulls",
                "0.5",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("vs cpu"), run.out());
        assertTrue(run.out().matches("(?s).*\\na \\+ b \\[50% nulls\\] +500 +500 cpu .*"), run.out());
    }

    @Test
    void generatedDataIsSeededAndHasNullsAtTheFraction() {
        Schema schema = SchemaSpec.parse("x:float64,name:utf8,t:timestamp[ms, UTC],p:decimal(5,1)");
        try (var allocator = new RootAllocator()) {
            var a = new DataGenerator(7, 0.25).batches(schema, allocator, 4000, 4000);
            var b = new DataGenerator(7, 0.25).batches(schema, allocator, 4000, 4000);
            try {
                for (String col : List.of("x", "name", "t", "p")) {
                    var va = a.getFirst().getVector(col);
                    var vb = b.getFirst().getVector(col);
                    assertEquals(null, ExpressionBench.firstDifference(va, vb), col);
                    double nullFraction = va.getNullCount() / 4000.0;
                    assertTrue(nullFraction > 0.2 && nullFraction < 0.3, col + ": " + nullFraction);
                }
            } finally {
                a.forEach(VectorSchemaRoot::close);
                b.forEach(VectorSchemaRoot::close);
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    /** Devices may differ by a few ulps in an inexact math function: the check then allows 1e-9 relative, otherwise 1 ulp. */
    @Test
    void inexactMathIsComparedWithARelativeTolerance() {
        Schema schema = SchemaSpec.parse("x:float64");
        try (var allocator = new RootAllocator();
                var quiver = Quiver.builder()
                        .allocator(allocator)
                        .openCl(false)
                        .functions(CliFunctions.registry())
                        .build();
                var e = new Float8Vector("e", allocator);
                var a = new Float8Vector("a", allocator)) {
            assertTrue(ExpressionBench.hasInexactMath(quiver.compile(schema, "sin(x) * 2")));
            assertTrue(ExpressionBench.hasInexactMath(quiver.compile(schema, "haversine(x, x, 1, 2)")));
            assertTrue(!ExpressionBench.hasInexactMath(quiver.compile(schema, "sqrt(x * x) + floor(x)")));
            e.allocateNew(1);
            a.allocateNew(1);
            e.set(0, 1000.0);
            a.set(0, 1000.0 + 1e-7);
            e.setValueCount(1);
            a.setValueCount(1);
            assertTrue(ExpressionBench.firstDifference(e, a, false) != null, "1e-10 relative is more than 1 ulp");
            assertEquals(null, ExpressionBench.firstDifference(e, a, true));
            a.set(0, 1000.0 + 1e-5);
            assertTrue(ExpressionBench.firstDifference(e, a, true) != null, "1e-8 relative is too far even so");
        }
    }

    @Test
    void aBadExpressionOrSchemaIsExitTwo() {
        Run planning = bench("bench", "--expr", "x + nope", "--schema", "x:float64", "--rows", "10");
        assertEquals(2, planning.exitCode());
        assertTrue(planning.err().contains("nope"), planning.err());
        Run schema = bench("bench", "--expr", "x", "--schema", "x:float65", "--rows", "10");
        assertEquals(2, schema.exitCode());
        assertTrue(schema.err().contains("bad type 'float65'"), schema.err());
        Run schemaWithoutExpr = bench("bench", "--schema", "x:float64", "--rows", "10");
        assertEquals(2, schemaWithoutExpr.exitCode());
    }

    @Test
    void deviceCpuTimesOnlyTheCpu() throws Exception {
        Run run = bench(
                "bench",
                "--expr",
                "x * 2",
                "--schema",
                "x:float64",
                "--device",
                "cpu",
                "--format",
                "json",
                "--rows",
                "1000",
                "--nulls",
                "0",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(1, run.out().strip().split("\n").length, run.out());
        assertEquals(
                "cpu",
                new ObjectMapper().readTree(run.out().strip()).get("device").asText());
    }

    @Test
    void deviceAutoIsAnotherRunNextToTheBaseline() throws Exception {
        Run run = bench(
                "bench",
                "--expr",
                "x * 2",
                "--schema",
                "x:float64",
                "--device",
                "auto",
                "--format",
                "json",
                "--rows",
                "1000",
                "--nulls",
                "0",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0");
        assertEquals(0, run.exitCode(), run.err());
        String[] lines = run.out().strip().split("\n");
        assertEquals(2, lines.length, run.out());
        assertEquals("auto", new ObjectMapper().readTree(lines[1]).get("device").asText());
    }
}
