package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Quiver;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** The README's Java example, as written there, over real batches. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRunsAsWritten() {
        Schema schema = new Schema(List.of(
                TestBatches.field("x", ElementType.FLOAT64),
                TestBatches.field("y", ElementType.FLOAT64),
                DataType.UTF8.toField("name", true)));
        List<Boolean> results = new ArrayList<>();
        Consumer<FieldVector> sink = v -> {
            for (int i = 0; i < v.getValueCount(); i++) {
                results.add(((BitVector) v).getObject(i));
            }
        };
        String explain;
        try (var allocator = new RootAllocator()) {
            List<VectorSchemaRoot> batches = List.of(batch(allocator, schema, 3, 4), batch(allocator, schema, 5, 12));
            // --- as in README.md ---
            try (var quiver = Quiver.builder().allocator(allocator).build()) { // finds CPU + OpenCL devices
                CompiledExpression r = quiver.compile(
                        schema, // once per query
                        "sqrt(x*x + y*y) > 2 AND name LIKE 'a%'");
                for (VectorSchemaRoot batch : batches) {
                    try (FieldVector out = r.evaluate(batch)) { // per batch; you close the result
                        sink.accept(out);
                    }
                }
                explain = r.explain(); // both plans, devices, what ran where
            }
            // ---
            batches.forEach(VectorSchemaRoot::close);
            assertEquals(0, allocator.getAllocatedMemory());
        }
        assertEquals(List.of(true, false, true, false), results);
        assertTrue(explain.contains("ran on cpu: 2 batches, 4 rows"), explain);
    }

    private static VectorSchemaRoot batch(RootAllocator allocator, Schema schema, double x, double y) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        Float8Vector vx = (Float8Vector) root.getVector("x"), vy = (Float8Vector) root.getVector("y");
        VarCharVector name = (VarCharVector) root.getVector("name");
        vx.allocateNew(2);
        vy.allocateNew(2);
        name.allocateNew(2);
        for (int i = 0; i < 2; i++) {
            vx.set(i, x);
            vy.set(i, y);
            name.setSafe(i, (i == 0 ? "apple" : "kiwi").getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(2);
        return root;
    }
}
