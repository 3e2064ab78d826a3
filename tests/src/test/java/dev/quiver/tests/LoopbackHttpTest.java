package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.cli.HttpScoreFunction;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.stream.AsyncCallMetrics;
import dev.quiver.stream.AsyncFunctionException;
import dev.quiver.stream.AsyncOptions;
import dev.quiver.stream.BatchStream;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.types.DataType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Async functions against a real HTTP service on the loopback interface ({@link LoopbackScoreService}). */
class LoopbackHttpTest extends QuiverTestBase {
    private static final Duration GUARD = Duration.ofSeconds(10);
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("text", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    /** The repeated unit of each row's text, and its length in code points (two-, three- and four-byte UTF-8 included). */
    private static final String[] UNITS = {"a", "é", "日本", "😀", "ß"};

    private static final int[] UNIT_CODE_POINTS = {1, 1, 2, 1, 1};

    /** Row r's text: null when r % 13 == 7, else UNITS[r % 5] repeated r % 9 times (the empty string included). */
    static String text(long r) {
        return r % 13 == 7 ? null : UNITS[(int) (r % 5)].repeat((int) (r % 9));
    }

    /** Row r's score, from how its text was made (not from the text). */
    static Double expectedScore(long r) {
        return r % 13 == 7 ? null : (double) (r % 9) * UNIT_CODE_POINTS[(int) (r % 5)];
    }

    static VectorSchemaRoot batch(BufferAllocator allocator, long first, int rows) {
        VectorSchemaRoot b = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) b.getVector(0);
        VarCharVector text = (VarCharVector) b.getVector(1);
        id.allocateNew(rows);
        text.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            long r = first + i;
            id.set(i, r);
            String t = text(r);
            if (t == null) {
                text.setNull(i);
            } else {
                text.setSafe(i, t.getBytes(StandardCharsets.UTF_8));
            }
        }
        b.setRowCount(rows);
        return b;
    }

    /** Rows [0, rows) in source batches of 3000 (the last one shorter). */
    private BatchStream source(QueryRuntime runtime, int rows) {
        int per = 3000;
        return BatchStreams.generate(
                SCHEMA,
                (rows + per - 1) / per,
                i -> batch(allocator, (long) i * per, Math.min(per, rows - i * per)),
                runtime.executor());
    }

    record Row(long id, Double s) {}

    /** Adds each row's id and column {@code s} to {@code into}. */
    private static void collect(VectorSchemaRoot b, List<Row> into) {
        BigIntVector id = (BigIntVector) b.getVector("id");
        Float8Vector s = (Float8Vector) b.getVector("s");
        for (int r = 0; r < b.getRowCount(); r++) {
            into.add(new Row(id.get(r), s.isNull(r) ? null : s.get(r)));
        }
    }

    private static void assertScores(List<Row> rows, int count) {
        assertEquals(count, rows.size());
        for (int i = 0; i < count; i++) {
            assertEquals(new Row(i, expectedScore(i)), rows.get(i), "row " + i);
        }
    }

    private PipelinePlan scorePlan() {
        return scorePlan(AsyncOptions.defaults());
    }

    private PipelinePlan scorePlan(AsyncOptions options) {
        return Pipeline.from(SCHEMA)
                .project("id", "score(text) AS s")
                .options(options)
                .plan(quiver);
    }

    /**
     * Runs score(text) over 100,000 rows with calls of 1000 rows, the input coalesced to batches of
     * {@code batchSize}; returns EXPLAIN ANALYZE.
     */
    private String hundredThousandRows(LoopbackScoreService service, int batchSize) throws Exception {
        quiver.functions().register(new HttpScoreFunction(HttpClient.newHttpClient(), service.endpoint(), 1000, 4));
        try (QueryRuntime runtime = QueryRuntime.create(4);
                QueryExecution q = scorePlan(AsyncOptions.defaults().withBatchSize(batchSize))
                        .execute(runtime, source(runtime, 100_000))) {
            List<Row> rows = new ArrayList<>();
            BatchStreams.drain(q.stream(), b -> collect(b, rows));
            q.whenReleased().get(10, TimeUnit.SECONDS);
            assertScores(rows, 100_000);
            return q.explain(true);
        }
    }

    @Test
    void hundredThousandRowsMakeOneRequestPerThousandRowsWithEveryValueInOrder() throws Exception {
        try (var service = new LoopbackScoreService()) {
            String explain = hundredThousandRows(service, 8000);
            assertEquals(100_000, service.strings(), explain);
            assertEquals(100, service.requests(), explain);
        }
    }

    @Test
    void theDefaultBatchSizeAlsoMakesOneRequestPerThousandRows() throws Exception {
        try (var service = new LoopbackScoreService()) {
            String explain = hundredThousandRows(service, AsyncOptions.DEFAULT_BATCH_SIZE);
            assertEquals(100_000, service.strings(), explain);
            assertEquals(100, service.requests(), explain);
        }
    }

    @Test
    void explainAnalyzeCountsTheCallsAndTheRowsSent() throws Exception {
        try (var service = new LoopbackScoreService()) {
            String explain = hundredThousandRows(service, 8000);
            assertTrue(explain.contains("calls=100,"), explain);
            assertTrue(explain.contains("rows sent=100000,"), explain);
            assertTrue(explain.contains("score(text)"), explain);
        }
    }

    @Test
    void theCheapConjunctRunsFirstSoOnlyItsRowsReachTheService() throws Exception {
        try (var service = new LoopbackScoreService();
                QueryRuntime runtime = QueryRuntime.create(2)) {
            quiver.functions().register(new HttpScoreFunction(HttpClient.newHttpClient(), service.endpoint(), 1000, 4));
            PipelinePlan plan = Pipeline.from(SCHEMA)
                    .filter("id % 4 = 0 AND score(text) > 3")
                    .project("id", "text")
                    .plan(quiver);
            List<Long> ids = new ArrayList<>();
            List<String> texts = new ArrayList<>();
            try (QueryExecution q = plan.execute(runtime, source(runtime, 20_000))) {
                BatchStreams.drain(q.stream(), b -> {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    VarCharVector text = (VarCharVector) b.getVector("text");
                    for (int r = 0; r < b.getRowCount(); r++) {
                        ids.add(id.get(r));
                        texts.add(new String(text.get(r), StandardCharsets.UTF_8));
                    }
                });
                q.whenReleased().get(10, TimeUnit.SECONDS);
            }
            List<Long> expected = new ArrayList<>();
            for (long r = 0; r < 20_000; r++) {
                if (r % 4 == 0 && expectedScore(r) != null && expectedScore(r) > 3) {
                    expected.add(r);
                }
            }
            assertEquals(expected, ids);
            assertEquals(expected.stream().map(LoopbackHttpTest::text).toList(), texts);
            assertEquals(5000, service.strings(), "only the rows with id % 4 = 0 (null texts included) are sent");
        }
    }

    @Test
    void aScalarArgumentIsSentForEveryRow() throws Exception {
        try (var service = new LoopbackScoreService();
                QueryRuntime runtime = QueryRuntime.create(2)) {
            quiver.functions().register(new HttpScoreFunction(HttpClient.newHttpClient(), service.endpoint(), 1000, 4));
            PipelinePlan plan =
                    Pipeline.from(SCHEMA).project("id", "score('日本語😀') AS s").plan(quiver);
            List<Row> rows = new ArrayList<>();
            try (QueryExecution q = plan.execute(runtime, source(runtime, 2500))) {
                BatchStreams.drain(q.stream(), b -> collect(b, rows));
                q.whenReleased().get(10, TimeUnit.SECONDS);
            }
            assertEquals(2500, rows.size());
            assertTrue(
                    rows.stream().allMatch(r -> Objects.equals(r.s(), 4.0)),
                    rows.getFirst().toString());
            assertEquals(2500, service.strings());
            assertEquals(3, service.requests());
        }
    }

    @Test
    void theServiceNeverSeesMoreThanTheFunctionsConcurrencyLimit() throws Exception {
        try (var service = new LoopbackScoreService().delay(5).hold();
                QueryRuntime runtime = QueryRuntime.create(2)) {
            quiver.functions().register(new HttpScoreFunction(HttpClient.newHttpClient(), service.endpoint(), 100, 3));
            List<Row> rows = new ArrayList<>();
            try (QueryExecution q = scorePlan().execute(runtime, source(runtime, 2000))) {
                CompletableFuture<Long> done = BatchStreams.forEach(q.stream(), b -> collect(b, rows));
                // The first answers are held until three requests are in hand at once: concurrency, proven.
                assertTrue(
                        service.awaitActive(3, GUARD),
                        "the service never had 3 requests at once; it had " + service.active());
                service.release();
                assertEquals(2000, done.get(10, TimeUnit.SECONDS));
                q.whenReleased().get(10, TimeUnit.SECONDS);
                AsyncCallMetrics m = q.asyncMetrics().getFirst();
                assertEquals(3, service.peakActive(), "the most requests the service handled at once");
                assertEquals(3, m.peakInFlight(), "the pipeline's own count agrees");
                assertEquals(20, m.calls());
            }
            assertScores(rows, 2000);
            assertEquals(20, service.requests());
        }
    }

    @Test
    void aHeldRequestDoesNotStallACpuQueryOnTheSameOneWorkerRuntime() throws Exception {
        try (var service = new LoopbackScoreService()) {
            neverBlocks(service, new HttpScoreFunction(HttpClient.newHttpClient(), service.endpoint(), 1000, 2));
        }
    }

    @Test
    void aBlockingClientOnVirtualThreadsDoesNotStallACpuQueryEither() throws Exception {
        try (var service = new LoopbackScoreService();
                HttpClient http = HttpClient.newHttpClient()) {
            URI endpoint = service.endpoint();
            AsyncScalarFunction blocking = AsyncScalarFunction.onVirtualThreads(
                    "score",
                    Signature.exact(List.of(DataType.UTF8), Volatility.STABLE),
                    types -> DataType.FLOAT64,
                    1000,
                    2,
                    args -> {
                        HttpRequest request = HttpRequest.newBuilder(endpoint)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(HttpScoreFunction.requestBody(args)))
                                .build();
                        HttpResponse<byte[]> response =
                                http.send(request, HttpResponse.BodyHandlers.ofByteArray()); // blocks
                        return HttpScoreFunction.scores(args, response.statusCode(), response.body());
                    });
            neverBlocks(service, blocking);
        }
    }

    /**
     * On a runtime of one worker, a query whose requests the service holds leaves that worker
     * free: a CPU-only query on the same runtime runs to its end meanwhile.
     */
    private void neverBlocks(LoopbackScoreService service, AsyncScalarFunction score) throws Exception {
        service.hold();
        quiver.functions().register(score);
        try (QueryRuntime runtime = QueryRuntime.create(1)) {
            List<Row> slowRows = new ArrayList<>();
            try (QueryExecution slow = scorePlan().execute(runtime, source(runtime, 5000))) {
                CompletableFuture<Long> slowDone = BatchStreams.forEach(slow.stream(), b -> collect(b, slowRows));
                assertTrue(service.awaitRequests(1, GUARD), "no request reached the service");

                PipelinePlan cpu = Pipeline.from(AsyncFixtures.SCHEMA)
                        .project("id", "x * 2 AS y")
                        .plan(quiver);
                List<Double> ys = new ArrayList<>();
                try (QueryExecution q = cpu.execute(
                        runtime,
                        BatchStreams.generate(
                                AsyncFixtures.SCHEMA,
                                5,
                                i -> AsyncFixtures.batch(allocator, i * 1000L, 1000),
                                runtime.executor()))) {
                    CompletableFuture<Long> cpuDone = BatchStreams.forEach(q.stream(), b -> {
                        Float8Vector y = (Float8Vector) b.getVector("y");
                        for (int r = 0; r < b.getRowCount(); r++) {
                            ys.add(y.isNull(r) ? null : y.get(r));
                        }
                    });
                    assertEquals(
                            5000,
                            cpuDone.get(GUARD.toSeconds(), TimeUnit.SECONDS),
                            "the CPU query finished while the call was held");
                }
                for (int r = 0; r < 5000; r++) {
                    Double x = AsyncFixtures.x(r);
                    assertEquals(x == null ? null : x * 2, ys.get(r), "row " + r);
                }
                assertFalse(slowDone.isDone(), "the slow query waits for its held request");
                assertTrue(service.active() >= 1, "the request is still held");

                service.release();
                assertEquals(5000, slowDone.get(GUARD.toSeconds(), TimeUnit.SECONDS));
                slow.whenReleased().get(GUARD.toSeconds(), TimeUnit.SECONDS);
            }
            assertScores(slowRows, 5000);
            assertEquals(5, service.requests());
        }
    }

    /**
     * Runs score(text) over {@code rows} rows, one call of 1000 rows at a time (so request n covers rows
     * [1000(n-1), 1000n)); returns the failure. The tests fail the last request, so that no other call
     * is waiting for a permit when it fails: see AsyncFailureRaceTest for what happens then.
     */
    private AsyncFunctionException failingRun(LoopbackScoreService service, int rows) throws Exception {
        quiver.functions().register(new HttpScoreFunction(HttpClient.newHttpClient(), service.endpoint(), 1000, 1));
        try (QueryRuntime runtime = QueryRuntime.create(2)) {
            QueryExecution q = scorePlan().execute(runtime, source(runtime, rows));
            AsyncFunctionException e;
            try (q) {
                e = assertThrows(AsyncFunctionException.class, () -> BatchStreams.drain(q.stream(), b -> {}));
            }
            q.whenReleased().get(10, TimeUnit.SECONDS);
            assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
            return e;
        }
    }

    @Test
    void anHttp500FailsTheQueryNamingTheFunctionAndRowsAndLeaksNothing() throws Exception {
        try (var service = new LoopbackScoreService().fail(3)) {
            AsyncFunctionException e = failingRun(service, 3000);
            assertEquals("score", e.function());
            assertEquals(2000, e.firstRow());
            assertEquals(3000, e.endRow());
            assertTrue(e.getMessage().contains("'score'"), e.getMessage());
            assertTrue(e.getMessage().contains("[2000, 3000)"), e.getMessage());
            assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
            assertInstanceOf(IOException.class, e.getCause());
            assertEquals(3, service.requests());
        }
    }

    @Test
    void anAnswerWithTooFewValuesFailsClearly() throws Exception {
        try (var service = new LoopbackScoreService().answer(2, 200, "[1.0, null]")) {
            AsyncFunctionException e = failingRun(service, 2000);
            assertTrue(e.getMessage().contains("[1000, 2000)"), e.getMessage());
            assertTrue(e.getMessage().contains("score service answered 2 scores for 1000 texts"), e.getMessage());
        }
    }

    @Test
    void anAnswerThatIsNotJsonFailsTheQuery() throws Exception {
        try (var service = new LoopbackScoreService().answer(1, 200, "[1.0, oops")) {
            AsyncFunctionException e = failingRun(service, 1000);
            assertTrue(e.getMessage().contains("[0, 1000)"), e.getMessage());
            assertInstanceOf(IOException.class, e.getCause(), e.getMessage());
        }
    }
}
