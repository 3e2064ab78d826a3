package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.SCHEMA;
import static dev.quiver.tests.ProbeFixtures.assertContains;
import static dev.quiver.tests.ProbeFixtures.assertZeroLeftAfter;
import static dev.quiver.tests.ProbeFixtures.await;
import static dev.quiver.tests.ProbeFixtures.causeOf;
import static dev.quiver.tests.ProbeFixtures.doubles;
import static dev.quiver.tests.ProbeFixtures.failure;
import static dev.quiver.tests.ProbeFixtures.longs;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Placement;
import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.stream.AsyncFunctionException;
import dev.quiver.stream.BatchStream;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.tests.ProbeFixtures.Probe;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Uncorrelated scalar subqueries in pipelines: computed once per query, SQL's NULL and one-row rules. */
class ScalarSubqueryPipelineTest extends QuiverTestBase {
    private static final Schema RATES = new Schema(List.of(
            new Field("k", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("r", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
    private static final String[] KEYS = {"a", "b", "c", "d"};
    private static final double[] RATE = {42.5, 7.0, 99.0, 7.0};

    private QueryRuntime runtime;
    private final AtomicInteger opened = new AtomicInteger();
    private final AtomicInteger ratesBatches = new AtomicInteger();

    @BeforeEach
    void openRuntime() {
        runtime = QueryRuntime.create(4);
    }

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    /** The rates table, in two batches: (a, 42.5), (b, 7.0) | (c, 99.0), (d, 7.0); counts how often it is opened. */
    private Pipeline pipeline() {
        return Pipeline.from(SCHEMA)
                .table("rates", RATES, executor -> {
                    opened.incrementAndGet();
                    return BatchStreams.generate(
                            RATES,
                            2,
                            i -> {
                                ratesBatches.incrementAndGet();
                                return rates(2 * i, 2);
                            },
                            executor);
                })
                .placement(Placement.CPU);
    }

    private VectorSchemaRoot rates(int first, int rows) {
        VectorSchemaRoot b = VectorSchemaRoot.create(RATES, allocator);
        VarCharVector k = (VarCharVector) b.getVector(0);
        Float8Vector r = (Float8Vector) b.getVector(1);
        k.allocateNew(rows);
        r.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            k.setSafe(i, KEYS[first + i].getBytes(StandardCharsets.UTF_8));
            r.set(i, RATE[first + i]);
        }
        b.setRowCount(rows);
        return b;
    }

    /** Runs a one-partition query over 3 batches of 100 rows; the failure or the rows (id, y). */
    private List<Object[]> run(PipelinePlan plan, String y) throws Exception {
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 3, 100, runtime.executor()));
        try {
            List<Object[]> rows = new ArrayList<>();
            await(
                    BatchStreams.forEach(q.stream(), b -> {
                        List<Long> ids = longs(b, "id");
                        List<?> ys = y.equals("n") ? booleans(b, y) : doubles(b, y);
                        for (int r = 0; r < b.getRowCount(); r++) {
                            rows.add(new Object[] {ids.get(r), ys.get(r)});
                        }
                    }),
                    "the query");
            return rows;
        } finally {
            q.close();
            assertZeroLeftAfter(allocator, q.whenReleased());
        }
    }

    private static List<Boolean> booleans(VectorSchemaRoot b, String name) {
        BitVector v = (BitVector) b.getVector(name);
        List<Boolean> out = new ArrayList<>();
        for (int r = 0; r < b.getRowCount(); r++) {
            out.add(v.isNull(r) ? null : v.get(r) == 1);
        }
        return out;
    }

    /** The text a subquery is known by (subqueryValues, explain): the parser's own spelling. */
    private static String text(String sql) {
        return Expr.parse(sql).toString();
    }

    @Test
    void computedOnceForFourPartitionsDrainedConcurrently() throws Exception {
        String sub = "(SELECT r FROM rates WHERE k = 'a')";
        PipelinePlan plan = pipeline().filter("x > " + sub).project("id", "x").plan(quiver);
        List<BatchStream> parts = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            int part = p;
            // Partition p: rows [p * 1000, p * 1000 + 1000) in 4 batches of 250.
            parts.add(BatchStreams.generate(
                    SCHEMA, 4, i -> ProbeFixtures.batch(allocator, part * 1000L + i * 250L, 250), runtime.executor()));
        }
        QueryExecution q = plan.execute(runtime, parts, allocator);
        ExecutorService consumers = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Long>>> results = new ArrayList<>();
            for (BatchStream s : q.streams()) {
                results.add(consumers.submit(() -> {
                    start.await();
                    List<Long> ids = new ArrayList<>();
                    BatchStreams.drain(s, b -> ids.addAll(longs(b, "id")));
                    return ids;
                }));
            }
            start.countDown();
            for (int p = 0; p < 4; p++) {
                List<Long> expected = new ArrayList<>();
                for (long r = p * 1000L; r < p * 1000L + 1000; r++) {
                    Double x = ProbeFixtures.x(r);
                    if (x != null && x > 42.5) {
                        expected.add(r);
                    }
                }
                assertEquals(expected, results.get(p).get(ProbeFixtures.WAIT_S, TimeUnit.SECONDS), "partition " + p);
            }
            assertEquals(1, opened.get(), "the rates table was opened " + opened.get() + " times");
            assertEquals(Map.of(text(sub), new ScalarValue(DataType.FLOAT64, 42.5)), q.subqueryValues());
            String explain = q.explain(true);
            assertContains(
                    explain,
                    "Scalar subqueries (computed once per query)",
                    text(sub) + " : Float64 = 42.5 (1 row,",
                    "(4 partitions)");
            assertEquals(2, ratesBatches.get(), "rates batches read (both: a second row would be an error)");
        } finally {
            consumers.shutdownNow();
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void eachExecutionComputesItsOwnValue() throws Exception {
        PipelinePlan plan = pipeline()
                .filter("x > (SELECT r FROM rates WHERE k = 'c') - 1")
                .project("id", "x AS y")
                .plan(quiver);
        List<Long> expected = new ArrayList<>();
        for (long r = 0; r < 300; r++) {
            Double x = ProbeFixtures.x(r);
            if (x != null && x > 98) {
                expected.add(r);
            }
        }
        assertEquals(List.of(99L, 299L), expected, "199 % 7 == 3: x is null there");
        for (int run = 1; run <= 2; run++) {
            List<Object[]> rows = run(plan, "y");
            assertEquals(expected, rows.stream().map(r -> r[0]).toList());
            assertEquals(run, opened.get(), "each execution opens the table once");
        }
    }

    @Test
    void noRowIsATypedNull() throws Exception {
        String none = "(SELECT r FROM rates WHERE k = 'zzz')";
        assertTrue(
                run(pipeline().filter("x > " + none).project("id", "x AS y").plan(quiver), "y")
                        .isEmpty(),
                "a comparison with NULL let rows through");
        assertTrue(
                run(
                                pipeline()
                                        .filter("NOT (x > " + none + ")")
                                        .project("id", "x AS y")
                                        .plan(quiver),
                                "y")
                        .isEmpty(),
                "NOT of a NULL comparison let rows through");
        List<Object[]> isNull =
                run(pipeline().project("id", none + " IS NULL AS n").plan(quiver), "n");
        assertEquals(300, isNull.size());
        assertTrue(isNull.stream().allMatch(r -> Boolean.TRUE.equals(r[1])), "IS NULL of an empty subquery");
        List<Object[]> cased = run(
                pipeline()
                        .project("id", "CASE WHEN " + none + " IS NULL THEN -1.0 ELSE " + none + " END AS y")
                        .plan(quiver),
                "y");
        assertTrue(cased.stream().allMatch(r -> Double.valueOf(-1.0).equals(r[1])));
        List<Object[]> plus =
                run(pipeline().project("id", "x + " + none + " AS y").plan(quiver), "y");
        assertTrue(plus.stream().allMatch(r -> r[1] == null), "x + NULL");

        QueryExecution q = pipeline()
                .project("id", none + " AS y")
                .plan(quiver)
                .execute(runtime, ProbeFixtures.source(allocator, 1, 10, runtime.executor()));
        try {
            List<Double> ys = new ArrayList<>();
            await(BatchStreams.forEach(q.stream(), b -> ys.addAll(doubles(b, "y"))), "the query");
            assertEquals(10, ys.size());
            assertTrue(ys.stream().allMatch(v -> v == null));
            assertEquals(Map.of(text(none), ScalarValue.nullOf(DataType.FLOAT64)), q.subqueryValues());
            assertEquals(
                    new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
                    q.schema().findField("y").getType());
            assertContains(q.explain(true), text(none) + " : Float64 = NULL::DOUBLE (0 rows,");
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void moreThanOneRowFailsTheQuery() throws Exception {
        String two = "(SELECT r FROM rates WHERE r < 10)"; // b and d, in different batches
        for (String sub : List.of(two, "(SELECT r FROM rates)")) {
            QueryExecution q = pipeline()
                    .filter("x > " + sub)
                    .project("id")
                    .plan(quiver)
                    .execute(runtime, ProbeFixtures.source(allocator, 1, 10, runtime.executor()));
            try {
                Throwable t = failure(q.stream().next(), sub);
                assertInstanceOf(IllegalStateException.class, t);
                assertContains(t.getMessage(), "the scalar subquery " + text(sub) + " returned more than one row");
                assertTrue(q.subqueryValues().isEmpty());
            } finally {
                q.close();
            }
            assertZeroLeftAfter(allocator, q.whenReleased());
        }
    }

    @Test
    void limitOneMakesSeveralRowsLegal() throws Exception {
        List<Object[]> rows = run(
                pipeline()
                        .project("id", "(SELECT r FROM rates WHERE k <> 'a' LIMIT 1) AS y")
                        .plan(quiver),
                "y");
        assertEquals(300, rows.size());
        assertTrue(
                rows.stream().allMatch(r -> Double.valueOf(7.0).equals(r[1])), "the first row of b, c, d is b's 7.0");
        assertEquals(1, opened.get());
        List<Object[]> zero = run(
                pipeline().project("id", "(SELECT r FROM rates LIMIT 0) AS y").plan(quiver), "y");
        assertTrue(zero.stream().allMatch(r -> r[1] == null), "LIMIT 0: no row, NULL");
    }

    @Test
    void anUnknownTableIsAPlanningErrorListingTheTables() {
        PlanningException e = assertThrows(
                PlanningException.class,
                () -> pipeline()
                        .filter("x > (SELECT r FROM ratez WHERE k = 'a')")
                        .plan(quiver));
        assertContains(e.getMessage(), "'ratez'", "rates");
        PlanningException none = assertThrows(
                PlanningException.class,
                () -> Pipeline.from(SCHEMA)
                        .project("(SELECT r FROM rates) AS y")
                        .plan(quiver));
        assertContains(none.getMessage(), "'rates'", "Pipeline.table");
        assertEquals(0, opened.get());
    }

    @Test
    void anUnknownColumnOfTheTableIsAPlanningError() {
        PlanningException e = assertThrows(
                PlanningException.class,
                () -> pipeline()
                        .filter("x > (SELECT rate FROM rates WHERE k = 'a')")
                        .plan(quiver));
        assertContains(
                e.getMessage(),
                "in the scalar subquery " + text("(SELECT rate FROM rates WHERE k = 'a')"),
                "no column 'rate'");
    }

    @Test
    void aCorrelatedReferenceIsAPlanningErrorSayingSo() {
        for (String sub : List.of("(SELECT r FROM rates WHERE r < x)", "(SELECT r + id FROM rates WHERE k = 'a')")) {
            PlanningException e = assertThrows(
                    PlanningException.class,
                    () -> pipeline().filter("x > " + sub).plan(quiver),
                    sub);
            assertContains(e.getMessage(), "correlated subqueries are not supported", text(sub));
        }
        assertEquals(0, opened.get());
    }

    @Test
    void anAsyncCallInsideTheSubqueryIsLifted() throws Exception {
        Probe f = new Probe("times_ten", 0, 4).answering(v -> v * 10);
        quiver.functions().register(f);
        String sub = "(SELECT times_ten(r) FROM rates WHERE k = 'b')";
        PipelinePlan plan =
                pipeline().filter("x * 2 < " + sub).project("id", "x AS y").plan(quiver);
        assertContains(plan.explain(), "AsyncFunction", "times_ten(r)");
        QueryExecution q = plan.execute(runtime, ProbeFixtures.source(allocator, 3, 100, runtime.executor()));
        try {
            List<Long> ids = new ArrayList<>();
            await(BatchStreams.forEach(q.stream(), b -> ids.addAll(longs(b, "id"))), "the query");
            List<Long> expected = new ArrayList<>();
            for (long r = 0; r < 300; r++) {
                Double x = ProbeFixtures.x(r);
                if (x != null && x * 2 < 70) {
                    expected.add(r);
                }
            }
            assertEquals(expected, ids);
            assertEquals(Map.of(text(sub), new ScalarValue(DataType.FLOAT64, 70.0)), q.subqueryValues());
            assertEquals(1, f.calls.size(), "one call, for b's row only");
            assertEquals(1, f.totalRows());
            assertEquals(List.of(7.0), f.calls.getFirst().values);
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void aFailingSubqueryFailsTheQueryAndFreesEverything() throws Exception {
        Probe f = new Probe("times_ten", 0, 4);
        f.respond = c -> {
            c.fail(new IOException("rates service down"));
            return c.future;
        };
        quiver.functions().register(f);
        QueryExecution q = pipeline()
                .filter("x < (SELECT times_ten(r) FROM rates WHERE k = 'b')")
                .project("id")
                .plan(quiver)
                .execute(runtime, ProbeFixtures.source(allocator, 2, 100, runtime.executor()));
        try {
            AsyncFunctionException e = causeOf(failure(q.stream().next(), "the query"), AsyncFunctionException.class);
            assertContains(e.getMessage(), "'times_ten'", "[0, 1)", "rates service down");
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void cancellingBeforeTheSubqueryEndsCancelsIt() throws Exception {
        Probe f = new Probe("times_ten", 0, 4); // holds its call: the subquery never ends on its own
        quiver.functions().register(f);
        QueryExecution q = pipeline()
                .filter("x < (SELECT times_ten(r) FROM rates WHERE k = 'b')")
                .project("id")
                .plan(quiver)
                .execute(runtime, ProbeFixtures.source(allocator, 2, 100, runtime.executor()));
        CompletableFuture<VectorSchemaRoot> next = q.stream().next();
        ProbeFixtures.Call c = f.takeWired();
        assertTrue(q.subqueryValues().isEmpty());
        q.close(); // cancels
        assertInstanceOf(CancellationException.class, failure(next, "the pending next()"));
        assertTrue(c.future.isCancelled(), "the subquery's pending call was not cancelled");
        assertZeroLeftAfter(allocator, q.whenReleased());
        assertEquals(1, opened.get());
    }

    @Test
    void closingOrExplainingAfterAFailedSubqueryDoesNotThrow() throws Exception {
        String two = "(SELECT r FROM rates WHERE r < 10)";
        QueryExecution q = pipeline()
                .filter("x > " + two)
                .project("id")
                .plan(quiver)
                .execute(runtime, ProbeFixtures.source(allocator, 1, 10, runtime.executor()));
        try {
            assertContains(failure(q.stream().next(), two).getMessage(), "more than one row");
            assertAll(
                    () -> assertContains(
                            assertDoesNotThrow(() -> q.explain(true), "explain(true)"),
                            text(two) + " : Float64 failed"),
                    () -> assertEquals(List.of(), assertDoesNotThrow(q::asyncMetrics, "asyncMetrics()")),
                    () -> assertDoesNotThrow(q::cancel, "cancel()"),
                    () -> assertDoesNotThrow(q::close, "close()"));
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }

    @Test
    void cancellingWhileTheSubqueryRunsDoesNotThrow() throws Exception {
        Probe f = new Probe("times_ten", 0, 4); // holds its call
        quiver.functions().register(f);
        QueryExecution q = pipeline()
                .filter("x < (SELECT times_ten(r) FROM rates WHERE k = 'b')")
                .project("id")
                .plan(quiver)
                .execute(runtime, ProbeFixtures.source(allocator, 2, 100, runtime.executor()));
        try {
            f.takeWired();
            assertAll(
                    () -> assertDoesNotThrow(q::cancel, "cancel()"),
                    () -> assertDoesNotThrow(() -> q.explain(true), "explain(true)"),
                    () -> assertDoesNotThrow(q::asyncMetrics, "asyncMetrics()"),
                    () -> assertDoesNotThrow(q::close, "close()"));
        } finally {
            q.close();
        }
        assertZeroLeftAfter(allocator, q.whenReleased());
    }
}
