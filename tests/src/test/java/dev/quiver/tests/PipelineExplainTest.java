package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.SCHEMA;
import static dev.quiver.tests.ProbeFixtures.assertContains;
import static dev.quiver.tests.ProbeFixtures.assertZeroLeftAfter;
import static dev.quiver.tests.ProbeFixtures.await;
import static dev.quiver.tests.ProbeFixtures.doubles;
import static dev.quiver.tests.ProbeFixtures.longs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Placement;
import dev.quiver.stream.AsyncCallMetrics;
import dev.quiver.stream.AsyncOptions;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.tests.ProbeFixtures.Call;
import dev.quiver.tests.ProbeFixtures.Probe;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What plan.explain() and execution.explain(true) show of the lifted async calls, and the values of lifted shapes. */
class PipelineExplainTest extends QuiverTestBase {
    private QueryRuntime runtime;

    @BeforeEach
    void openRuntime() {
        runtime = QueryRuntime.create(2);
    }

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static int count(String text, String fragment) {
        int n = 0;
        for (int i = text.indexOf(fragment); i >= 0; i = text.indexOf(fragment, i + 1)) {
            n++;
        }
        return n;
    }

    private record Rows(List<Long> ids, List<List<Double>> columns) {}

    /** Runs over {@code batches} batches of {@code rows} rows and collects id and the named double columns. */
    private Rows run(PipelinePlan plan, int batches, int rows, String... columns) throws Exception {
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, batches, rows, runtime.executor()));
        try {
            List<Long> ids = new ArrayList<>();
            List<List<Double>> cols = new ArrayList<>();
            for (String _ : columns) {
                cols.add(new ArrayList<>());
            }
            await(
                    BatchStreams.forEach(q.stream(), b -> {
                        ids.addAll(longs(b, "id"));
                        for (int c = 0; c < columns.length; c++) {
                            cols.get(c).addAll(doubles(b, columns[c]));
                        }
                    }),
                    "the query");
            return new Rows(ids, cols);
        } finally {
            q.close();
            assertZeroLeftAfter(allocator, q.whenReleased());
        }
    }

    @Test
    void thePlanShowsTheLiftedOperatorAndTheEarlyFilter() {
        Probe f = new Probe("sentiment", 100, 3);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .filter("sentiment(x) > 0.5 AND id % 10 = 0")
                .project("id", "sentiment(x) * 2 AS score")
                .limit(5)
                .options(AsyncOptions.defaults().withBatchSize(512))
                .placement(Placement.CPU)
                .plan(quiver);
        String explain = plan.explain();
        assertEquals(
                List.of("sentiment(x) AS __quiver_async_0", "sentiment(x) AS __quiver_async_1"),
                plan.asyncCalls(),
                explain);
        // 512 rows rounded down to a multiple of the 100 rows per call: no short call but the last
        assertEquals(2, count(explain, "AsyncFunction: batches of 500 rows"), explain);
        assertContains(
                explain,
                "Pipeline -> id BIGINT, score DOUBLE",
                "Limit: 5",
                "(at most 5 rows in all: limit above)",
                "sentiment(x) AS __quiver_async_0 (100 rows per call)",
                "sentiment(x) AS __quiver_async_1 (100 rows per call)",
                "Filter: ((id % 10) = 0)  (the conjuncts without async calls, first)",
                "Filter: (__quiver_async_0 > 0.5)  (drops the async columns)",
                "Source: id BIGINT, x DOUBLE, v DOUBLE");
        // Output first: the limit on top, the source at the bottom, the early filter below the async operator it feeds.
        assertTrue(explain.indexOf("Limit: 5") < explain.indexOf("Project:"), explain);
        assertTrue(
                explain.indexOf("(drops the async columns)")
                        < explain.indexOf("(the conjuncts without async calls, first)"),
                explain);
        int early = explain.indexOf("(the conjuncts without async calls, first)");
        assertTrue(explain.lastIndexOf("AsyncFunction", early) > explain.indexOf("(drops the async columns)"), explain);
        assertTrue(explain.indexOf("Source:") > early, explain);
        assertTrue(f.calls.isEmpty(), "planning called the function");
    }

    @Test
    void anExecutionShowsCallsRowsPeakAndWaitingConsistentWithItsMetrics() throws Exception {
        Probe f = new Probe("remote", 100, 4); // holds calls until the test answers them
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "remote(v) AS y")
                .options(AsyncOptions.defaults().withBatchSize(1000))
                .placement(Placement.CPU)
                .plan(quiver);
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 1, 1000, runtime.executor()));
        try {
            CompletableFuture<VectorSchemaRoot> next = q.stream().next();
            // Answer the calls four at a time, once four are in flight: the peak is exactly the limit.
            List<Call> answered = new ArrayList<>();
            while (answered.size() < 10) {
                int want = Math.min(4, 10 - answered.size());
                List<Call> wave = f.take(want);
                if (want == 4) {
                    assertNull(f.poll(20), "a fifth call in flight");
                }
                for (Call c : wave) {
                    c.complete(v -> v + 0.25);
                }
                answered.addAll(wave);
            }
            try (VectorSchemaRoot b = await(next, "the batch")) {
                assertEquals(1000, b.getRowCount());
                List<Double> y = doubles(b, "y");
                for (int r = 0; r < 1000; r++) {
                    assertEquals(r + 0.25, y.get(r), "row " + r);
                }
            }
            assertNull(await(q.stream().next(), "the end"));
            AsyncCallMetrics m = q.asyncMetrics().getFirst();
            assertEquals(10, m.calls());
            assertEquals(1000, m.rowsSent());
            assertEquals(4, m.peakInFlight());
            assertEquals(0, m.inFlight());
            assertTrue(m.waitNanos() > 0, "waiting " + m.waitNanos());
            String explain = q.explain(true);
            assertContains(
                    explain,
                    "remote(v) AS __quiver_async_0 (100 rows per call, at most 4 in flight)",
                    String.format(
                            Locale.ROOT,
                            "calls=10, rows sent=1000, waiting=%.3f ms, peak in flight=4, retries=0, timeouts=0, failures=0",
                            m.waitNanos() / 1e6),
                    "rows in=1000 out=1000, batches out=1",
                    "(1 partition)");
            Matcher w = Pattern.compile("waiting=([0-9.]+) ms").matcher(explain);
            assertTrue(w.find(), explain);
            double waitingMs = Double.parseDouble(w.group(1));
            assertTrue(waitingMs > 0, explain);
            Matcher elapsed = Pattern.compile("Elapsed: ([0-9.]+) ms").matcher(explain);
            assertTrue(elapsed.find(), explain);
            assertTrue(
                    waitingMs <= Double.parseDouble(elapsed.group(1)), "waiting longer than the query ran: " + explain);
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void twoAsyncCallsInOneProjectionShareOneOperator() throws Exception {
        Probe f = new Probe("ften", 64, 4).answering(v -> v * 10);
        Probe g = new Probe("gplus", 0, 4).answering(v -> v + 1);
        quiver.functions().register(f);
        quiver.functions().register(g);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "ften(x) AS a", "gplus(v) - ften(x) AS b")
                .options(AsyncOptions.defaults().withBatchSize(300))
                .placement(Placement.CPU)
                .plan(quiver);
        String explain = plan.explain();
        assertEquals(1, count(explain, "AsyncFunction:"), explain);
        assertEquals(
                List.of("ften(x) AS __quiver_async_0", "gplus(v) AS __quiver_async_1"), plan.asyncCalls(), explain);
        Rows rows = run(plan, 2, 500, "a", "b");
        assertEquals(1000, rows.ids().size());
        for (int r = 0; r < 1000; r++) {
            assertEquals(r, rows.ids().get(r));
            Double x = ProbeFixtures.x(r);
            assertEquals(x == null ? null : x * 10, rows.columns().get(0).get(r), "a at row " + r);
            assertEquals(
                    x == null ? null : r + 1 - x * 10, rows.columns().get(1).get(r), "b at row " + r);
        }
        assertEquals(1000, f.totalRows(), "ften is called once per row, though used twice");
        assertEquals(1000, g.totalRows());
        assertTrue(f.calls.stream().allMatch(c -> c.rows() <= 64));
        assertTrue(g.calls.stream().allMatch(c -> c.rows() <= 300));
    }

    @Test
    void nestedAsyncCallsRunAsTwoLevels() throws Exception {
        Probe f = new Probe("ften", 50, 4).answering(v -> v * 10);
        Probe g = new Probe("gplus", 0, 4).answering(v -> v + 1);
        quiver.functions().register(f);
        quiver.functions().register(g);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "ften(gplus(x)) AS y")
                .options(AsyncOptions.defaults().withBatchSize(256))
                .placement(Placement.CPU)
                .plan(quiver);
        String explain = plan.explain();
        assertEquals(2, count(explain, "AsyncFunction:"), explain);
        assertEquals(
                List.of("gplus(x) AS __quiver_async_0", "ften(__quiver_async_0) AS __quiver_async_1"),
                plan.asyncCalls(),
                explain);
        // The outer call's operator is above the inner one's.
        assertTrue(explain.indexOf("ften(__quiver_async_0)") < explain.indexOf("gplus(x) AS"), explain);
        Rows rows = run(plan, 3, 300, "y");
        for (int r = 0; r < 900; r++) {
            assertEquals(r, rows.ids().get(r));
            Double x = ProbeFixtures.x(r);
            assertEquals(
                    x == null ? null : (x + 1) * 10, rows.columns().getFirst().get(r), "row " + r);
        }
        assertEquals(900, f.totalRows());
        assertEquals(900, g.totalRows());
        // ften saw gplus's results, not x.
        List<Double> seen = f.calls.stream()
                .flatMap(c -> c.values.stream())
                .filter(v -> v != null)
                .sorted()
                .distinct()
                .toList();
        assertEquals(1.0, seen.getFirst());
        assertEquals(100.0, seen.getLast());
    }

    @Test
    void aDuplicatedCallIsLiftedOnce() throws Exception {
        Probe f = new Probe("ften", 100, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .filter("ften(x) + ften(x) > 100")
                .project("id", "ften(x) + ften(x) AS y")
                .options(AsyncOptions.defaults().withBatchSize(1000))
                .placement(Placement.CPU)
                .plan(quiver);
        String explain = plan.explain();
        assertEquals(
                List.of("ften(x) AS __quiver_async_0", "ften(x) AS __quiver_async_1"),
                plan.asyncCalls(),
                "one call site per step: " + explain);
        assertContains(
                explain,
                "Filter: ((__quiver_async_0 + __quiver_async_0) > 100)",
                "(__quiver_async_1 + __quiver_async_1) AS y");
        assertFalse(explain.contains("__quiver_async_2"), explain);
        Rows rows = run(plan, 2, 500, "y");
        List<Long> expectedIds = new ArrayList<>();
        for (long r = 0; r < 1000; r++) {
            Double x = ProbeFixtures.x(r);
            if (x != null && x * 20 > 100) {
                expectedIds.add(r);
            }
        }
        assertEquals(expectedIds, rows.ids());
        assertEquals(
                expectedIds.stream().map(r -> ProbeFixtures.x(r) * 20).toList(),
                rows.columns().getFirst());
        // Once per row for the filter, once per surviving row for the projection.
        assertEquals(1000 + expectedIds.size(), f.totalRows());
    }
}
