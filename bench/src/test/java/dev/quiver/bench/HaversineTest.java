package dev.quiver.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.cli.CliFunctions;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The three CPU implementations {@link HaversineBenchmark} times compute the same thing, on small
 * batches (no JMH run): Quiver's fused loop, the hand-written Vector API loop and the boxed UDF,
 * with the same nulls and values within {@link HaversineBenchmark#MAX_ERROR} (condition-widened) ulps, a short last
 * batch (the masked tail of the Vector API loop) included. The RowFn it registers is the command
 * line's ({@link CliFunctions#haversine()}), which cli's {@code HaversineWorkloadTest} checks is the
 * guide's, as captured from docs/rowfn.md.
 */
class HaversineTest {
    private BufferAllocator allocator;
    private Quiver quiver;
    private CompiledExpression compiled;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).openCl(false).build();
        quiver.functions().register(CliFunctions.haversine());
        compiled = quiver.compile(Haversine.schema(), Haversine.SQL);
    }

    @AfterEach
    void close() {
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    @Test
    void quiverVectorApiAndBoxedUdfAgreeOnSmallBatches() {
        List<VectorSchemaRoot> batches = Haversine.generate(allocator, 5, 3 * 1003 + 5, 1003);
        try {
            assertEquals(
                    List.of(1003, 1003, 1003, 5),
                    batches.stream().map(VectorSchemaRoot::getRowCount).toList());
            for (VectorSchemaRoot batch : batches) {
                for (int c = 0; c < 4; c++) {
                    Float8Vector v = (Float8Vector) batch.getVector(c);
                    assertEquals(0, v.getNullCount(), "the data has no nulls");
                    double bound = v.getName().startsWith("lat") ? 90 : 180;
                    for (int i = 0; i < v.getValueCount(); i++) {
                        assertTrue(v.get(i) >= -bound && v.get(i) < bound, v.getName() + " " + v.get(i));
                    }
                }
                assertAgree(batch);
                // The check the benchmark's setup makes, on this batch.
                String report = HaversineBenchmark.check(compiled, batch, allocator, false);
                assertTrue(report.contains("quiver") && report.contains("boxedUdf"), report);
            }
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void theyAgreeOnNullsToo() {
        List<VectorSchemaRoot> batches = Haversine.generate(allocator, 9, 777, 777);
        try {
            VectorSchemaRoot batch = batches.getFirst();
            for (int i = 0; i < 777; i += 7) {
                ((Float8Vector) batch.getVector(i % 4)).setNull(i);
            }
            assertAgree(batch);
            try (FieldVector v = Haversine.vectorApi(batch, allocator)) {
                for (int i = 0; i < 777; i++) {
                    assertEquals(i % 7 == 0, v.isNull(i), "row " + i);
                }
            }
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void errorUnitsAreUlpsWidenedNearAntipodes() {
        assertEquals(0.0, Haversine.errorUnits(1000, 1000));
        assertEquals(0.0, Haversine.errorUnits(Double.NaN, Double.NaN));
        assertEquals(Double.POSITIVE_INFINITY, Haversine.errorUnits(1000, Double.NaN));
        // Near 0 km an ulp of the distance is tiny: the diameter's term sets the unit.
        double unitAt1000 = Math.ulp(1000.0)
                + 2
                        * CliFunctions.EARTH_RADIUS_KM
                        * Math.ulp(1.0)
                        / Math.cos(1000 / (2 * CliFunctions.EARTH_RADIUS_KM));
        assertEquals(
                3.0,
                Haversine.errorUnits(1000, 1000 + 3 * unitAt1000),
                0.05); // 1000 + 3 units rounds to a multiple of ulp(1000)
        // Half the circumference: a unit without bound.
        double antipodes = Math.PI * CliFunctions.EARTH_RADIUS_KM;
        assertTrue(Haversine.errorUnits(antipodes, Math.nextDown(antipodes)) < 1e-3);
    }

    @Test
    void knownDistances() {
        // London to Paris, and two antipodes (half the circumference).
        assertEquals(343.5, Haversine.scalar(51.5074, -0.1278, 48.8566, 2.3522), 0.5);
        assertEquals(Math.PI * CliFunctions.EARTH_RADIUS_KM, Haversine.scalar(0, 0, 0, 180), 1e-9);
        assertEquals(0.0, Haversine.scalar(10, 20, 10, 20));
        assertEquals(Haversine.scalar(1, 2, 3, 4), (Double)
                new Haversine.BoxedUdf().apply(new Object[] {1.0, 2.0, 3.0, 4.0}));
    }

    private void assertAgree(VectorSchemaRoot batch) {
        try (Float8Vector hand = Haversine.vectorApi(batch, allocator);
                FieldVector fused = compiled.evaluate(batch, Placement.CPU, allocator);
                Float8Vector boxed = Haversine.boxedUdf(batch, allocator, new Haversine.BoxedUdf())) {
            assertEquals(batch.getRowCount(), hand.getValueCount());
            double quiverError = Haversine.maxError(hand, fused), boxedError = Haversine.maxError(hand, boxed);
            assertTrue(quiverError <= HaversineBenchmark.MAX_ERROR, "quiver vs vectorApi: " + quiverError);
            assertTrue(boxedError <= HaversineBenchmark.MAX_ERROR, "boxedUdf vs vectorApi: " + boxedError);
            for (int i = 0; i < batch.getRowCount(); i++) {
                if (hand.isNull(i)) {
                    continue;
                }
                double lat1 = ((Float8Vector) batch.getVector(0)).get(i),
                        lon1 = ((Float8Vector) batch.getVector(1)).get(i);
                double lat2 = ((Float8Vector) batch.getVector(2)).get(i),
                        lon2 = ((Float8Vector) batch.getVector(3)).get(i);
                double expected = Haversine.scalar(lat1, lon1, lat2, lon2);
                assertEquals(expected, hand.get(i), 1e-9 * Math.max(1, expected), "row " + i);
            }
        }
    }
}
