package dev.quiver.stream;

import static dev.quiver.stream.TestRows.SCHEMA;
import static dev.quiver.stream.TestRows.batch;
import static dev.quiver.stream.TestRows.random;
import static dev.quiver.stream.TestRows.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.errors.KernelArithmeticException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pipeline's filter, projection and limit against plain-Java reference rows ({@link TestRows}):
 * the filter hands the projection right above it its selection, the limit cuts it before anything
 * is compacted, so each value moves at most once (counted with an allocation listener on the
 * pipeline's allocator); a column projected as it is shares the source's buffers; rows the filter
 * or the limit removes raise nothing; failures and cancellation leave nothing allocated. Random
 * rows are seeded; replay with {@code -Dquiver.seed=<seed>} (printed).
 */
class FilterProjectLimitTest {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20260426L);

    private RootAllocator root;
    private BufferAllocator source;
    private BufferAllocator results;
    private final AtomicLong allocated = new AtomicLong();
    private Quiver quiver;
    private QueryRuntime runtime;

    @BeforeEach
    void open() {
        System.out.println("FilterProjectLimitTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        root = new RootAllocator();
        source = root.newChildAllocator("source", 0, Long.MAX_VALUE);
        results = root.newChildAllocator(
                "pipeline",
                new AllocationListener() {
                    @Override
                    public void onAllocation(long size) {
                        allocated.addAndGet(size); // new memory only: a shared buffer moving in is not counted
                    }
                },
                0,
                Long.MAX_VALUE);
        quiver = Quiver.builder().allocator(root).build();
        runtime = QueryRuntime.create(2);
    }

    @AfterEach
    void close() {
        runtime.close();
        quiver.close();
        assertEquals(0, results.getAllocatedMemory(), "the pipeline's allocator leaked");
        assertEquals(0, source.getAllocatedMemory(), "the source's batches leaked");
        results.close();
        source.close();
        root.close();
    }

    /** Runs {@code plan} over {@code batches} (made from the source allocator) and returns every output row. */
    private List<List<Object>> run(PipelinePlan plan, List<List<List<Object>>> batches) throws Exception {
        QueryExecution q = plan.execute(
                runtime,
                List.of(BatchStreams.generate(
                        SCHEMA, batches.size(), i -> batch(source, batches.get(i)), runtime.executor())),
                results);
        List<List<Object>> out = new ArrayList<>();
        try {
            BatchStreams.drain(q.stream(), b -> {
                List<List<Object>> columns = new ArrayList<>();
                for (FieldVector v : b.getFieldVectors()) {
                    assertEquals(b.getRowCount(), v.getValueCount(), v.getName());
                    columns.add(values(v));
                }
                for (int r = 0; r < b.getRowCount(); r++) {
                    List<Object> row = new ArrayList<>();
                    for (List<Object> c : columns) {
                        row.add(c.get(r));
                    }
                    out.add(row);
                }
            });
        } finally {
            q.close();
        }
        q.whenReleased().get(10, TimeUnit.SECONDS);
        return out;
    }

    private static List<List<Object>> reference(
            List<List<List<Object>>> batches,
            Predicate<List<Object>> filter,
            Function<List<Object>, List<Object>> project,
            long limit) {
        List<List<Object>> out = new ArrayList<>();
        for (List<List<Object>> b : batches) {
            for (List<Object> row : b) {
                if (out.size() < limit && filter.test(row)) {
                    out.add(project.apply(row));
                }
            }
        }
        return out;
    }

    private static boolean positiveAndTrue(List<Object> row) {
        return row.get(1) != null && (Double) row.get(1) > 0 && Boolean.TRUE.equals(row.get(3));
    }

    private static List<Object> projected(List<Object> row) {
        return Arrays.asList(
                row.get(0),
                row.get(1) == null ? null : (Double) row.get(1) * 2,
                row.get(2) == null ? null : ((String) row.get(2)).toUpperCase(Locale.ROOT));
    }

    @Test
    void filterProjectAndLimitGiveTheReferenceRows() throws Exception {
        Random random = new Random(SEED);
        List<List<List<Object>>> batches = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
            batches.add(random(random, b * 1000, b == 2 ? 0 : 1000)); // one batch is empty
        }
        for (long limit : new long[] {-1, 0, 1, 150, 1200, 2500}) {
            String what = "LIMIT " + limit + ", seed " + SEED;
            long cap = limit < 0 ? Long.MAX_VALUE : limit;
            Pipeline filterProject = Pipeline.from(SCHEMA)
                    .filter("d > 0 AND b")
                    .project("i", "d * 2 AS d2", "upper(s) AS u")
                    .placement(Placement.CPU);
            Pipeline filterOnly = Pipeline.from(SCHEMA).filter("d > 0 AND b").placement(Placement.CPU);
            Pipeline projectOnly = Pipeline.from(SCHEMA)
                    .project("i", "d * 2 AS d2", "upper(s) AS u")
                    .placement(Placement.CPU);
            Pipeline twice = Pipeline.from(SCHEMA)
                    .filter("d > 0")
                    .project("i", "d", "s", "b")
                    .filter("b")
                    .project("i", "d * 2 AS d2", "upper(s) AS u")
                    .placement(Placement.CPU);
            if (limit >= 0) {
                filterProject.limit(limit);
                filterOnly.limit(limit);
                projectOnly.limit(limit);
                twice.limit(limit);
            }
            List<List<Object>> expected =
                    reference(batches, FilterProjectLimitTest::positiveAndTrue, FilterProjectLimitTest::projected, cap);
            assertEquals(expected, run(filterProject.plan(quiver), batches), "filter, project, " + what);
            assertEquals(expected, run(twice.plan(quiver), batches), "filter, project, filter, project, " + what);
            assertEquals(
                    reference(batches, FilterProjectLimitTest::positiveAndTrue, r -> r, cap),
                    run(filterOnly.plan(quiver), batches),
                    "filter, " + what);
            assertEquals(
                    reference(batches, r -> true, FilterProjectLimitTest::projected, cap),
                    run(projectOnly.plan(quiver), batches),
                    "project, " + what);
        }
        // A limit between the filter and the projection: the filter cuts, the projection sees only those rows.
        PipelinePlan cut = Pipeline.from(SCHEMA)
                .filter("d > 0 AND b")
                .limit(300)
                .project("i", "d * 2 AS d2", "upper(s) AS u")
                .placement(Placement.CPU)
                .plan(quiver);
        assertTrue(cut.explain().contains("(at most 300 rows in all: limit above)"), cut.explain());
        assertEquals(
                reference(batches, FilterProjectLimitTest::positiveAndTrue, FilterProjectLimitTest::projected, 300),
                run(cut, batches));
    }

    // ------------------------------------------------------------------ what moves

    private static final Schema WIDE = wideSchema();

    private static Schema wideSchema() {
        List<Field> fields = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            fields.add(Field.nullable("c" + c, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)));
        }
        return new Schema(fields);
    }

    /** c0 = (r mod 10) / 10, so {@code c0 < 0.3} keeps 3 rows in 10, scattered; c_k = r + k. */
    private VectorSchemaRoot wide(int rows) {
        VectorSchemaRoot b = VectorSchemaRoot.create(WIDE, source);
        b.allocateNew();
        for (int c = 0; c < 8; c++) {
            Float8Vector v = (Float8Vector) b.getVector(c);
            for (int r = 0; r < rows; r++) {
                v.setSafe(r, c == 0 ? (r % 10) / 10.0 : r + c);
            }
        }
        b.setRowCount(rows);
        return b;
    }

    /** {@code bytes} rounded up to a power of two, as Arrow's allocator rounds a buffer below its chunk size. */
    private static long roundedUp(long bytes) {
        return Long.highestOneBit(bytes - 1) << 1;
    }

    @Test
    void eachValueMovesAtMostOnce() throws Exception {
        int rows = 50_000;
        int limit = 16_000; // 15,000 rows of the first batch, 1,000 of the second
        PipelinePlan plan = Pipeline.from(WIDE)
                .filter("c0 < 0.3")
                .project("c1", "c2 + c3 AS s")
                .limit(limit)
                .placement(Placement.CPU)
                .plan(quiver);
        assertTrue(
                plan.explain()
                        .contains(
                                "(runs with the projection above, in its time: only the columns it reads are compacted)"),
                plan.explain());
        QueryExecution q = plan.execute(
                runtime, List.of(BatchStreams.generate(WIDE, 4, i -> wide(rows), runtime.executor())), results);
        long[] seen = {0};
        try {
            BatchStreams.drain(q.stream(), b -> {
                Float8Vector c1 = (Float8Vector) b.getVector("c1");
                Float8Vector s = (Float8Vector) b.getVector("s");
                for (int j = 0; j < b.getRowCount(); j++) {
                    long k = seen[0] + j; // the k-th kept row overall: row 10 (k / 3) + k % 3 of its batch
                    double r = (k % 15_000) / 3 * 10 + k % 3;
                    assertEquals(r + 1, c1.get(j), "c1 of kept row " + k);
                    assertEquals(2 * r + 5, s.get(j), "s of kept row " + k);
                }
                seen[0] += b.getRowCount();
            });
        } finally {
            q.close();
        }
        q.whenReleased().get(10, TimeUnit.SECONDS);
        assertEquals(limit, seen[0]);
        // Moved: c1, c2, c3 of the 15,000 and then 1,000 rows wanted, once each, and s computed on them (four
        // columns), plus validity and the filter's bitmaps. Copying every kept column of both batches first
        // would take eight columns of 15,000 rows each, twice.
        long wanted = 4 * (roundedUp(15_000 * 8) + roundedUp(1_000 * 8));
        long everyColumn = 2 * 8 * roundedUp(15_000 * 8);
        assertTrue(
                allocated.get() < wanted * 5 / 4,
                allocated.get() + " bytes allocated; the wanted rows of four columns take " + wanted);
        assertTrue(allocated.get() < everyColumn / 2, allocated.get() + " bytes against " + everyColumn);
    }

    @Test
    void aColumnProjectedAsItIsSharesTheSourceBuffers() throws Exception {
        List<List<Object>> rows = random(new Random(SEED + 1), 0, 700);
        List<Long> addresses = new ArrayList<>();
        for (int limit : new int[] {-1, 100}) {
            Pipeline p = Pipeline.from(SCHEMA).project("i", "s", "d * 2 AS d2").placement(Placement.CPU);
            if (limit >= 0) {
                p.limit(limit);
            }
            addresses.clear();
            long before = allocated.get();
            QueryExecution q = p.plan(quiver)
                    .execute(
                            runtime,
                            List.of(BatchStreams.generate(
                                    SCHEMA,
                                    1,
                                    i -> {
                                        VectorSchemaRoot b = batch(source, rows);
                                        addresses.add(
                                                b.getVector("i").getDataBuffer().memoryAddress());
                                        addresses.add(
                                                b.getVector("s").getDataBuffer().memoryAddress());
                                        return b;
                                    },
                                    runtime.executor())),
                            results);
            try {
                BatchStreams.drain(q.stream(), b -> {
                    // The source's batch is closed by now: its buffers live on in this one.
                    assertEquals(
                            addresses.get(0), b.getVector("i").getDataBuffer().memoryAddress());
                    assertEquals(
                            addresses.get(1), b.getVector("s").getDataBuffer().memoryAddress());
                    int n = limit < 0 ? rows.size() : limit;
                    assertEquals(n, b.getRowCount());
                    assertEquals(TestRows.column(rows, 0).subList(0, n), values(b.getVector("i")));
                    assertEquals(TestRows.column(rows, 2).subList(0, n), values(b.getVector("s")));
                });
            } finally {
                q.close();
            }
            q.whenReleased().get(10, TimeUnit.SECONDS);
            // Only d2 was allocated (its values and validity): i and s were not copied.
            long d2 = roundedUp(rows.size() * 8L) + roundedUp((rows.size() + 7) / 8);
            assertTrue(allocated.get() - before <= d2, (allocated.get() - before) + " bytes, LIMIT " + limit);
        }
    }

    // ------------------------------------------------------------------ errors

    @Test
    void rowsTheFilterOrTheLimitRemovesNeverRaise() throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        for (int r = 0; r < 400; r++) {
            rows.add(TestRows.row(r, r * 0.5, "r" + r, r % 2 == 0));
        }
        List<List<List<Object>>> batches = List.of(rows, rows);
        // i % 7 = 3 would divide by zero: the filter removes those rows.
        assertEquals(
                reference(
                        batches,
                        r -> (Integer) r.getFirst() % 7 != 3,
                        r -> List.of(100 / ((Integer) r.getFirst() % 7 - 3)),
                        Long.MAX_VALUE),
                run(
                        Pipeline.from(SCHEMA)
                                .filter("i % 7 <> 3")
                                .project("100 / (i % 7 - 3) AS q")
                                .placement(Placement.CPU)
                                .plan(quiver),
                        batches));
        // i = 50 would: the limit stops before it, on either side of a filter.
        for (Pipeline p : List.of(
                Pipeline.from(SCHEMA).project("100 / (i - 50) AS q").limit(50),
                Pipeline.from(SCHEMA)
                        .filter("i >= 0")
                        .project("100 / (i - 50) AS q")
                        .limit(50))) {
            assertEquals(
                    reference(batches, r -> true, r -> List.of(100 / ((Integer) r.getFirst() - 50)), 50),
                    run(p.placement(Placement.CPU).plan(quiver), batches));
        }
        RuntimeException failed = assertThrows(
                RuntimeException.class,
                () -> run(
                        Pipeline.from(SCHEMA)
                                .filter("i >= 0")
                                .project("100 / (i - 50) AS q")
                                .limit(51)
                                .placement(Placement.CPU)
                                .plan(quiver),
                        batches));
        Throwable cause = failed;
        while (cause != null && !(cause instanceof KernelArithmeticException)) {
            cause = cause.getCause();
        }
        assertTrue(cause instanceof KernelArithmeticException, String.valueOf(failed));
    }

    @Test
    void aCancelledPipelineFreesEverything() throws Exception {
        PipelinePlan plan = Pipeline.from(WIDE)
                .filter("c0 < 0.3")
                .project("c1", "c2 + c3 AS s")
                .placement(Placement.CPU)
                .plan(quiver);
        QueryExecution q = plan.execute(
                runtime, List.of(BatchStreams.generate(WIDE, 1000, i -> wide(10_000), runtime.executor())), results);
        try (VectorSchemaRoot first = q.stream().next().get(10, TimeUnit.SECONDS)) {
            assertEquals(3_000, first.getRowCount());
            q.stream().next(); // a second batch in flight when the query is cancelled
        } finally {
            q.cancel();
        }
        q.whenReleased().get(10, TimeUnit.SECONDS);
    }
}
