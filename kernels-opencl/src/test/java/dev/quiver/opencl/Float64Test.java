package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.assertFloat64;
import static dev.quiver.opencl.Batches.float64;
import static dev.quiver.opencl.Batches.run;
import static dev.quiver.opencl.Batches.withNulls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.DoubleBinaryOperator;
import java.util.stream.IntStream;
import org.apache.arrow.vector.Float8Vector;

/** Float64 programs on every hostile combination of operands, bit for bit against Java. */
class Float64Test extends DeviceTestBase {
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final IrNode Y = Ir.arg(1, ElementType.FLOAT64);
    private static final IrNode Z = Ir.arg(2, ElementType.FLOAT64);
    private static final List<ElementType> F64X3 =
            List.of(ElementType.FLOAT64, ElementType.FLOAT64, ElementType.FLOAT64);
    private static final List<ElementType> F64X2 = List.of(ElementType.FLOAT64, ElementType.FLOAT64);

    @OnEveryDevice
    void multiplyThenAddRoundsTwice(OpenClBackend backend) {
        double[][] c = Hostile.combinations(Hostile.DOUBLES, 3);
        boolean contractionWouldShow = false;
        for (int i = 0; i < c[0].length; i++) {
            contractionWouldShow |=
                    Double.compare(c[0][i] * c[1][i] + c[2][i], Math.fma(c[0][i], c[1][i], c[2][i])) != 0;
        }
        assertTrue(contractionWouldShow, "the inputs must tell a*b+c from fma(a, b, c)");
        KernelProgram program = new KernelProgram(F64X3, Ir.add(Ir.mul(X, Y), Z));
        try (Float8Vector a = float64(allocator, c[0]);
                Float8Vector b = float64(allocator, c[1]);
                Float8Vector d = float64(allocator, c[2]);
                var out = run(backend, allocator, program, a, b, d)) {
            assertFloat64(out.vector(), i -> c[0][i] * c[1][i] + c[2][i], program.text());
        }
    }

    @OnEveryDevice
    void fmaRoundsOnce(OpenClBackend backend) {
        double[][] c = Hostile.combinations(Hostile.DOUBLES, 3);
        KernelProgram program = new KernelProgram(F64X3, Ir.fma(X, Y, Z));
        try (Float8Vector a = float64(allocator, c[0]);
                Float8Vector b = float64(allocator, c[1]);
                Float8Vector d = float64(allocator, c[2]);
                var out = run(backend, allocator, program, a, b, d)) {
            assertFloat64(out.vector(), i -> Math.fma(c[0][i], c[1][i], c[2][i]), program.text());
        }
    }

    @OnEveryDevice
    void hypotenuse(OpenClBackend backend) {
        double[][] c = Hostile.combinations(Hostile.DOUBLES, 2);
        KernelProgram program = new KernelProgram(F64X2, Ir.sqrt(Ir.add(Ir.mul(X, X), Ir.mul(Y, Y))));
        try (Float8Vector x = float64(allocator, c[0]);
                Float8Vector y = float64(allocator, c[1]);
                var out = run(backend, allocator, program, x, y)) {
            assertFloat64(out.vector(), i -> Math.sqrt(c[0][i] * c[0][i] + c[1][i] * c[1][i]), program.text());
        }
    }

    @OnEveryDevice
    void arithmetic(OpenClBackend backend) {
        double[][] c = Hostile.combinations(Hostile.DOUBLES, 2);
        record Case(IrNode node, DoubleBinaryOperator java) {}
        List<Case> cases = List.of(
                new Case(Ir.sub(X, Y), (a, b) -> a - b),
                new Case(Ir.div(X, Y), (a, b) -> a / b),
                new Case(Ir.min(X, Y), Math::min),
                new Case(Ir.max(X, Y), Math::max),
                new Case(Ir.neg(X), (a, b) -> -a),
                new Case(Ir.abs(Ir.sub(Y, X)), (a, b) -> Math.abs(b - a)),
                new Case(Ir.min(Ir.neg(X), Ir.max(X, Y)), (a, b) -> Math.min(-a, Math.max(a, b))));
        for (Case k : cases) {
            KernelProgram program = new KernelProgram(F64X2, k.node());
            try (Float8Vector x = float64(allocator, c[0]);
                    Float8Vector y = float64(allocator, c[1]);
                    var out = run(backend, allocator, program, x, y)) {
                assertFloat64(out.vector(), i -> k.java().applyAsDouble(c[0][i], c[1][i]), program.text());
            }
        }
    }

    @OnEveryDevice
    void minAndMaxOrderZerosAndPropagateNaN(OpenClBackend backend) {
        double[] a = {-0.0, 0.0, 0.0, -0.0, Double.NaN, 1.0, Double.NaN, -0.0};
        double[] b = {0.0, -0.0, 0.0, -0.0, 1.0, Double.NaN, Double.NaN, Double.NEGATIVE_INFINITY};
        for (boolean min : new boolean[] {true, false}) {
            KernelProgram program = new KernelProgram(F64X2, min ? Ir.min(X, Y) : Ir.max(X, Y));
            try (Float8Vector x = float64(allocator, a);
                    Float8Vector y = float64(allocator, b);
                    var out = run(backend, allocator, program, x, y)) {
                Float8Vector v = (Float8Vector) out.vector();
                for (int i = 0; i < a.length; i++) {
                    double want = min ? Math.min(a[i], b[i]) : Math.max(a[i], b[i]);
                    assertEquals(
                            Double.doubleToLongBits(want),
                            Double.doubleToLongBits(v.get(i)),
                            program.text() + " at row " + i);
                }
                // Spelled out, not just "as Java": the cases OpenCL's fmin/fmax get wrong.
                assertEquals(Double.doubleToRawLongBits(min ? -0.0 : 0.0), Double.doubleToRawLongBits(v.get(0)));
                assertTrue(Double.isNaN(v.get(4)) && Double.isNaN(v.get(5)), program.text() + " must propagate NaN");
            }
        }
    }

    @OnEveryDevice
    void literalsArePassedInAndShareOneBuild(OpenClBackend backend) {
        double[] xs = Hostile.DOUBLES;
        int before = backend.compiledPrograms();
        for (double literal : new double[] {2.5, -0.0, Double.NaN, Double.MIN_VALUE, 1e300}) {
            KernelProgram program = new KernelProgram(
                    List.of(ElementType.FLOAT64), Ir.add(Ir.mul(X, Ir.lit(literal)), Ir.lit(-literal)));
            try (Float8Vector x = float64(allocator, xs);
                    var out = run(backend, allocator, program, x)) {
                assertFloat64(out.vector(), i -> xs[i] * literal + -literal, program.text());
            }
        }
        assertEquals(before + 1, backend.compiledPrograms(), "programs differing only in literals share one build");
    }

    @OnEveryDevice
    void nullRowsDoNotDisturbValidOnes(OpenClBackend backend) {
        double[] a = {1.5, Double.NaN, 3.0, -0.0, 7.0};
        double[] b = {2.0, 4.0, Double.NaN, 0.0, -1.0};
        KernelProgram program = new KernelProgram(F64X2, Ir.div(X, Y));
        try (Float8Vector x = withNulls(float64(allocator, a), 1);
                Float8Vector y = withNulls(float64(allocator, b), 2, 4);
                var out = run(backend, allocator, program, x, y)) {
            Float8Vector v = (Float8Vector) out.vector();
            assertEquals(
                    List.of(false, true, true, false, true),
                    IntStream.range(0, 5).mapToObj(v::isNull).toList());
            assertFloat64(v, i -> a[i] / b[i], program.text());
        }
    }

    @OnEveryDevice
    void randomBits(OpenClBackend backend) {
        long seed = Long.getLong("quiver.seed", System.nanoTime());
        System.out.println("Float64Test.randomBits seed " + seed + " (replay with -Dquiver.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        int rows = 100_003;
        double[][] c = new double[3][rows];
        for (double[] column : c) {
            for (int i = 0; i < rows; i++) {
                // Half arbitrary bit patterns (all classes of value), half ordinary magnitudes.
                column[i] = random.nextBoolean()
                        ? Double.longBitsToDouble(random.nextLong())
                        : (random.nextDouble() - 0.5) * Math.scalb(1.0, random.nextInt(-40, 40));
            }
        }
        IrNode node =
                Ir.div(Ir.sub(Ir.mul(X, Y), Ir.fma(Z, Ir.lit(0.75), X)), Ir.sqrt(Ir.abs(Ir.max(Y, Ir.min(Z, X)))));
        KernelProgram program = new KernelProgram(F64X3, node);
        try (Float8Vector a = float64(allocator, c[0]);
                Float8Vector b = float64(allocator, c[1]);
                Float8Vector d = float64(allocator, c[2]);
                var out = run(backend, allocator, program, a, b, d)) {
            assertFloat64(
                    out.vector(),
                    i -> {
                        double x = c[0][i], y = c[1][i], z = c[2][i];
                        return (x * y - Math.fma(z, 0.75, x)) / Math.sqrt(Math.abs(Math.max(y, Math.min(z, x))));
                    },
                    program.text() + " (seed " + seed + ")");
        }
    }
}
