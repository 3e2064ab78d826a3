package dev.quiver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.cancel.CancelHandle;
import dev.quiver.errors.CancelledException;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.types.DataType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CompiledProjection#project} on the filter's selection: the same rows and values as
 * filtering every column first and evaluating on the copy (computed here, independently, with
 * {@link CompiledExpression#filter} and {@link CompiledExpression#evaluate}), for filters that keep
 * some rows, one run of rows, every row and none, under limits; the columns nothing reads are not
 * copied and a column projected as it is shares the batch's buffers (counted with an allocation
 * listener, and by address); rows the filter or the limit removes raise nothing; failures and
 * cancellation leave nothing allocated. Random data is seeded; replay with
 * {@code -Dquiver.seed=<seed>} (printed).
 */
class ProjectionSelectionTest {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20260425L);
    private static final String[] WORDS = {"a", "bc", "", "déf", "ghij"};

    private BufferAllocator allocator;
    private Quiver quiver;
    private Random random;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).build();
        random = new Random(SEED);
        System.out.println("ProjectionSelectionTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
    }

    @AfterEach
    void close() {
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    // ------------------------------------------------------------------ data

    /** id (Int32, the row number), a and k (Int32, k in -2..2), x (Float64), s (Utf8), p0..p4 (Float64, read by nothing). */
    private static final Schema SCHEMA = schema();

    private static Schema schema() {
        List<Field> fields = new ArrayList<>(List.of(
                DataType.INT32.toField("id", true),
                DataType.INT32.toField("a", true),
                DataType.INT32.toField("k", true),
                DataType.FLOAT64.toField("x", true),
                DataType.UTF8.toField("s", true)));
        for (int p = 0; p < 5; p++) {
            fields.add(DataType.FLOAT64.toField("p" + p, true));
        }
        return new Schema(fields);
    }

    /** A batch of {@link #SCHEMA}: about one value in seven NULL (with garbage behind the fixed-width ones). */
    private VectorSchemaRoot batch(int rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        try {
            root.allocateNew();
            IntVector id = (IntVector) root.getVector("id");
            IntVector a = (IntVector) root.getVector("a");
            IntVector k = (IntVector) root.getVector("k");
            Float8Vector x = (Float8Vector) root.getVector("x");
            VarCharVector s = (VarCharVector) root.getVector("s");
            for (int r = 0; r < rows; r++) {
                id.setSafe(r, r);
                a.setSafe(r, random.nextInt(2001) - 1000);
                k.setSafe(r, random.nextInt(5) - 2);
                x.setSafe(r, random.nextDouble());
                s.setSafe(r, WORDS[random.nextInt(WORDS.length)].getBytes(StandardCharsets.UTF_8));
                for (FieldVector v : List.<FieldVector>of(a, k, x)) {
                    if (random.nextInt(7) == 0) {
                        v.setNull(r); // the value stays behind the null: garbage
                    }
                }
                if (random.nextInt(7) == 0) {
                    s.setNull(r);
                }
                for (int p = 0; p < 5; p++) {
                    ((Float8Vector) root.getVector("p" + p)).setSafe(r, random.nextGaussian());
                }
            }
            root.setRowCount(rows);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** Every value of a vector as Java reads it (strings as Strings, NULL as null). */
    private static List<Object> values(FieldVector v) {
        List<Object> out = new ArrayList<>(v.getValueCount());
        for (int r = 0; r < v.getValueCount(); r++) {
            Object o = v.getObject(r);
            out.add(o instanceof Text t ? t.toString() : o);
        }
        return out;
    }

    /**
     * The old way: every column of the kept rows copied by the filter, each expression evaluated
     * on the copy; then the first {@code limit} rows. One list of values per column.
     */
    private List<List<Object>> reference(VectorSchemaRoot batch, String filter, List<String> columns, int limit) {
        List<List<Object>> out = new ArrayList<>();
        VectorSchemaRoot kept =
                filter == null ? null : quiver.compile(SCHEMA, filter).filter(batch, Placement.CPU, allocator);
        try {
            for (String c : columns) {
                try (FieldVector v =
                        quiver.compile(SCHEMA, c).evaluate(kept == null ? batch : kept, Placement.CPU, allocator)) {
                    List<Object> all = values(v);
                    out.add(new ArrayList<>(all.subList(0, Math.min(limit, all.size()))));
                }
            }
            return out;
        } finally {
            if (kept != null) {
                kept.close();
            }
        }
    }

    private static List<List<Object>> valuesOf(VectorSchemaRoot out) {
        List<List<Object>> got = new ArrayList<>();
        for (FieldVector v : out.getFieldVectors()) {
            assertEquals(out.getRowCount(), v.getValueCount(), v.getName());
            got.add(values(v));
        }
        return got;
    }

    // ------------------------------------------------------------------ results

    private static final List<String> COLUMNS =
            List.of("id", "a", "s", "x * 2 AS x2", "upper(s) AS u", "a + id AS ai", "CASE WHEN k > 0 THEN s END AS cs");

    @Test
    void theSameRowsAndValuesAsFilteringEveryColumnFirst() {
        List<String> filters = new ArrayList<>();
        filters.add(null);
        filters.addAll(List.of(
                "k <> 0 AND x < 0.5", // some rows, scattered
                "id >= 100 AND id < 300", // one run: sliced, not gathered
                "id >= 0", // every row
                "id < 0", // none
                "x < 0.05", // few
                "TRUE",
                "CAST(NULL AS BOOLEAN)"));
        for (int n : new int[] {0, 1, 64, 1000, 4099}) {
            try (VectorSchemaRoot batch = batch(n)) {
                for (String filter : filters) {
                    CompiledProjection q = quiver.compileProjection(SCHEMA, filter, COLUMNS);
                    for (int limit : new int[] {Integer.MAX_VALUE, 0, 1, 7, 150}) {
                        List<List<Object>> expected = reference(batch, filter, COLUMNS, limit);
                        for (Placement placement : new Placement[] {Placement.CPU, Placement.AUTO}) {
                            String what = "WHERE " + filter + " LIMIT " + limit + ", " + n + " rows, " + placement
                                    + ", seed " + SEED;
                            try (VectorSchemaRoot out = limit == Integer.MAX_VALUE
                                    ? q.project(batch, placement, allocator)
                                    : q.project(batch, limit, placement, allocator)) {
                                assertEquals(
                                        q.outputSchema().getFields().stream()
                                                .map(f -> f.getName() + " " + DataType.fromField(f))
                                                .toList(),
                                        out.getSchema().getFields().stream()
                                                .map(f -> f.getName() + " " + DataType.fromField(f))
                                                .toList(),
                                        what);
                                assertEquals(expected.getFirst().size(), out.getRowCount(), what);
                                assertEquals(expected, valuesOf(out), what);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void aProjectionWhoseFilterKeepsNoRowComputesNothing() {
        try (VectorSchemaRoot batch = batch(500)) {
            CompiledProjection q = quiver.compileProjection(SCHEMA, "id < 0", List.of("a / k AS q", "upper(s) AS u"));
            try (VectorSchemaRoot out = q.project(batch, Placement.CPU, allocator)) {
                assertEquals(0, out.getRowCount());
                assertEquals(
                        List.of("q", "u"),
                        out.getSchema().getFields().stream().map(Field::getName).toList());
                assertEquals(
                        List.of(DataType.INT32, DataType.UTF8),
                        out.getSchema().getFields().stream()
                                .map(DataType::fromField)
                                .toList());
            }
            for (CompiledExpression c : q.columns()) {
                assertTrue(c.lastBatch().isEmpty(), c.plan().logical() + " was evaluated");
            }
            assertTrue(q.filter().orElseThrow().lastBatch().isPresent(), "the filter ran");
        }
    }

    // ------------------------------------------------------------------ what moves

    /** An allocator that counts every byte allocated from it (not the bytes transferred to it). */
    private record Counting(BufferAllocator allocator, AtomicLong bytes) implements AutoCloseable {
        @Override
        public void close() {
            allocator.close();
        }
    }

    private Counting counting(String name) {
        AtomicLong bytes = new AtomicLong();
        AllocationListener listener = new AllocationListener() {
            @Override
            public void onAllocation(long size) {
                bytes.addAndGet(size);
            }
        };
        return new Counting(allocator.newChildAllocator(name, listener, 0, Long.MAX_VALUE), bytes);
    }

    /** The Float64 columns c0..c9 with {@code rows} rows, c0 uniform in [0, 1). */
    private VectorSchemaRoot wide(int rows) {
        List<Field> fields = new ArrayList<>();
        for (int c = 0; c < 10; c++) {
            fields.add(DataType.FLOAT64.toField("c" + c, true));
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator);
        root.allocateNew();
        for (int c = 0; c < 10; c++) {
            Float8Vector v = (Float8Vector) root.getVector(c);
            for (int r = 0; r < rows; r++) {
                v.setSafe(r, c == 0 ? random.nextDouble() : r + c);
            }
        }
        root.setRowCount(rows);
        return root;
    }

    /** {@code bytes} rounded up to a power of two, as Arrow's allocator rounds a buffer below its chunk size. */
    private static long roundedUp(long bytes) {
        return Long.highestOneBit(bytes - 1) << 1;
    }

    @Test
    void theColumnsNothingReadsAreNotCopied() {
        int rows = 200_000;
        try (VectorSchemaRoot batch = wide(rows)) {
            Schema schema = batch.getSchema();
            CompiledProjection q = quiver.compileProjection(schema, "c0 < 0.3", List.of("c1 + c2 AS s", "c3"));
            long kept;
            long now;
            try (Counting results = counting("results");
                    VectorSchemaRoot out = q.project(batch, Placement.CPU, results.allocator())) {
                kept = out.getRowCount();
                now = results.bytes().get();
                for (int j = 0; j < kept; j += 997) {
                    double c3 = ((Float8Vector) out.getVector("c3")).get(j);
                    assertEquals(
                            2 * c3 - 3, ((Float8Vector) out.getVector("s")).get(j), "c1 + c2 = 2 c3 - 3: row " + j);
                }
            }
            long old;
            try (Counting results = counting("old way")) {
                try (VectorSchemaRoot copy =
                                quiver.compile(schema, "c0 < 0.3").filter(batch, Placement.CPU, results.allocator());
                        FieldVector s =
                                quiver.compile(schema, "c1 + c2").evaluate(copy, Placement.CPU, results.allocator());
                        FieldVector c3 =
                                quiver.compile(schema, "c3").evaluate(copy, Placement.CPU, results.allocator())) {
                    assertEquals(kept, copy.getRowCount());
                }
                old = results.bytes().get();
            }
            // The values of one kept column, as the allocator gives them (a power of two).
            long column = roundedUp(kept * 8);
            assertTrue(kept > rows / 4 && kept < rows * 7 / 20, "about 30% kept: " + kept + ", seed " + SEED);
            assertTrue(old >= 10 * column, "the old way copies every column: " + old + " bytes");
            // Compacted c1, c2, c3 and the computed column: four kept columns (and validity, and the
            // filter's bitmaps), against ten copied columns and the computed one.
            assertTrue(now < 5 * column, now + " bytes allocated, " + column + " per kept column");
            assertTrue(now < old / 2, now + " bytes allocated against " + old + " the old way");
        }
    }

    @Test
    void aColumnProjectedAsItIsSharesTheBatchBuffers() {
        for (String filter : new String[] {null, "id >= 0", "id >= 128 AND id < 300"}) {
            for (boolean batchFirst : new boolean[] {true, false}) {
                VectorSchemaRoot batch = batch(1000);
                int from = filter != null && filter.contains("128") ? 128 : 0;
                VectorSchemaRoot out;
                List<List<Object>> expected;
                try {
                    List<String> columns = List.of("id", "s AS t", "x * 2 AS y");
                    CompiledProjection q = quiver.compileProjection(SCHEMA, filter, columns);
                    expected = reference(batch, filter, columns, Integer.MAX_VALUE);
                    out = q.project(batch, Placement.CPU, allocator);
                    String what = "WHERE " + filter;
                    assertEquals(
                            batch.getVector("id").getDataBuffer().memoryAddress() + 4L * from,
                            out.getVector("id").getDataBuffer().memoryAddress(),
                            "id shares the batch's values, " + what);
                    assertEquals(
                            batch.getVector("s").getDataBuffer().memoryAddress()
                                    + ((VarCharVector) batch.getVector("s")).getStartOffset(from),
                            out.getVector("t").getDataBuffer().memoryAddress(),
                            "s shares the batch's bytes, " + what);
                    assertEquals("t", out.getVector(1).getName());
                } catch (RuntimeException | Error e) {
                    batch.close();
                    throw e;
                }
                // Closing either side leaves the other intact.
                if (batchFirst) {
                    batch.close();
                    assertEquals(expected, valuesOf(out), "after the batch was closed, WHERE " + filter);
                    out.close();
                } else {
                    out.close();
                    try (VectorSchemaRoot b = batch) {
                        assertEquals(1000, b.getVector("id").getValueCount());
                        for (int r = 0; r < 1000; r += 37) {
                            assertEquals(
                                    r, ((IntVector) b.getVector("id")).get(r), "the batch after the result was closed");
                        }
                    }
                }
                assertEquals(0, allocator.getAllocatedMemory(), "WHERE " + filter);
            }
        }
    }

    @Test
    void aColumnProjectedAsItIsBehindAScatteredFilterIsGatheredOnce() {
        int rows = 200_000;
        try (VectorSchemaRoot batch = wide(rows)) {
            CompiledProjection q =
                    quiver.compileProjection(batch.getSchema(), "c0 < 0.5", List.of("c1", "c1 * 2 AS d"));
            try (Counting results = counting("results");
                    VectorSchemaRoot out = q.project(batch, Placement.CPU, results.allocator())) {
                long column = roundedUp(out.getRowCount() * 8L);
                // One gather of c1 (its values), the computed d, and the filter's bitmaps: not a second copy of c1.
                assertTrue(
                        results.bytes().get() < column * 2 + column / 2,
                        results.bytes().get() + " bytes for " + out.getRowCount() + " kept rows");
                Float8Vector c1 = (Float8Vector) out.getVector("c1");
                Float8Vector d = (Float8Vector) out.getVector("d");
                for (int j = 0; j < out.getRowCount(); j += 101) {
                    assertEquals(c1.get(j) * 2, d.get(j));
                }
            }
        }
    }

    // ------------------------------------------------------------------ errors

    @Test
    void rowsTheFilterOrTheLimitRemovesNeverRaise() {
        try (VectorSchemaRoot batch = batch(3000)) {
            IntVector a = (IntVector) batch.getVector("a");
            IntVector k = (IntVector) batch.getVector("k");
            for (String filter : new String[] {"k <> 0", "k <> 0 AND x < 0.5", "k <> 0 AND id < 2000"}) {
                CompiledProjection q = quiver.compileProjection(SCHEMA, filter, List.of("a / k AS q", "id"));
                try (VectorSchemaRoot out = q.project(batch, Placement.CPU, allocator)) {
                    IntVector ids = (IntVector) out.getVector("id");
                    List<Object> got = values(out.getVector("q"));
                    for (int j = 0; j < out.getRowCount(); j++) {
                        int r = ids.get(j);
                        assertTrue(!k.isNull(r) && k.get(r) != 0, "row " + r + " passed " + filter);
                        assertEquals(a.isNull(r) ? null : a.get(r) / k.get(r), got.get(j), filter + ", row " + r);
                    }
                }
            }
            // Without a filter the limit alone guards: k is 0 on some row past the first ten.
            int firstZero = -1;
            for (int r = 0; r < 3000 && firstZero < 0; r++) {
                if (!k.isNull(r) && k.get(r) == 0 && !a.isNull(r)) {
                    firstZero = r;
                }
            }
            assertTrue(firstZero >= 0, "seed " + SEED);
            int zero = firstZero;
            CompiledProjection q = quiver.compileProjection(SCHEMA, List.of("a / k AS q"));
            try (VectorSchemaRoot out = q.project(batch, firstZero, Placement.CPU, allocator)) {
                assertEquals(firstZero, out.getRowCount());
            }
            long before = allocator.getAllocatedMemory();
            assertThrows(KernelArithmeticException.class, () -> q.project(batch, zero + 1, Placement.CPU, allocator));
            assertEquals(before, allocator.getAllocatedMemory(), "after the failure");
        }
    }

    @Test
    void failuresAndCancellationLeaveNothingAllocated() {
        try (VectorSchemaRoot batch = batch(3000)) {
            long before = allocator.getAllocatedMemory();
            for (String filter : new String[] {"x < 0.5", "id >= 10 AND id < 2000"}) {
                // The first column is computed on compacted columns, the second divides by a zero that was kept.
                CompiledProjection failing =
                        quiver.compileProjection(SCHEMA, filter, List.of("upper(s) AS u", "a", "a / k AS q"));
                KernelArithmeticException e = assertThrows(
                        KernelArithmeticException.class, () -> failing.project(batch, Placement.CPU, allocator));
                assertTrue(e.getMessage().contains("by zero"), e.getMessage());
                assertEquals(before, allocator.getAllocatedMemory(), "after a failing column, WHERE " + filter);

                CompiledProjection fine = quiver.compileProjection(SCHEMA, filter, List.of("upper(s) AS u", "a"));
                CancelHandle handle = new CancelHandle();
                handle.cancel();
                assertThrows(
                        CancelledException.class,
                        () -> handle.call(() -> fine.project(batch, Placement.CPU, allocator)));
                assertEquals(before, allocator.getAllocatedMemory(), "after a cancelled projection, WHERE " + filter);

                try (BufferAllocator tiny = allocator.newChildAllocator("tiny", 0, 2048)) {
                    QuiverOutOfMemoryException oom = assertThrows(
                            QuiverOutOfMemoryException.class, () -> fine.project(batch, Placement.CPU, tiny));
                    assertEquals(0, tiny.getAllocatedMemory(), oom.getMessage());
                }
                assertEquals(before, allocator.getAllocatedMemory(), "after running out of memory, WHERE " + filter);
            }
        }
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
