package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.SCHEMA;
import static dev.quiver.tests.ProbeFixtures.assertZeroLeftAfter;
import static dev.quiver.tests.ProbeFixtures.await;
import static dev.quiver.tests.ProbeFixtures.doubles;
import static dev.quiver.tests.ProbeFixtures.longs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Placement;
import dev.quiver.stream.AsyncCallMetrics;
import dev.quiver.stream.AsyncOptions;
import dev.quiver.stream.BatchStream;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.tests.ProbeFixtures.CountingSource;
import dev.quiver.tests.ProbeFixtures.Probe;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Limits over async columns stop reading and calling; a slow consumer holds the source back. */
class AsyncLimitTest extends QuiverTestBase {
    private QueryRuntime runtime;

    @BeforeEach
    void openRuntime() {
        runtime = QueryRuntime.create(2);
    }

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private record Rows(List<Long> ids, List<Double> ys) {}

    private Rows drain(QueryExecution q) throws InterruptedException {
        List<Long> ids = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        await(
                BatchStreams.forEach(q.stream(), b -> {
                    ids.addAll(longs(b, "id"));
                    ys.addAll(doubles(b, "y"));
                }),
                "the query");
        return new Rows(ids, ys);
    }

    @Test
    void aLimitAboveAnAsyncProjectionStopsAnUnboundedSource() throws Exception {
        Probe f = new Probe("times_ten", 0, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "times_ten(x) AS y")
                .limit(10)
                .options(AsyncOptions.defaults().withBatchSize(8192))
                .placement(Placement.CPU)
                .plan(quiver);
        CountingSource source = CountingSource.unbounded(allocator, 100);
        QueryExecution q = plan.execute(runtime, source.stream(runtime.executor()));
        try {
            Rows rows = drain(q);
            assertEquals(LongStream.range(0, 10).boxed().toList(), rows.ids());
            for (int r = 0; r < 10; r++) {
                Double x = ProbeFixtures.x(r);
                assertEquals(x == null ? null : x * 10, rows.ys().get(r), "row " + r);
            }
            assertEquals(10, f.totalRows(), "rows the function saw");
            assertEquals(1, f.calls.size());
            AsyncCallMetrics m = q.asyncMetrics().getFirst();
            assertEquals(10, m.rowsSent());
            assertEquals(1, source.made.get(), "source batches made");
            assertTrue(source.closed.get(), "the source was not closed");
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
        assertEquals(1, source.made.get(), "source batches made after the end");
    }

    @Test
    void aLimitAboveACheapFilterStillBoundsTheCalls() throws Exception {
        Probe f = new Probe("times_ten", 0, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .filter("id % 3 = 0")
                .project("id", "times_ten(v) AS y")
                .limit(25)
                .placement(Placement.CPU)
                .plan(quiver);
        CountingSource source = CountingSource.unbounded(allocator, 100);
        QueryExecution q = plan.execute(runtime, source.stream(runtime.executor()));
        try {
            Rows rows = drain(q);
            List<Long> expected =
                    LongStream.iterate(0, r -> r + 3).limit(25).boxed().toList();
            assertEquals(expected, rows.ids());
            assertEquals(expected.stream().map(r -> r * 10.0).toList(), rows.ys());
            assertEquals(25, f.totalRows());
            assertEquals(1, source.made.get(), "34 rows pass in the first 100");
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void aLimitAboveAFilterOnTheAsyncColumnReturnsTheRightRows() throws Exception {
        Probe f = new Probe("times_ten", 500, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "times_ten(x) AS y")
                .filter("y > 955")
                .limit(12)
                .options(AsyncOptions.defaults().withBatchSize(1000))
                .placement(Placement.CPU)
                .plan(quiver);
        List<Long> expected = new ArrayList<>();
        for (long r = 0; expected.size() < 12; r++) {
            Double x = ProbeFixtures.x(r);
            if (x != null && x * 10 > 955) {
                expected.add(r);
            }
        }
        CountingSource source = CountingSource.unbounded(allocator, 100);
        QueryExecution q = plan.execute(runtime, source.stream(runtime.executor()));
        try {
            Rows rows = drain(q);
            assertEquals(expected, rows.ids());
            assertEquals(expected.stream().map(r -> ProbeFixtures.x(r) * 10).toList(), rows.ys());
            // The filter needs every row's value: the function sees whole batches, but no more than it must
            // (the 12 rows are among the first 1000).
            assertTrue(expected.getLast() < 1000);
            assertEquals(1000, f.totalRows());
            assertEquals(10, source.made.get(), "source batches made");
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void aLimitAboveAnAsyncFilterReturnsTheRightRows() throws Exception {
        Probe f = new Probe("times_ten", 100, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .filter("times_ten(x) > 955 AND id % 2 = 0")
                .project("id", "x * 10 AS y")
                .limit(7)
                .options(AsyncOptions.defaults().withBatchSize(1000))
                .placement(Placement.CPU)
                .plan(quiver);
        List<Long> expected = new ArrayList<>();
        for (long r = 0; expected.size() < 7; r++) {
            Double x = ProbeFixtures.x(r);
            if (r % 2 == 0 && x != null && x * 10 > 955) {
                expected.add(r);
            }
        }
        CountingSource source = CountingSource.unbounded(allocator, 100);
        QueryExecution q = plan.execute(runtime, source.stream(runtime.executor()));
        try {
            assertEquals(expected, drain(q).ids());
            // One coalesced batch of 1000 rows with an even id (2000 source rows) holds the 7 rows.
            assertTrue(expected.getLast() < 2000);
            assertEquals(1000, f.totalRows(), "only rows with an even id reach the function, 1000 at a time");
            assertEquals(20, source.made.get(), "source batches made");
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void aSlowConsumerHoldsTheSourceBack() throws Exception {
        Probe f = new Probe("times_ten", 100, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(SCHEMA)
                .project("id", "times_ten(v) AS y")
                .options(AsyncOptions.defaults().withBatchSize(1000))
                .placement(Placement.CPU)
                .plan(quiver);
        CountingSource source = CountingSource.unbounded(allocator, 100);
        QueryExecution q = plan.execute(runtime, source.stream(runtime.executor()));
        try {
            BatchStream s = q.stream();
            try (VectorSchemaRoot b = await(s.next(), "first batch")) {
                assertEquals(1000, b.getRowCount());
                assertEquals(LongStream.range(0, 1000).boxed().toList(), longs(b, "id"));
                assertEquals(LongStream.range(0, 1000).mapToObj(r -> r * 10.0).toList(), doubles(b, "y"));
            }
            // The consumer stops pulling: nothing may run further ahead of it than the one batch read ahead.
            Thread.sleep(200); // the wait is the test: a source or operator running ahead would fill it
            int made = source.made.get();
            assertTrue(
                    made >= 10 && made <= 21,
                    "source batches made for one output batch of 1000 rows and one read ahead: " + made);
            assertTrue(
                    f.totalRows() <= 2000,
                    "the function ran more than one batch ahead of the consumer: " + f.totalRows());
            AsyncCallMetrics m = q.asyncMetrics().getFirst();
            assertTrue(m.calls() <= 20, "calls: " + m.calls());
            assertFalse(source.closed.get());
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
        assertTrue(source.closed.get(), "the source was not closed");
    }
}
