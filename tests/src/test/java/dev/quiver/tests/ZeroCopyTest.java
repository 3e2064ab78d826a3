package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.expr.Expr;
import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.TracedRun;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Zero copy is a property we test: views alias the Arrow buffers, and on a device that shares
 * host memory (PoCL) the OpenCL kernel reads and writes those very addresses with no copy.
 */
class ZeroCopyTest extends QuiverTestBase {
    private static final Schema XY = TestBatches.XY;

    private VectorSchemaRoot batch(int rows) {
        VectorSchemaRoot root = TestBatches.xy(allocator, rows, i -> 3.0 * i, i -> 4.0 * i);
        ((Float8Vector) root.getVector("x")).setNull(5);
        return root;
    }

    @Test
    void viewsAliasTheVectorsOwnMemoryBothWays() {
        try (VectorSchemaRoot b = batch(100);
                VectorView view = VectorView.of(b.getVector("x"))) {
            Float8Vector x = (Float8Vector) b.getVector("x");
            assertEquals(x.getDataBuffer().memoryAddress(), view.data().address());
            assertEquals(x.getValidityBuffer().memoryAddress(), view.validity().address());
            view.data().setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, 7, 42.5);
            assertEquals(42.5, x.get(7));
            x.set(8, -1.25);
            assertEquals(-1.25, view.data().getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, 8));
            assertFalse(ValidityBitmaps.isValid(view.validity(), 5));
            assertTrue(ValidityBitmaps.isValid(view.validity(), 6));
            // Bounds-checked: exactly the value count, no further.
            assertEquals(800, view.data().byteSize());
            assertThrows(
                    IndexOutOfBoundsException.class,
                    () -> view.data().getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, 100));
        }
    }

    @Test
    void aViewCannotBeUsedAfterItIsClosed() {
        try (VectorSchemaRoot b = batch(10)) {
            VectorView view = VectorView.of(b.getVector("x"));
            var data = view.data();
            view.close();
            assertThrows(IllegalStateException.class, () -> data.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
        }
    }

    @Test
    void theOpenClKernelReadsAndWritesTheArrowBuffersInPlace() {
        OpenClAvailability.requireOpenCl(quiver);
        List<Device> shared = quiver.openClDevices().stream()
                .filter(d -> d.backend()
                        .unwrap(OpenClBackend.class)
                        .orElseThrow()
                        .device()
                        .hostUnifiedMemory())
                .toList();
        if (shared.isEmpty()) {
            // A discrete GPU: its path copies once each way, and says so in the byte count.
            Device d = quiver.openClDevices().getFirst();
            CompiledExpression e = quiver.compile(XY, Expr.parse("sqrt(x*x + y*y)"));
            try (VectorSchemaRoot b = batch(1000);
                    FieldVector out = e.evaluate(b, d, allocator)) {
                assertEquals(5.0 * 999, ((Float8Vector) out).get(999));
                assertEquals(1000L * 8 * 3, e.metrics().bytesCopied());
            }
            return;
        }
        for (Device d : shared) {
            OpenClBackend backend = d.backend().unwrap(OpenClBackend.class).orElseThrow();
            CompiledExpression e = quiver.compile(XY, Expr.parse("sqrt(x*x + y*y)"));
            int rows = 10_000;
            try (VectorSchemaRoot b = batch(rows);
                    FieldVector out = OutputVectors.uninitialized(e.outputField(), rows, allocator);
                    VectorView x = VectorView.of(b.getVector("x"));
                    VectorView y = VectorView.of(b.getVector("y"));
                    VectorView o = VectorView.of(out)) {
                ValidityBitmaps.and(o.validity(), List.of(x.validity(), y.validity()), rows);
                TracedRun run = backend.executeTraced(
                        e.program(), new KernelInvocation(List.of(x.data(), y.data()), o.validity(), o.data(), rows));
                assertEquals(0, run.run().bytesCopied(), d.name());
                assertEquals(
                        List.of(
                                ((Float8Vector) b.getVector("x"))
                                        .getDataBuffer()
                                        .memoryAddress(),
                                ((Float8Vector) b.getVector("y"))
                                        .getDataBuffer()
                                        .memoryAddress(),
                                ((Float8Vector) out).getDataBuffer().memoryAddress()),
                        run.hostPointers(),
                        d.name());
                assertEquals(((Float8Vector) out).getDataBuffer().memoryAddress(), run.mappedOutputAddress(), d.name());
                Float8Vector r = (Float8Vector) out;
                assertTrue(r.isNull(5));
                assertEquals(5.0 * 9_999, r.get(9_999));
                assertEquals(5.0 * 6, r.get(6));
            }
            // Through the public API: the per-batch count of copied bytes is zero on this device.
            try (VectorSchemaRoot b = batch(rows);
                    FieldVector out = e.evaluate(b, d, allocator)) {
                assertEquals(5.0 * 1234, ((Float8Vector) out).get(1234));
                assertEquals(0, e.metrics().bytesCopied());
                assertEquals(1, e.metrics().byDevice().get(d.name()).batches());
            }
        }
    }
}
