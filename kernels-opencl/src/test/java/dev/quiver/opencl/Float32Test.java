package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.assertFloat32;
import static dev.quiver.opencl.Batches.float32;
import static dev.quiver.opencl.Batches.run;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.util.List;
import java.util.function.BinaryOperator;
import org.apache.arrow.vector.Float4Vector;

/** Float32 programs: single rounding per operation, correctly rounded division and square root. */
class Float32Test extends DeviceTestBase {
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT32);
    private static final IrNode Y = Ir.arg(1, ElementType.FLOAT32);
    private static final IrNode Z = Ir.arg(2, ElementType.FLOAT32);

    private record Case(IrNode node, BinaryOperator<Float> java) {}

    @OnEveryDevice
    void binaryAndUnaryOperations(OpenClBackend backend) {
        float[][] c = Hostile.combinations(Hostile.FLOATS, 2);
        List<Case> cases = List.of(
                new Case(Ir.add(X, Y), (a, b) -> a + b),
                new Case(Ir.sub(X, Y), (a, b) -> a - b),
                new Case(Ir.mul(X, Y), (a, b) -> a * b),
                new Case(Ir.div(X, Y), (a, b) -> a / b),
                new Case(Ir.min(X, Y), Math::min),
                new Case(Ir.max(X, Y), Math::max),
                new Case(Ir.neg(X), (a, b) -> -a),
                new Case(Ir.abs(X), (a, b) -> Math.abs(a)),
                // (float) Math.sqrt is the correctly rounded float square root (53 >= 2 * 24 + 2 bits).
                new Case(Ir.sqrt(Ir.add(Ir.mul(X, X), Ir.mul(Y, Y))), (a, b) -> (float) Math.sqrt(a * a + b * b)),
                new Case(Ir.mul(X, Ir.lit(0.1f)), (a, b) -> a * 0.1f));
        for (Case k : cases) {
            KernelProgram program = new KernelProgram(List.of(ElementType.FLOAT32, ElementType.FLOAT32), k.node());
            boolean dividesOrRoots = program.anyNode(n -> n instanceof IrNode.Binary b && b.op() == BinaryOp.DIV
                    || n instanceof IrNode.Unary u && u.op() == UnaryOp.SQRT);
            if (dividesOrRoots && !backend.device().fp32CorrectlyRoundedDivideSqrt()) {
                // Such a device must refuse rather than round differently from Java.
                assertTrue(backend.unsupportedReason(program).orElseThrow().contains("correctly rounded"));
                continue;
            }
            try (Float4Vector a = float32(allocator, c[0]);
                    Float4Vector b = float32(allocator, c[1]);
                    var out = run(backend, allocator, program, a, b)) {
                assertFloat32(out.vector(), i -> k.java().apply(c[0][i], c[1][i]), program.text());
            }
        }
    }

    @OnEveryDevice
    void multiplyAddAndFma(OpenClBackend backend) {
        float[][] c = Hostile.combinations(Hostile.FLOATS, 3);
        List<ElementType> types = List.of(ElementType.FLOAT32, ElementType.FLOAT32, ElementType.FLOAT32);
        KernelProgram unfused = new KernelProgram(types, Ir.add(Ir.mul(X, Y), Z));
        KernelProgram fused = new KernelProgram(types, Ir.fma(X, Y, Z));
        try (Float4Vector a = float32(allocator, c[0]);
                Float4Vector b = float32(allocator, c[1]);
                Float4Vector d = float32(allocator, c[2]);
                var twice = run(backend, allocator, unfused, a, b, d);
                var once = run(backend, allocator, fused, a, b, d)) {
            assertFloat32(twice.vector(), i -> c[0][i] * c[1][i] + c[2][i], unfused.text());
            assertFloat32(once.vector(), i -> Math.fma(c[0][i], c[1][i], c[2][i]), fused.text());
        }
    }
}
