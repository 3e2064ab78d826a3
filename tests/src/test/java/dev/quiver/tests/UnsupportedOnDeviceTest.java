package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.cpu.CpuBackend;
import dev.quiver.errors.QuiverException;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.DataType;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * A segment a device cannot compute exactly runs on the CPU under AUTO placement, and EXPLAIN
 * says why; an explicit OPENCL placement fails with the reason. The device is a GPU that cannot
 * compute {@code sin} (and runs everything else on the CPU backend, counting its runs).
 */
class UnsupportedOnDeviceTest {

    static final class NoSinGpu implements KernelBackend {
        final CpuBackend delegate = new CpuBackend();
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public String name() {
            return "opencl:no-sin-gpu";
        }

        @Override
        public Optional<String> unsupportedReason(KernelProgram program) {
            return program.anyNode(n -> n instanceof IrNode.Unary u && u.op() == UnaryOp.SIN)
                    ? Optional.of(program.text() + " uses sin, which no-sin-gpu does not compute within its bound")
                    : Optional.empty();
        }

        @Override
        public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
            if (unsupportedReason(program).isPresent()) {
                throw new AssertionError("ran an unsupported program: " + program);
            }
            runs.incrementAndGet();
            return delegate.execute(program, invocation);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    @Test
    void aSegmentTheGpuCannotRunRunsOnTheCpuAndExplainSaysWhy() {
        NoSinGpu gpu = new NoSinGpu();
        int rows = 1 << 20;
        try (BufferAllocator allocator = new RootAllocator();
                Quiver quiver = Quiver.builder()
                        .allocator(allocator)
                        .openCl(false)
                        .deviceFigures("cpu", TestFigures.cpu())
                        .deviceFigures("opencl:no-sin-gpu", TestFigures.fastGpu())
                        .addDevice(
                                new Device("opencl:no-sin-gpu", Device.Kind.OPENCL_GPU, "a test GPU without sin", gpu))
                        .build()) {
            Schema schema = new Schema(List.of(DataType.FLOAT64.toField("x", true)));
            CompiledExpression withSin = quiver.compile(schema, "sin(x) * 2");
            CompiledExpression plain = quiver.compile(schema, "x * 2 + 1");
            try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
                Float8Vector x = (Float8Vector) batch.getVector(0);
                x.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    x.set(i, i * 1e-3);
                }
                batch.setRowCount(rows);
                try (FieldVector out = withSin.evaluate(batch, Placement.AUTO)) {
                    assertEquals(StrictMath.sin(12.345) * 2, ((Float8Vector) out).get(12345), 1e-15);
                }
                assertEquals(0, gpu.runs.get(), "sin ran on the CPU");
                String explain = withSin.explain();
                assertTrue(
                        explain.contains("opencl:no-sin-gpu: cannot run: sin(x) * 2")
                                || explain.contains("uses sin, which no-sin-gpu does not compute"),
                        explain);
                assertTrue(explain.contains("cpu"), explain);
                QuiverException e =
                        assertThrows(QuiverException.class, () -> withSin.evaluate(batch, Placement.OPENCL));
                assertTrue(
                        e.getMessage().contains("uses sin, which no-sin-gpu does not compute within its bound"),
                        e.getMessage());
                try (FieldVector out = plain.evaluate(batch, Placement.AUTO)) {
                    assertEquals(12.345 * 2 + 1, ((Float8Vector) out).get(12345), 1e-12);
                }
                assertEquals(1, gpu.runs.get(), "the GPU ran what it can");
            }
            quiver.close();
            assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        }
    }
}
