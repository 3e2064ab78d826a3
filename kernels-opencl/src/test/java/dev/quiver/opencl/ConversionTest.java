package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.assertFloat32;
import static dev.quiver.opencl.Batches.assertFloat64;
import static dev.quiver.opencl.Batches.float32;
import static dev.quiver.opencl.Batches.float64;
import static dev.quiver.opencl.Batches.int32;
import static dev.quiver.opencl.Batches.int64;
import static dev.quiver.opencl.Batches.run;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

/** Widening casts round to nearest even, as Java's do, including inside mixed-type programs. */
class ConversionTest extends DeviceTestBase {

    private static long[] longs() {
        SplittableRandom random = new SplittableRandom(42);
        long[] values = new long[Hostile.LONGS.length + 1000];
        System.arraycopy(Hostile.LONGS, 0, values, 0, Hostile.LONGS.length);
        for (int i = Hostile.LONGS.length; i < values.length; i++) {
            values[i] = random.nextLong() >> random.nextInt(64);
        }
        return values;
    }

    private static int[] ints() {
        SplittableRandom random = new SplittableRandom(43);
        int[] values = new int[Hostile.INTS.length + 1000];
        System.arraycopy(Hostile.INTS, 0, values, 0, Hostile.INTS.length);
        for (int i = Hostile.INTS.length; i < values.length; i++) {
            values[i] = random.nextInt() >> random.nextInt(32);
        }
        return values;
    }

    @OnEveryDevice
    void int32ToFloat64(OpenClBackend backend) {
        int[] xs = ints();
        IrNode x = Ir.arg(0, ElementType.INT32);
        KernelProgram program =
                new KernelProgram(List.of(ElementType.INT32), Ir.mul(Ir.cast(x, ElementType.FLOAT64), Ir.lit(0.1)));
        try (IntVector a = int32(allocator, xs);
                var out = run(backend, allocator, program, a)) {
            assertFloat64(out.vector(), i -> (double) xs[i] * 0.1, program.text());
        }
    }

    @OnEveryDevice
    void int32ToFloat32(OpenClBackend backend) {
        int[] xs = ints();
        KernelProgram program = new KernelProgram(
                List.of(ElementType.INT32), Ir.cast(Ir.arg(0, ElementType.INT32), ElementType.FLOAT32));
        try (IntVector a = int32(allocator, xs);
                var out = run(backend, allocator, program, a)) {
            assertFloat32(out.vector(), i -> (float) xs[i], program.text());
        }
    }

    @OnEveryDevice
    void int64ToFloat32AndFloat64(OpenClBackend backend) {
        long[] xs = longs();
        IrNode x = Ir.arg(0, ElementType.INT64);
        KernelProgram toFloat = new KernelProgram(List.of(ElementType.INT64), Ir.cast(x, ElementType.FLOAT32));
        KernelProgram toDouble = new KernelProgram(List.of(ElementType.INT64), Ir.cast(x, ElementType.FLOAT64));
        try (BigIntVector a = int64(allocator, xs);
                var f = run(backend, allocator, toFloat, a);
                var d = run(backend, allocator, toDouble, a)) {
            assertFloat32(f.vector(), i -> (float) xs[i], toFloat.text());
            assertFloat64(d.vector(), i -> (double) xs[i], toDouble.text());
        }
    }

    @OnEveryDevice
    void float32ToFloat64IsExact(OpenClBackend backend) {
        float[] xs = Hostile.FLOATS;
        KernelProgram program = new KernelProgram(
                List.of(ElementType.FLOAT32), Ir.cast(Ir.arg(0, ElementType.FLOAT32), ElementType.FLOAT64));
        try (Float4Vector a = float32(allocator, xs);
                var out = run(backend, allocator, program, a)) {
            assertFloat64(out.vector(), i -> (double) xs[i], program.text());
        }
    }

    @OnEveryDevice
    void mixedTypesArePromoted(OpenClBackend backend) {
        int[] is = ints();
        double[] ds = new double[is.length];
        float[] fs = new float[is.length];
        for (int i = 0; i < is.length; i++) {
            ds[i] = Hostile.DOUBLES[i % Hostile.DOUBLES.length];
            fs[i] = Hostile.FLOATS[i % Hostile.FLOATS.length];
        }
        IrNode i32 = Ir.arg(0, ElementType.INT32);
        IrNode f32 = Ir.arg(1, ElementType.FLOAT32);
        IrNode f64 = Ir.arg(2, ElementType.FLOAT64);
        // (int + float) in FLOAT32, then with a double in FLOAT64.
        IrNode node = Ir.add(Ir.mul(i32, f32), f64);
        KernelProgram program =
                new KernelProgram(List.of(ElementType.INT32, ElementType.FLOAT32, ElementType.FLOAT64), node);
        try (IntVector a = int32(allocator, is);
                Float4Vector b = float32(allocator, fs);
                Float8Vector c = float64(allocator, ds);
                var out = run(backend, allocator, program, a, b, c)) {
            assertFloat64(out.vector(), i -> (double) ((float) is[i] * fs[i]) + ds[i], program.text());
        }
    }
}
