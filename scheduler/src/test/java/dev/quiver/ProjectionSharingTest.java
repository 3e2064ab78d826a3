package dev.quiver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.Val;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A subtree several expressions of a projection read is computed once per batch: across the
 * columns, inside CASE branches, and between the filter and the columns (gathered through the
 * filter's selection). Counted with a RowFn's rows computed (against the count of evaluating the
 * subtree alone once); values compared with each expression compiled and evaluated alone, on the
 * rows {@link CompiledExpression#filter} keeps. Volatile calls are never merged. Random data is
 * seeded; replay with {@code -Dquiver.seed=<seed>} (printed).
 */
class ProjectionSharingTest {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20261202L);
    private static final Schema SCHEMA = new Schema(List.of(
            DataType.FLOAT64.toField("a", true),
            DataType.FLOAT64.toField("b", true),
            DataType.FLOAT64.toField("c", true),
            DataType.FLOAT64.toField("d", true),
            DataType.FLOAT64.toField("x", true)));
    private static final String HAV = "hav(a, b, c, d)";

    private BufferAllocator allocator;
    private Quiver quiver;
    private RowFn hav;
    private Random random;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).build();
        hav = haversine();
        quiver.functions().register(hav);
        random = new Random(SEED);
        System.out.println("ProjectionSharingTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
    }

    @AfterEach
    void close() {
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    /** The guide's haversine, declared anew per test (its counts are its own). */
    private static RowFn haversine() {
        return RowFn.declare("hav")
                .arg("lat1", RowType.FLOAT64)
                .arg("lon1", RowType.FLOAT64)
                .arg("lat2", RowType.FLOAT64)
                .arg("lon2", RowType.FLOAT64)
                .returns(RowType.FLOAT64)
                .body((lat1, lon1, lat2, lon2) -> {
                    double toRadians = Math.PI / 180;
                    Val p1 = lat1.mul(toRadians);
                    Val p2 = lat2.mul(toRadians);
                    Val halfDLat = p2.sub(p1).mul(0.5).sin();
                    Val halfDLon = lon2.sub(lon1).mul(toRadians * 0.5).sin();
                    Val h = halfDLat.mul(halfDLat)
                            .add(p1.cos().mul(p2.cos()).mul(halfDLon).mul(halfDLon));
                    return h.sqrt().asin().mul(2 * 6371.0088);
                });
    }

    /** Points a few km apart, about one row in seven null in some column, x in [-1, 1). */
    private VectorSchemaRoot batch(int rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        root.allocateNew();
        for (int col = 0; col < 5; col++) {
            Float8Vector v = (Float8Vector) root.getVector(col);
            for (int r = 0; r < rows; r++) {
                if (random.nextInt(28) == 0) {
                    v.setNull(r);
                } else {
                    v.set(r, col == 4 ? random.nextDouble() * 2 - 1 : 45 + (col % 2) * 5 + random.nextDouble() * 0.2);
                }
            }
            v.setValueCount(rows);
        }
        root.setRowCount(rows);
        return root;
    }

    private static List<Object> values(FieldVector v) {
        List<Object> out = new ArrayList<>(v.getValueCount());
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(v.getObject(i));
        }
        return out;
    }

    /** Each column compiled alone, on the rows the filter (compiled alone) keeps, the first {@code limit}. */
    private List<List<Object>> reference(VectorSchemaRoot batch, String filter, List<String> columns, int limit) {
        List<List<Object>> out = new ArrayList<>();
        VectorSchemaRoot kept =
                filter == null ? batch : quiver.compile(SCHEMA, filter).filter(batch, Placement.CPU, allocator);
        try {
            for (String c : columns) {
                try (FieldVector v = quiver.compile(SCHEMA, c).evaluate(kept, Placement.CPU, allocator)) {
                    List<Object> all = values(v);
                    out.add(new ArrayList<>(all.subList(0, Math.min(limit, all.size()))));
                }
            }
        } finally {
            if (kept != batch) {
                kept.close();
            }
        }
        return out;
    }

    private static List<List<Object>> valuesOf(VectorSchemaRoot out) {
        List<List<Object>> cols = new ArrayList<>();
        for (FieldVector v : out.getFieldVectors()) {
            cols.add(values(v));
        }
        return cols;
    }

    /** The rows of hav computed by evaluating it alone once over {@code batch}: what computing it once costs. */
    private long onceOver(VectorSchemaRoot batch) {
        long before = hav.stats().bodyRows();
        try (FieldVector v = quiver.compile(SCHEMA, HAV).evaluate(batch, Placement.CPU, allocator)) {
            return hav.stats().bodyRows() - before;
        }
    }

    /** The projection's output, checked against the reference; returns the rows of hav the projection computed. */
    private long projectAndCheck(
            CompiledProjection p, VectorSchemaRoot batch, String filter, List<String> cols, int limit) {
        List<List<Object>> expected = reference(batch, filter, cols, limit);
        long before = hav.stats().bodyRows();
        try (VectorSchemaRoot out = p.project(batch, limit, Placement.CPU, allocator)) {
            long computed = hav.stats().bodyRows() - before;
            assertEquals(expected, valuesOf(out));
            return computed;
        }
    }

    @Test
    void aSubtreeOfSeveralColumnsAndACaseBranchIsComputedOncePerBatch() {
        List<String> cols = List.of(
                HAV + " AS km",
                HAV + " * 0.62 AS miles",
                "CASE WHEN x > 0 THEN " + HAV + " ELSE -1 END AS branch",
                "CASE WHEN " + HAV + " > 10 THEN 1 ELSE 0 END AS far");
        CompiledProjection p = quiver.compileProjection(SCHEMA, cols);
        assertEquals(1, p.sharedSubtrees().size(), p.explain(false));
        try (VectorSchemaRoot batch = batch(1000)) {
            long once = onceOver(batch);
            assertTrue(once > 0);
            assertEquals(once, projectAndCheck(p, batch, null, cols, Integer.MAX_VALUE), p.explain());
            assertEquals(once, projectAndCheck(p, batch, null, cols, Integer.MAX_VALUE), "every batch once");
        }
        String explain = p.explain(true);
        assertTrue(
                explain.contains(
                        "shared #1 hav(a, b, c, d): 'km', 'miles', 'branch', 'far'; 6 evaluation(s) saved in 2 batch(es)"),
                explain);
    }

    @Test
    void aSubtreeTheFilterComputesIsGatheredForTheColumns() {
        String filter = HAV + " > 10";
        List<String> cols = List.of(HAV + " AS km", "x + " + HAV + " AS shifted");
        CompiledProjection p = quiver.compileProjection(SCHEMA, filter, cols);
        assertEquals(List.of(0, 1, 2), p.sharedSubtrees().getFirst().readers(), p.explain(false));
        try (VectorSchemaRoot batch = batch(1000)) {
            int kept =
                    reference(batch, filter, cols, Integer.MAX_VALUE).getFirst().size();
            assertTrue(kept > 100 && kept < 900, kept + " rows kept: the filter must select");
            long once = onceOver(batch);
            assertEquals(once, projectAndCheck(p, batch, filter, cols, Integer.MAX_VALUE), p.explain());
            // A limit: the first kept rows, still gathered from the filter's value.
            assertEquals(once, projectAndCheck(p, batch, filter, cols, 7), p.explain());
        }
        assertTrue(p.explain(false).contains("hav(a, b, c, d): Filter, 'km', 'shifted'\n"), p.explain(false));
        // Each batch: the two columns read the filter's value (gathered), neither computes it.
        assertTrue(
                p.explain(true)
                        .contains("hav(a, b, c, d): Filter, 'km', 'shifted'; 4 evaluation(s) saved in 2 batch(es)"),
                p.explain(true));
    }

    /** The bytes {@code body} allocates from {@code counted} (a child of the test's allocator whose listener adds them up). */
    private static long allocated(AtomicLong bytes, Runnable body) {
        long before = bytes.get();
        body.run();
        return bytes.get() - before;
    }

    @Test
    void columnsOnlyTheFiltersValueReadsAreNotCompacted() {
        AtomicLong bytes = new AtomicLong();
        AllocationListener listener = new AllocationListener() {
            @Override
            public void onAllocation(long size) {
                bytes.addAndGet(size);
            }
        };
        String filter = HAV + " > 10";
        CompiledProjection p = quiver.compileProjection(SCHEMA, filter, List.of(HAV + " AS km", HAV + " * 2 AS twice"));
        CompiledExpression alone = quiver.compile(SCHEMA, filter);
        try (BufferAllocator counted = allocator.newChildAllocator("counted", listener, 0, Long.MAX_VALUE);
                VectorSchemaRoot batch = batch(4000)) {
            Selection keep = alone.select(batch, Placement.CPU, counted);
            long column = allocated(
                    bytes,
                    () -> Kernels.filter(batch.getVector("a"), keep, counted).close());
            // Planned alone, the filter fuses hav into its comparison: the projection's keeps the distance too.
            long filtering = allocated(bytes, () -> alone.select(batch, Placement.CPU, counted));
            long distance = allocated(
                    bytes,
                    () -> quiver.compile(SCHEMA, HAV)
                            .evaluate(batch, Placement.CPU, counted)
                            .close());
            long projecting = allocated(
                    bytes, () -> p.project(batch, Placement.CPU, counted).close());
            // The filter's work, the distance gathered once ('km' shares it), 'twice' computed: two columns of
            // kept rows; a, b, c and d (four more) are never compacted.
            assertTrue(
                    projecting < filtering + distance + 3 * column,
                    projecting + " bytes, filter " + filtering + ", distance " + distance + ", column " + column);
        }
    }

    @Test
    void whenTheFilterKeepsEveryRowOrNoneTheValuesAreStillRight() {
        List<String> cols = List.of(HAV + " AS km", HAV + " / 2 AS half");
        try (VectorSchemaRoot batch = batch(300)) {
            long once = onceOver(batch);
            for (String filter : List.of(HAV + " >= 0 OR " + HAV + " IS NULL", HAV + " < 0")) {
                CompiledProjection p = quiver.compileProjection(SCHEMA, filter, cols);
                assertEquals(once, projectAndCheck(p, batch, filter, cols, Integer.MAX_VALUE), filter);
            }
        }
    }

    @Test
    void aSubtreeInALazyAndTermIsRightWhereverItWasComputed() {
        // The second term runs on the rows the first keeps: its value does not cover the batch, so the
        // columns compute hav again on the kept rows (never a value missing rows).
        String filter = "x > 0.5 AND " + HAV + " > 10";
        List<String> cols = List.of(HAV + " AS km", "CASE WHEN " + HAV + " > 12 THEN 'far' ELSE 'near' END AS band");
        CompiledProjection p = quiver.compileProjection(SCHEMA, filter, cols);
        try (VectorSchemaRoot batch = batch(2000)) {
            long once = onceOver(batch);
            long computed = projectAndCheck(p, batch, filter, cols, Integer.MAX_VALUE);
            assertTrue(computed <= 2 * once, computed + " rows for " + once);
        }
    }

    @Test
    void onAnOpenClDeviceTheColumnsReadTheSameSharedValue() {
        assumeFalse(quiver.openClDevices().isEmpty(), "no OpenCL device: " + quiver.openClStatus());
        String filter = HAV + " > 10";
        List<String> cols = List.of(HAV + " AS km", HAV + " * 0.62 AS miles");
        CompiledProjection p = quiver.compileProjection(SCHEMA, filter, cols);
        try (VectorSchemaRoot batch = batch(3000)) {
            List<List<Object>> expected = reference(batch, filter, cols, Integer.MAX_VALUE);
            long once = onceOver(batch);
            long before = hav.stats().bodyRows();
            try (VectorSchemaRoot out = p.project(batch, Placement.OPENCL, allocator)) {
                assertEquals(once, hav.stats().bodyRows() - before, p.explain());
                List<List<Object>> got = valuesOf(out);
                assertEquals(expected.getFirst().size(), got.getFirst().size());
                for (int c = 0; c < cols.size(); c++) {
                    for (int r = 0; r < got.get(c).size(); r++) {
                        Double e = (Double) expected.get(c).get(r);
                        Double g = (Double) got.get(c).get(r);
                        if (e == null || g == null) {
                            assertEquals(e, g, cols.get(c) + " row " + r);
                        } else {
                            // The device's sin/cos/asin are within a few ulps of the CPU's.
                            assertEquals(e, g, Math.abs(e) * 1e-12, cols.get(c) + " row " + r);
                        }
                    }
                }
            }
        }
    }

    @Test
    void volatileCallsAreNeverMerged() {
        List<String> cols = List.of("random() + x AS r1", "random() + x AS r2");
        CompiledProjection p = quiver.compileProjection(SCHEMA, cols);
        assertEquals(List.of(), p.sharedSubtrees());
        assertFalse(p.explain(false).contains("shared #"), p.explain(false));
        try (VectorSchemaRoot batch = batch(200);
                VectorSchemaRoot out = p.project(batch, Placement.CPU, allocator)) {
            assertNotEquals(values(out.getVector(0)), values(out.getVector(1)));
        }
    }

    @Test
    void nullsInTheSharedValueReachEveryColumn() {
        List<String> cols = List.of(
                HAV + " AS km",
                "CASE WHEN " + HAV + " IS NULL THEN -1.0 ELSE " + HAV + " END AS filled",
                HAV + " IS NULL AS missing");
        CompiledProjection p = quiver.compileProjection(SCHEMA, "x IS NOT NULL", cols);
        try (VectorSchemaRoot batch = batch(500)) {
            long computed = projectAndCheck(p, batch, "x IS NOT NULL", cols, Integer.MAX_VALUE);
            // Computed once, on the kept rows (the filter does not read it).
            try (VectorSchemaRoot kept =
                    quiver.compile(SCHEMA, "x IS NOT NULL").filter(batch, Placement.CPU, allocator)) {
                assertEquals(onceOver(kept), computed);
            }
        }
    }
}
