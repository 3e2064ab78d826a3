package dev.quiver.cli.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Quiver;
import dev.quiver.cli.CliFunctions;
import dev.quiver.functions.FunctionRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * The whole suite at a tiny size (10K rows in batches of 4K, the last one short; one timed pass):
 * every engine's result of every query agrees with the hand-written loop's (the runner checks each
 * with {@link ResultChecker} and reports any difference as an error), every engine has a figure
 * for every query, the filters keep rows (but Q19's, which keeps few), and the allocator holds
 * nothing at the end. Timings are not asserted.
 */
class QueryBenchTest {

    static Quiver.Builder quiver() {
        FunctionRegistry functions = FunctionRegistry.withDefaults();
        functions.register(CliFunctions.haversine());
        return Quiver.builder().functions(functions);
    }

    @Test
    void everyEngineAgreesWithTheLoopOnEveryQuery() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), progress = new ByteArrayOutputStream();
        QueryBench.Outcome outcome;
        try (RootAllocator allocator = new RootAllocator()) {
            QueryBenchOptions options = new QueryBenchOptions(
                    10_240,
                    4_096,
                    0,
                    0,
                    1,
                    7,
                    null,
                    QueryBenchTest::quiver,
                    new PrintStream(progress, true, StandardCharsets.UTF_8));
            outcome = new QueryBench(options)
                    .run(
                            allocator,
                            new QueryReport(
                                    new PrintStream(out, true, StandardCharsets.UTF_8), System.err, false, 4_096));
            assertEquals(0, allocator.getAllocatedMemory(), "every buffer freed");
        }
        String log = progress.toString(StandardCharsets.UTF_8);
        assertEquals(List.of(), outcome.errors(), log);
        assertEquals(
                List.of("java-loop", "duckdb-1t", "quiver-cpu-1t", "quiver-cpu", "quiver-auto"), outcome.engines());
        assertEquals(
                QuerySuite.names(),
                outcome.timings().stream().map(t -> t.query().name()).toList());
        for (QueryTiming t : outcome.timings()) {
            assertEquals(10_240, t.rowsIn(), t.query().name());
            assertEquals(
                    outcome.engines(),
                    List.copyOf(t.medianMs().keySet()),
                    t.query().name());
            if (!t.query().name().startsWith("q19")) {
                assertTrue(t.rowsOut() > 10, t.query().name() + " keeps rows: " + t.rowsOut());
            }
            assertTrue(t.rowsOut() < t.rowsIn(), t.query().name() + " filters: " + t.rowsOut());
        }
        // the same data whatever the encoding: a query and its -dict twin keep the same rows
        for (QueryTiming t : outcome.timings()) {
            if (t.query().name().endsWith("-dict")) {
                String plain = t.query().name().replace("-dict", "");
                long rows = outcome.timings().stream()
                        .filter(p -> p.query().name().equals(plain))
                        .findFirst()
                        .orElseThrow()
                        .rowsOut();
                assertEquals(rows, t.rowsOut(), t.query().name());
            }
        }
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(
                table.contains("query             rows in   rows out     java-loop     duckdb-1t quiver-cpu-1t"
                        + "    quiver-cpu   quiver-auto   1t vs loop 1t vs duckdb"),
                table);
        for (String q : QuerySuite.names()) {
            assertTrue(
                    table.lines()
                            .anyMatch(l -> l.startsWith(q + " ") && l.trim().endsWith("x")),
                    q + ": " + table);
        }
        assertTrue(table.contains("Geometric means of the speedups"), table);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("  quiver-cpu-1t ")), table);
    }

    @Test
    void anUnknownQueryIsRefusedWithTheKnownNames() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> QueryBench.select(List.of("q6", "q99")));
        assertTrue(e.getMessage().contains("'q99'") && e.getMessage().contains("q1, q6, q12"), e.getMessage());
        assertEquals(
                List.of("q6", "taxi"),
                QueryBench.select(List.of("taxi", "q6")).stream()
                        .map(BenchQuery::name)
                        .toList());
    }

    @Test
    void duckDbIsGivenOnlyTheColumnsAQueryReads() {
        BenchQuery q6 = QuerySuite.all().stream()
                .filter(q -> q.name().equals("q6"))
                .findFirst()
                .orElseThrow();
        assertEquals(
                List.of("l_quantity", "l_extendedprice", "l_discount", "l_shipdate"),
                q6.columnsRead(LineitemTable.schema(StringEncoding.PLAIN)));
        BenchQuery taxi = QuerySuite.all().getLast();
        assertEquals(
                TaxiTable.schema(StringEncoding.PLAIN).getFields().stream()
                        .map(f -> f.getName())
                        .toList(),
                taxi.columnsRead(TaxiTable.schema(StringEncoding.PLAIN)));
    }
}
