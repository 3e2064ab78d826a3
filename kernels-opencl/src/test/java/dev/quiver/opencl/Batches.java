package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

/** Arrow vectors in and out of a backend, and bitwise comparisons against Java's own arithmetic. */
final class Batches {
    private Batches() {}

    /** The output of one run; closing it frees the output vector. */
    record Output(FieldVector vector, TracedRun trace) implements AutoCloseable {
        @Override
        public void close() {
            vector.close();
        }
    }

    static Float8Vector float64(BufferAllocator allocator, double... values) {
        Float8Vector v = new Float8Vector("f64", allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            v.set(i, values[i]);
        }
        v.setValueCount(values.length);
        return v;
    }

    static Float4Vector float32(BufferAllocator allocator, float... values) {
        Float4Vector v = new Float4Vector("f32", allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            v.set(i, values[i]);
        }
        v.setValueCount(values.length);
        return v;
    }

    static IntVector int32(BufferAllocator allocator, int... values) {
        IntVector v = new IntVector("i32", allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            v.set(i, values[i]);
        }
        v.setValueCount(values.length);
        return v;
    }

    static BigIntVector int64(BufferAllocator allocator, long... values) {
        BigIntVector v = new BigIntVector("i64", allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            v.set(i, values[i]);
        }
        v.setValueCount(values.length);
        return v;
    }

    /** Marks rows null, leaving their values behind as garbage the kernel still reads. */
    static <V extends BaseFixedWidthVector> V withNulls(V vector, int... rows) {
        for (int row : rows) {
            vector.setNull(row);
        }
        return vector;
    }

    /** Runs {@code program} over {@code args}, all of one length; the caller closes the output. */
    static Output run(OpenClBackend backend, BufferAllocator allocator, KernelProgram program, FieldVector... args) {
        return run(backend, allocator, program, args[0].getValueCount(), args);
    }

    static Output run(
            OpenClBackend backend, BufferAllocator allocator, KernelProgram program, int rows, FieldVector... args) {
        return run(backend, allocator, program, rows, RowMode.VALID_ROWS, args);
    }

    static Output run(
            OpenClBackend backend,
            BufferAllocator allocator,
            KernelProgram program,
            int rows,
            RowMode mode,
            FieldVector... args) {
        return run(allocator, program, rows, mode, invocation -> backend.executeTraced(program, invocation), args);
    }

    /** As {@link #run(OpenClBackend, BufferAllocator, KernelProgram, FieldVector...)}, calling {@code probes} during the run. */
    static Output runProbed(
            OpenClBackend backend,
            BufferAllocator allocator,
            KernelProgram program,
            RunProbes probes,
            FieldVector... args) {
        return run(
                allocator,
                program,
                args[0].getValueCount(),
                RowMode.VALID_ROWS,
                invocation -> backend.executeProbed(program, invocation, probes),
                args);
    }

    private static Output run(
            BufferAllocator allocator,
            KernelProgram program,
            int rows,
            RowMode mode,
            Function<KernelInvocation, TracedRun> execute,
            FieldVector... args) {
        BaseFixedWidthVector out = newVector(program.resultType(), allocator);
        try {
            out.allocateNew(rows);
            out.setValueCount(rows);
            List<VectorView> views = new ArrayList<>();
            try (VectorView outView = VectorView.of(out)) {
                for (FieldVector arg : args) {
                    views.add(VectorView.of(arg));
                }
                List<MemorySegment> data = views.stream().map(VectorView::data).toList();
                ValidityBitmaps.and(
                        outView.validity(),
                        views.stream().map(VectorView::validity).toList(),
                        rows);
                TracedRun trace =
                        execute.apply(new KernelInvocation(data, outView.validity(), outView.data(), rows, mode));
                return new Output(out, trace);
            } finally {
                views.forEach(VectorView::close);
            }
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    private static BaseFixedWidthVector newVector(ElementType type, BufferAllocator allocator) {
        return switch (type) {
            case INT32 -> new IntVector("out", allocator);
            case INT64 -> new BigIntVector("out", allocator);
            case FLOAT32 -> new Float4Vector("out", allocator);
            case FLOAT64 -> new Float8Vector("out", allocator);
            // VectorView has no data view of a BitVector; Boolean results are tested on raw memory (Differential).
            case BOOL -> throw new IllegalArgumentException("Batches runs numeric results only; see Differential");
        };
    }

    /** Every valid row of {@code out} holds exactly (bit for bit, any NaN equal to any NaN) {@code expected}. */
    static void assertFloat64(FieldVector out, IntFunction<Double> expected, String context) {
        Float8Vector v = (Float8Vector) out;
        for (int i = 0; i < v.getValueCount(); i++) {
            if (v.isNull(i)) {
                continue;
            }
            double want = expected.apply(i);
            double got = v.get(i);
            if (Double.doubleToLongBits(want) != Double.doubleToLongBits(got)) {
                assertEquals(hex(want), hex(got), context + ", row " + i);
            }
        }
    }

    static void assertFloat32(FieldVector out, IntFunction<Float> expected, String context) {
        Float4Vector v = (Float4Vector) out;
        for (int i = 0; i < v.getValueCount(); i++) {
            if (v.isNull(i)) {
                continue;
            }
            float want = expected.apply(i);
            float got = v.get(i);
            if (Float.floatToIntBits(want) != Float.floatToIntBits(got)) {
                assertEquals(hex(want), hex(got), context + ", row " + i);
            }
        }
    }

    static void assertInt32(FieldVector out, IntFunction<Integer> expected, String context) {
        IntVector v = (IntVector) out;
        for (int i = 0; i < v.getValueCount(); i++) {
            if (!v.isNull(i) && expected.apply(i) != v.get(i)) {
                assertEquals((int) expected.apply(i), v.get(i), context + ", row " + i);
            }
        }
    }

    static void assertInt64(FieldVector out, IntFunction<Long> expected, String context) {
        BigIntVector v = (BigIntVector) out;
        for (int i = 0; i < v.getValueCount(); i++) {
            if (!v.isNull(i) && expected.apply(i) != v.get(i)) {
                assertEquals((long) expected.apply(i), v.get(i), context + ", row " + i);
            }
        }
    }

    private static String hex(double d) {
        return d + " (" + Long.toHexString(Double.doubleToRawLongBits(d)) + ")";
    }

    private static String hex(float f) {
        return f + " (" + Integer.toHexString(Float.floatToRawIntBits(f)) + ")";
    }
}
