package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.assertFloat64;
import static dev.quiver.opencl.Batches.float64;
import static dev.quiver.opencl.Batches.int32;
import static dev.quiver.opencl.Batches.run;
import static dev.quiver.opencl.Batches.withNulls;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.List;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

/**
 * Zero copy is a property we test: on a device that shares host memory, the kernel's buffers
 * are the Arrow buffers themselves. Explicit copies give the same results and count their bytes.
 */
class TransferTest extends DeviceTestBase {
    private static final IrNode I = Ir.arg(0, ElementType.INT32);
    private static final IrNode X = Ir.arg(1, ElementType.FLOAT64);
    /** fma(cast($0), $1, $1): arguments of two widths, to check per-argument byte counts. */
    private static final KernelProgram PROGRAM =
            new KernelProgram(List.of(ElementType.INT32, ElementType.FLOAT64), Ir.fma(I, X, X));

    private static final int ROWS = 10_007;

    private static int[] ints() {
        int[] v = new int[ROWS];
        for (int i = 0; i < ROWS; i++) {
            v[i] = Hostile.INTS[i % Hostile.INTS.length] ^ i;
        }
        return v;
    }

    private static double[] doubles() {
        double[] v = new double[ROWS];
        for (int i = 0; i < ROWS; i++) {
            v[i] = Hostile.DOUBLES[i % Hostile.DOUBLES.length] * (i + 1);
        }
        return v;
    }

    @OnEveryDevice
    void autoModeFollowsTheDevice(OpenClBackend shared) {
        try (OpenClBackend backend = OpenClBackend.open(shared.device())) {
            assertEquals(
                    backend.device().hostUnifiedMemory() ? TransferMode.ZERO_COPY : TransferMode.COPY,
                    backend.transferMode());
        }
    }

    @OnEveryDevice
    void zeroCopyWorksOnTheArrowMemoryItself(OpenClBackend shared) {
        int[] a = ints();
        double[] b = doubles();
        try (OpenClBackend backend = OpenClBackend.open(shared.device(), TransferMode.ZERO_COPY);
                IntVector va = withNulls(int32(allocator, a), 3);
                Float8Vector vb = float64(allocator, b);
                Float8Vector out = new Float8Vector("out", allocator)) {
            out.allocateNew(ROWS);
            out.setValueCount(ROWS);
            try (VectorView ia = VectorView.of(va);
                    VectorView xb = VectorView.of(vb);
                    VectorView o = VectorView.of(out)) {
                ValidityBitmaps.and(o.validity(), List.of(ia.validity(), xb.validity()), ROWS);
                TracedRun traced = backend.executeTraced(
                        PROGRAM, new KernelInvocation(List.of(ia.data(), xb.data()), o.validity(), o.data(), ROWS));
                assertEquals(0, traced.run().bytesToDevice());
                assertEquals(0, traced.run().bytesFromDevice());
                assertEquals(
                        List.of(
                                ia.data().address(),
                                xb.data().address(),
                                o.data().address()),
                        traced.hostPointers(),
                        "the buffers must be the Arrow buffers");
                if (backend.device().hostUnifiedMemory()) {
                    // Shared memory: the output maps onto itself, so nothing was copied back.
                    assertEquals(
                            o.data().address(),
                            traced.mappedOutputAddress(),
                            "the output must map onto the Arrow buffer");
                }
            }
            assertEquals(1, out.getNullCount());
            assertFloat64(out, i -> Math.fma(a[i], b[i], b[i]), PROGRAM.text());
        }
    }

    @OnEveryDevice
    void copyModeComputesTheSameAndCountsBytes(OpenClBackend autoMode) {
        int[] a = ints();
        double[] b = doubles();
        long validityBytes = VectorView.validityBytes(ROWS);
        for (RowMode rowMode : RowMode.values()) {
            try (OpenClBackend copying = OpenClBackend.open(autoMode.device(), TransferMode.COPY);
                    IntVector va = int32(allocator, a);
                    Float8Vector vb = withNulls(float64(allocator, b), 0, ROWS - 1);
                    var copied = run(copying, allocator, PROGRAM, ROWS, rowMode, va, vb);
                    var reference = run(autoMode, allocator, PROGRAM, ROWS, rowMode, va, vb)) {
                assertEquals(TransferMode.COPY, copying.transferMode());
                // VALID_ROWS also sends the validity, which says which rows to compute; ALL_ROWS needs none.
                assertEquals(
                        (long) ROWS * (Integer.BYTES + Double.BYTES)
                                + (rowMode == RowMode.VALID_ROWS ? validityBytes : 0),
                        copied.trace().run().bytesToDevice(),
                        rowMode.toString());
                assertEquals((long) ROWS * Double.BYTES, copied.trace().run().bytesFromDevice());
                assertEquals(List.of(0L, 0L, 0L), copied.trace().hostPointers(), "device buffers have no host memory");
                assertEquals(0, copied.trace().mappedOutputAddress());
                assertEquals(copying.name(), copied.trace().run().backend());
                assertEquals(
                        rowMode == RowMode.VALID_ROWS ? ROWS - 2 : ROWS,
                        copied.trace().run().rowsComputed());
                Float8Vector want = (Float8Vector) reference.vector();
                assertFloat64(copied.vector(), want::get, PROGRAM.text() + " copied vs " + autoMode.transferMode());
                assertFloat64(copied.vector(), i -> Math.fma(a[i], b[i], b[i]), PROGRAM.text());
                assertEquals(2, copied.vector().getNullCount());
            }
        }
    }

    /**
     * Where the kernel really reads and writes, which the host-pointer checks above cannot tell
     * (the spec has a USE_HOST_PTR buffer report its host pointer even where the driver copies):
     * an input changed after the buffers are bound must reach the kernel, and the result must be
     * in the Arrow output before anything is mapped or read back. The same probes on the COPY
     * path see the opposite, which shows they can tell the two apart.
     */
    @OnEveryDevice
    void theKernelReadsAndWritesTheArrowBuffersThemselves(OpenClBackend shared) {
        if (!shared.device().hostUnifiedMemory()) {
            return; // a discrete device copies by design; the COPY half below still runs on PoCL
        }
        KernelProgram twice =
                new KernelProgram(List.of(ElementType.FLOAT64), Ir.mul(Ir.arg(0, ElementType.FLOAT64), Ir.lit(2.0)));
        for (TransferMode mode : List.of(TransferMode.ZERO_COPY, TransferMode.COPY)) {
            double[] x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
            try (OpenClBackend backend = OpenClBackend.open(shared.device(), mode);
                    Float8Vector vx = float64(allocator, x);
                    Float8Vector out = new Float8Vector("out", allocator)) {
                out.allocateNew(x.length);
                out.setValueCount(x.length);
                double[] seenBeforeReadBack = new double[1];
                try (VectorView in = VectorView.of(vx);
                        VectorView o = VectorView.of(out)) {
                    ValidityBitmaps.and(o.validity(), List.of(), x.length);
                    backend.executeProbed(
                            twice,
                            new KernelInvocation(List.of(in.data()), o.validity(), o.data(), x.length),
                            new RunProbes(
                                    () -> vx.set(3, 100.0), // after binding, before the kernel
                                    () -> seenBeforeReadBack[0] = out.get(3))); // after the kernel, before map/read
                }
                if (mode == TransferMode.ZERO_COPY) {
                    assertEquals(200.0, seenBeforeReadBack[0], "the kernel wrote the Arrow output in place");
                    assertEquals(200.0, out.get(3), "the kernel read the Arrow input in place");
                } else {
                    assertEquals(0.0, seenBeforeReadBack[0], "COPY: the output arrives only with the read-back");
                    assertEquals(8.0, out.get(3), "COPY: the kernel read the copy made before the change");
                }
            }
        }
    }
}
