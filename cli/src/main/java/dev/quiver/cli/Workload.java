package dev.quiver.cli;

import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * A built-in benchmark workload: an expression over float64 columns, with its two baselines
 * written by hand over the same Arrow memory: a per-row {@code Float8Vector.get/set} loop and a
 * hand-written Vector API loop. Both produce the same output vector Quiver does (same
 * allocator, validity = AND of the inputs'); the Vector API loop also allocates it as Quiver
 * does (uninitialized, see {@link OutputVectors}), so that comparison is kernel against kernel.
 */
record Workload(String name, String expression, List<String> columns,
                BiFunction<VectorSchemaRoot, BufferAllocator, Float8Vector> rowLoop,
                BiFunction<VectorSchemaRoot, BufferAllocator, Float8Vector> vectorLoop) {

    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    static final Workload FMA_LIKE = new Workload("a*b+c", "a*b+c", List.of("a", "b", "c"),
            Workload::rowLoopAbc, Workload::vectorLoopAbc);
    static final Workload HYPOT = new Workload("sqrt(x*x+y*y)", "sqrt(x*x+y*y)", List.of("x", "y"),
            Workload::rowLoopHypot, Workload::vectorLoopHypot);
    static final List<Workload> ALL = List.of(FMA_LIKE, HYPOT);

    private static Float8Vector vec(VectorSchemaRoot b, String name) {
        return (Float8Vector) b.getVector(name);
    }

    static Float8Vector rowLoopAbc(VectorSchemaRoot batch, BufferAllocator allocator) {
        Float8Vector a = vec(batch, "a"), b = vec(batch, "b"), c = vec(batch, "c");
        int n = batch.getRowCount();
        Float8Vector out = new Float8Vector("a*b+c", allocator);
        out.allocateNew(n);
        for (int i = 0; i < n; i++) {
            if (a.isNull(i) || b.isNull(i) || c.isNull(i)) {
                out.setNull(i);
            } else {
                out.set(i, a.get(i) * b.get(i) + c.get(i));
            }
        }
        out.setValueCount(n);
        return out;
    }

    static Float8Vector rowLoopHypot(VectorSchemaRoot batch, BufferAllocator allocator) {
        Float8Vector x = vec(batch, "x"), y = vec(batch, "y");
        int n = batch.getRowCount();
        Float8Vector out = new Float8Vector("sqrt(x*x+y*y)", allocator);
        out.allocateNew(n);
        for (int i = 0; i < n; i++) {
            if (x.isNull(i) || y.isNull(i)) {
                out.setNull(i);
            } else {
                double xv = x.get(i), yv = y.get(i);
                out.set(i, Math.sqrt(xv * xv + yv * yv));
            }
        }
        out.setValueCount(n);
        return out;
    }

    /** Output vector plus views of inputs and output, validity already computed. */
    private static Float8Vector prepare(VectorSchemaRoot batch, BufferAllocator allocator, String name,
                                        List<Float8Vector> inputs, List<VectorView> views) {
        int n = batch.getRowCount();
        // The same output allocation Quiver uses, so the two loops are compared on equal terms.
        Float8Vector out = (Float8Vector) OutputVectors.uninitialized(
                new Field(name, FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null), n, allocator);
        try {
            List<MemorySegment> validity = new ArrayList<>();
            for (Float8Vector in : inputs) {
                VectorView v = VectorView.of(in);
                views.add(v);
                if (in.getNullCount() > 0) {
                    validity.add(v.validity());
                }
            }
            VectorView o = VectorView.of(out);
            views.add(o);
            ValidityBitmaps.and(o.validity(), validity, n);
            return out;
        } catch (RuntimeException | Error e) {
            views.forEach(VectorView::close);
            out.close();
            throw e;
        }
    }

    static Float8Vector vectorLoopAbc(VectorSchemaRoot batch, BufferAllocator allocator) {
        List<VectorView> views = new ArrayList<>();
        Float8Vector out = prepare(batch, allocator, "a*b+c", List.of(vec(batch, "a"), vec(batch, "b"), vec(batch, "c")), views);
        try {
            MemorySegment a = views.get(0).data(), b = views.get(1).data(), c = views.get(2).data(), o = views.get(3).data();
            int n = batch.getRowCount();
            int bound = SPECIES.loopBound(n);
            int i = 0;
            for (; i < bound; i += SPECIES.length()) {
                long off = (long) i * 8;
                DoubleVector.fromMemorySegment(SPECIES, a, off, LE)
                        .mul(DoubleVector.fromMemorySegment(SPECIES, b, off, LE))
                        .add(DoubleVector.fromMemorySegment(SPECIES, c, off, LE))
                        .intoMemorySegment(o, off, LE);
            }
            for (; i < n; i++) {
                long off = (long) i * 8;
                o.set(F64, off, a.get(F64, off) * b.get(F64, off) + c.get(F64, off));
            }
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            views.forEach(VectorView::close);
        }
        return out;
    }

    static Float8Vector vectorLoopHypot(VectorSchemaRoot batch, BufferAllocator allocator) {
        List<VectorView> views = new ArrayList<>();
        Float8Vector out = prepare(batch, allocator, "sqrt(x*x+y*y)", List.of(vec(batch, "x"), vec(batch, "y")), views);
        try {
            MemorySegment x = views.get(0).data(), y = views.get(1).data(), o = views.get(2).data();
            int n = batch.getRowCount();
            int bound = SPECIES.loopBound(n);
            int i = 0;
            for (; i < bound; i += SPECIES.length()) {
                long off = (long) i * 8;
                DoubleVector xv = DoubleVector.fromMemorySegment(SPECIES, x, off, LE);
                DoubleVector yv = DoubleVector.fromMemorySegment(SPECIES, y, off, LE);
                xv.mul(xv).add(yv.mul(yv)).sqrt().intoMemorySegment(o, off, LE);
            }
            for (; i < n; i++) {
                long off = (long) i * 8;
                double xv = x.get(F64, off), yv = y.get(F64, off);
                o.set(F64, off, Math.sqrt(xv * xv + yv * yv));
            }
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            views.forEach(VectorView::close);
        }
        return out;
    }
}
