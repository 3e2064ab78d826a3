package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.cli.HttpScoreFunction;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.types.DataType;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** The README's async example ({@link HttpScoreFunction} and its pipeline), as written there, against a loopback service. */
class AsyncReadmeExampleTest extends QuiverTestBase {
    private static final String[] LANGS = {"en", "de", "en", "fr"};
    private static final String[] REVIEWS = {"great", "très bien", "so-so 😐", "", "最高", "meh"};

    private static String review(long id) {
        return id % 11 == 4 ? null : REVIEWS[(int) (id % REVIEWS.length)];
    }

    @Test
    void theReadmeAsyncExampleRunsAsWritten() throws Exception {
        Schema schema = new Schema(List.of(
                DataType.INT64.toField("id", true),
                DataType.UTF8.toField("lang", true),
                DataType.UTF8.toField("review", true)));
        List<VectorSchemaRoot> batches = List.of(batch(schema, 0, 3000), batch(schema, 3000, 2500));
        List<Long> ids = new ArrayList<>();
        List<Double> scores = new ArrayList<>();
        Consumer<VectorSchemaRoot> sink = batch -> {
            BigIntVector id = (BigIntVector) batch.getVector("id");
            Float8Vector score = (Float8Vector) batch.getVector("score");
            for (int r = 0; r < batch.getRowCount(); r++) {
                ids.add(id.get(r));
                scores.add(score.isNull(r) ? null : score.get(r));
            }
        };
        String explain;
        try (var service = new LoopbackScoreService()) {
            URI endpoint = service.endpoint(); // the README: URI.create("http://scores.internal/score")
            // --- as in README.md ---
            quiver.functions().register(new HttpScoreFunction(HttpClient.newHttpClient(), endpoint, 1000, 4));
            PipelinePlan plan = Pipeline.from(schema)
                    .filter("lang = 'en'") // runs first: only English reviews are sent
                    .project("id", "score(review) AS score")
                    .plan(quiver);
            try (var runtime = QueryRuntime.create();
                    QueryExecution q = plan.execute(
                            runtime, BatchStreams.fromIterator(schema, batches.iterator(), runtime.executor()))) {
                BatchStreams.drain(q.stream(), sink); // blocks this thread only; the calls wait on no thread
                explain = q.explain(true); // calls, rows sent, time waiting, peak in flight
            }
            // ---
            assertEquals(2750, service.strings(), "the English rows only");
            assertEquals(3, service.requests(), explain);
        }
        List<Long> expectedIds = new ArrayList<>();
        List<Double> expectedScores = new ArrayList<>();
        for (long id = 0; id < 5500; id++) {
            if (LANGS[(int) (id % LANGS.length)].equals("en")) {
                expectedIds.add(id);
                String r = review(id);
                expectedScores.add(r == null ? null : (double) r.codePointCount(0, r.length()));
            }
        }
        assertEquals(expectedIds, ids);
        assertEquals(expectedScores, scores);
        assertTrue(
                explain.contains("score(review) AS __quiver_async_0 (1000 rows per call, at most 4 in flight)"),
                explain);
        assertTrue(explain.contains("calls=3, rows sent=2750,"), explain);
    }

    private VectorSchemaRoot batch(Schema schema, long first, int rows) {
        VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
        BigIntVector id = (BigIntVector) b.getVector("id");
        VarCharVector lang = (VarCharVector) b.getVector("lang");
        VarCharVector review = (VarCharVector) b.getVector("review");
        id.allocateNew(rows);
        lang.allocateNew(rows);
        review.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            long r = first + i;
            id.set(i, r);
            lang.setSafe(i, LANGS[(int) (r % LANGS.length)].getBytes(StandardCharsets.UTF_8));
            String text = review(r);
            if (text == null) {
                review.setNull(i);
            } else {
                review.setSafe(i, text.getBytes(StandardCharsets.UTF_8));
            }
        }
        b.setRowCount(rows);
        return b;
    }
}
