package dev.quiver.tests;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.types.ElementType;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which device each placement picks, why, and that the metrics and explain output say so. */
class PlacementTest extends QuiverTestBase {
    private static final Schema XY = new Schema(List.of(TestBatches.field("x", ElementType.FLOAT64),
            TestBatches.field("y", ElementType.FLOAT64)));


    @Test
    void openClPlacementRunsOnOpenClAndTheMetricsAndExplainSaySo() {
        OpenClAvailability.requireOpenCl(quiver);
        CompiledExpression e = quiver.compile(XY, Expr.parse("x*y + 1"));
        Device chosen = e.choose(Placement.OPENCL, 10).device();
        assertTrue(chosen.isOpenCl());
        try (VectorSchemaRoot b = VectorSchemaRoot.create(XY, allocator)) {
            Float8Vector x = (Float8Vector) b.getVector("x"), y = (Float8Vector) b.getVector("y");
            x.allocateNew(3);
            y.allocateNew(3);
            for (int i = 0; i < 3; i++) {
                x.set(i, i);
                y.set(i, 10);
            }
            b.setRowCount(3);
            try (FieldVector a = e.evaluate(b, Placement.OPENCL); FieldVector c = e.evaluate(b, Placement.CPU)) {
                assertEquals(21.0, ((Float8Vector) a).get(2));
                assertEquals(21.0, ((Float8Vector) c).get(2));
            }
        }
        assertEquals(1, e.metrics().byDevice().get(chosen.name()).batches());
        assertEquals(1, e.metrics().byDevice().get("cpu").batches());
        assertEquals("placement OPENCL", e.metrics().byDevice().get(chosen.name()).lastReason());
        String explain = e.explain();
        assertTrue(explain.contains("kernel segment ((x * y) + 1.0) as (($0 * $1) + 1.0) [dense] -> Float64"), explain);
        assertTrue(explain.contains("ran on " + chosen.name() + ": 1 batches, 3 rows"), explain);
        assertTrue(explain.contains("ran on cpu: 1 batches, 3 rows"), explain);
    }
}
