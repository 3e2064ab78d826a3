package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Placement;
import dev.quiver.stream.AsyncOptions;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Async functions in pipelines: lifting, batching, order, concurrency. */
class AsyncPipelineTest extends QuiverTestBase {
    private QueryRuntime runtime;

    @BeforeEach
    void openRuntime() {
        runtime = QueryRuntime.create(2);
    }

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private List<long[]> run(PipelinePlan plan, int batches, int rowsPerBatch) throws Exception {
        List<long[]> rows = new ArrayList<>();
        try (QueryExecution q = plan.execute(
                runtime,
                BatchStreams.generate(
                        AsyncFixtures.SCHEMA,
                        batches,
                        i -> AsyncFixtures.batch(allocator, (long) i * rowsPerBatch, rowsPerBatch),
                        runtime.executor()))) {
            BatchStreams.drain(q.stream(), b -> {
                BigIntVector id = (BigIntVector) b.getVector(0);
                Float8Vector y = (Float8Vector) b.getVector(1);
                for (int r = 0; r < b.getRowCount(); r++) {
                    rows.add(new long[] {id.get(r), y.isNull(r) ? Long.MIN_VALUE : (long) y.get(r)});
                }
            });
            q.whenReleased().get(10, TimeUnit.SECONDS);
        }
        return rows;
    }

    @ParameterizedTest(name = "batch {0}, chunk {1}")
    @CsvSource({"8192, 100", "1000, 1000", "1000, 333", "777, 0", "64, 7"})
    void projectsInRowOrderForChunkSizesThatDoAndDoNotDivideTheBatch(int batchSize, int chunk) throws Exception {
        AsyncFixtures.Remote f = new AsyncFixtures.Remote("times_ten", chunk, 3, 1, v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(AsyncFixtures.SCHEMA)
                .project("id", "times_ten(x) + 1 AS y")
                .options(AsyncOptions.defaults().withBatchSize(batchSize))
                .placement(Placement.CPU)
                .plan(quiver);
        List<long[]> rows = run(plan, 10, 999);
        assertEquals(9990, rows.size());
        for (int i = 0; i < rows.size(); i++) {
            assertEquals(i, rows.get(i)[0], "row order");
            Double x = AsyncFixtures.x(i);
            assertEquals(x == null ? Long.MIN_VALUE : (long) (x * 10 + 1), rows.get(i)[1], "row " + i);
        }
        int size = chunk == 0 ? batchSize : Math.min(chunk, batchSize);
        // Every call but the last of each coalesced batch has the chunk size.
        assertTrue(f.callRows.stream().allMatch(n -> n <= size), f.callRows.toString());
        assertEquals(9990, f.callRows.stream().mapToInt(Integer::intValue).sum());
        assertTrue(f.peak.get() <= 3, "at most 3 calls in flight, saw " + f.peak.get());
    }

    @Test
    void cheapConjunctsRunBeforeTheRemoteCall() throws Exception {
        AsyncFixtures.Remote f = new AsyncFixtures.Remote("times_ten", 100, 4, 1, v -> v * 10);
        quiver.functions().register(f);
        PipelinePlan plan = Pipeline.from(AsyncFixtures.SCHEMA)
                .filter("times_ten(x) > 500 AND id % 10 = 0")
                .project("id", "x AS y")
                .plan(quiver);
        String explain = plan.explain();
        List<long[]> rows = run(plan, 10, 1000);
        List<Long> expected = new ArrayList<>();
        for (long r = 0; r < 10000; r++) {
            Double x = AsyncFixtures.x(r);
            if (r % 10 == 0 && x != null && x * 10 > 500) {
                expected.add(r);
            }
        }
        assertEquals(expected, rows.stream().map(a -> a[0]).toList(), explain);
        assertEquals(
                1000,
                f.callRows.stream().mapToInt(Integer::intValue).sum(),
                "only the rows with id % 10 = 0 reach the remote call");
    }
}
