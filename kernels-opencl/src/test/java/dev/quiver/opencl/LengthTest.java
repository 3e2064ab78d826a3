package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.assertFloat64;
import static dev.quiver.opencl.Batches.assertInt32;
import static dev.quiver.opencl.Batches.float64;
import static dev.quiver.opencl.Batches.int32;
import static dev.quiver.opencl.Batches.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.List;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

/** Batch lengths that are not a multiple of any work-group size, and the empty batch. */
class LengthTest extends DeviceTestBase {
    private static final int[] LENGTHS = {0, 1, 7, 1_000_003};

    @OnEveryDevice
    void float64Hypotenuse(OpenClBackend backend) {
        IrNode x = Ir.arg(0, ElementType.FLOAT64);
        IrNode y = Ir.arg(1, ElementType.FLOAT64);
        KernelProgram program = new KernelProgram(
                List.of(ElementType.FLOAT64, ElementType.FLOAT64), Ir.sqrt(Ir.add(Ir.mul(x, x), Ir.mul(y, y))));
        for (int rows : LENGTHS) {
            double[] a = new double[rows];
            double[] b = new double[rows];
            for (int i = 0; i < rows; i++) {
                a[i] = Hostile.DOUBLES[i % Hostile.DOUBLES.length] + i;
                b[i] = Hostile.DOUBLES[(i / 7) % Hostile.DOUBLES.length] - i * 0.5;
            }
            try (Float8Vector va = float64(allocator, a);
                    Float8Vector vb = float64(allocator, b);
                    var out = run(backend, allocator, program, va, vb)) {
                assertEquals(rows, out.vector().getValueCount());
                assertFloat64(
                        out.vector(),
                        i -> Math.sqrt(a[i] * a[i] + b[i] * b[i]),
                        program.text() + " over " + rows + " rows");
                if (rows == 0) {
                    assertEquals(0, out.trace().run().bytesCopied());
                }
            }
        }
    }

    @OnEveryDevice
    void int32WrappingFma(OpenClBackend backend) {
        IrNode x = Ir.arg(0, ElementType.INT32);
        KernelProgram program = new KernelProgram(List.of(ElementType.INT32), Ir.fma(x, Ir.lit(1_000_003), Ir.lit(-7)));
        for (int rows : LENGTHS) {
            int[] a = new int[rows];
            for (int i = 0; i < rows; i++) {
                a[i] = i * 2_654_435_761L > 0 ? (int) (i * 2_654_435_761L) : -i;
            }
            try (IntVector va = int32(allocator, a);
                    var out = run(backend, allocator, program, va)) {
                assertEquals(rows, out.vector().getValueCount());
                assertInt32(out.vector(), i -> a[i] * 1_000_003 - 7, program.text() + " over " + rows + " rows");
            }
        }
    }
}
