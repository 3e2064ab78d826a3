package dev.quiver.bench;

import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.VectorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The loops a person would write with the Vector API for two expressions over Float64 columns
 * {@code x, y, z} ({@link DenseKernelBenchmark}'s baselines), over {@code MemorySegment} views of
 * the batch's own Arrow buffers, each into an output allocated as Quiver allocates its own
 * (uninitialized). Nulls follow SQL, computed 64 rows (one validity word) at a time with bit
 * operations; a column without nulls reads no bitmap.
 *
 * <ul>
 * <li>{@link #caseBlend}: {@code CASE WHEN x > 0.5 THEN x * y ELSE z END}: per step, the
 * comparison as a mask and {@code z.blend(x * y, mask)}; a row is valid where its branch is.
 * <li>{@link #conjunction}: {@code x > 0.5 AND y < 0.25}: per step, two comparisons into bits;
 * per word, the Kleene AND of the bits and validity.
 * </ul>
 *
 * The comparisons are Java's, which for these columns (no NaN) are SQL's.
 */
final class HandWrittenLoops {
    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);
    private static final Field FLOAT64 =
            new Field("result", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);
    private static final Field BOOLEAN = new Field("result", FieldType.nullable(ArrowType.Bool.INSTANCE), null);

    private HandWrittenLoops() {}

    /** {@code CASE WHEN x > 0.5 THEN x * y ELSE z END} over columns 0, 1, 2; the caller closes the result. */
    static FieldVector caseBlend(VectorSchemaRoot batch, BufferAllocator allocator) {
        return run(batch, allocator, FLOAT64, 3, HandWrittenLoops::caseKernel);
    }

    /** {@code x > 0.5 AND y < 0.25} over columns 0 and 1; the caller closes the result. */
    static FieldVector conjunction(VectorSchemaRoot batch, BufferAllocator allocator) {
        return run(batch, allocator, BOOLEAN, 2, HandWrittenLoops::andKernel);
    }

    @FunctionalInterface
    private interface Kernel {
        /** {@code valid[k]}: column k's validity, or null when it has no nulls. */
        void run(MemorySegment[] data, MemorySegment[] valid, MemorySegment out, MemorySegment outValid, int n);
    }

    private static FieldVector run(
            VectorSchemaRoot batch, BufferAllocator allocator, Field field, int columns, Kernel k) {
        int n = batch.getRowCount();
        FieldVector out = OutputVectors.uninitialized(field, n, allocator);
        List<VectorView> views = new ArrayList<>(columns + 1);
        try {
            MemorySegment[] data = new MemorySegment[columns];
            MemorySegment[] valid = new MemorySegment[columns];
            for (int c = 0; c < columns; c++) {
                FieldVector in = batch.getVector(c);
                VectorView v = VectorView.of(in);
                views.add(v);
                data[c] = v.data();
                valid[c] = in.getNullCount() > 0 ? v.validity() : null;
            }
            VectorView o = VectorView.of(out);
            views.add(o);
            k.run(data, valid, o.data(), o.validity(), n);
            out.setValueCount(n);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            views.forEach(VectorView::close);
        }
    }

    /** Validity word {@code w} of a column: all ones without a bitmap. */
    private static long validWord(MemorySegment valid, int w, int n) {
        if (valid == null) {
            return -1L;
        }
        long off = (long) w << 3;
        if (off + 8 <= valid.byteSize()) {
            return valid.get(WORD, off);
        }
        long word = 0;
        for (long b = off; b < Math.min(valid.byteSize(), (n + 7L) >>> 3); b++) {
            word |= (valid.get(ValueLayout.JAVA_BYTE, b) & 0xFFL) << ((b - off) << 3);
        }
        return word;
    }

    /** Writes the low {@code bits} bits of {@code word} as word {@code w} of a bitmap of {@code n} rows. */
    private static void storeWord(MemorySegment bitmap, int w, long word, int n) {
        long off = (long) w << 3;
        long bytes = Math.min(8, ((n + 7L) >>> 3) - off);
        if (bytes == 8 && off + 8 <= bitmap.byteSize()) {
            bitmap.set(WORD, off, word);
            return;
        }
        for (int b = 0; b < bytes; b++) {
            bitmap.set(ValueLayout.JAVA_BYTE, off + b, (byte) (word >>> (b << 3)));
        }
    }

    private static void caseKernel(MemorySegment[] d, MemorySegment[] v, MemorySegment out, MemorySegment ov, int n) {
        MemorySegment xs = d[0], ys = d[1], zs = d[2];
        int step = SPECIES.length();
        boolean xNulls = v[0] != null;
        for (int w = 0; w << 6 < n; w++) {
            int base = w << 6;
            int rows = Math.min(64, n - base);
            long vx = validWord(v[0], w, n), vy = validWord(v[1], w, n), vz = validWord(v[2], w, n);
            long taken = 0;
            if (rows == 64) {
                for (int j = 0; j < 64; j += step) {
                    long off = (long) (base + j) << 3;
                    DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, xs, off, LE);
                    DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, ys, off, LE);
                    DoubleVector z = DoubleVector.fromMemorySegment(SPECIES, zs, off, LE);
                    VectorMask<Double> m = x.compare(VectorOperators.GT, 0.5);
                    if (xNulls) { // a NULL condition counts as false: the ELSE's value
                        m = m.and(VectorMask.fromLong(SPECIES, vx >>> j));
                    }
                    z.blend(x.mul(y), m).intoMemorySegment(out, off, LE);
                    taken |= m.toLong() << j;
                }
            } else { // the batch's last, partial word
                for (int j = 0; j < rows; j += step) {
                    long off = (long) (base + j) << 3;
                    VectorMask<Double> in = SPECIES.indexInRange(base + j, n);
                    DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, xs, off, LE, in);
                    DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, ys, off, LE, in);
                    DoubleVector z = DoubleVector.fromMemorySegment(SPECIES, zs, off, LE, in);
                    VectorMask<Double> m =
                            x.compare(VectorOperators.GT, 0.5).and(in).and(VectorMask.fromLong(SPECIES, vx >>> j));
                    z.blend(x.mul(y), m).intoMemorySegment(out, off, LE, in);
                    taken |= m.toLong() << j;
                }
            }
            storeWord(ov, w, (taken & vy) | (~taken & vz), n); // taken rows are valid in x
        }
    }

    private static void andKernel(MemorySegment[] d, MemorySegment[] v, MemorySegment out, MemorySegment ov, int n) {
        MemorySegment xs = d[0], ys = d[1];
        int step = SPECIES.length();
        for (int w = 0; w << 6 < n; w++) {
            int base = w << 6;
            int rows = Math.min(64, n - base);
            long a = 0;
            long b = 0;
            if (rows == 64) {
                for (int j = 0; j < 64; j += step) {
                    long off = (long) (base + j) << 3;
                    DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, xs, off, LE);
                    DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, ys, off, LE);
                    a |= x.compare(VectorOperators.GT, 0.5).toLong() << j;
                    b |= y.compare(VectorOperators.LT, 0.25).toLong() << j;
                }
            } else { // the batch's last, partial word
                for (int j = 0; j < rows; j += step) {
                    long off = (long) (base + j) << 3;
                    VectorMask<Double> in = SPECIES.indexInRange(base + j, n);
                    DoubleVector x = DoubleVector.fromMemorySegment(SPECIES, xs, off, LE, in);
                    DoubleVector y = DoubleVector.fromMemorySegment(SPECIES, ys, off, LE, in);
                    a |= x.compare(VectorOperators.GT, 0.5).and(in).toLong() << j;
                    b |= y.compare(VectorOperators.LT, 0.25).and(in).toLong() << j;
                }
            }
            long vx = validWord(v[0], w, n), vy = validWord(v[1], w, n);
            long valid = (vx & vy) | (vx & ~a) | (vy & ~b); // Kleene: FALSE on either side decides
            storeWord(ov, w, valid, n);
            storeWord(out, w, a & b & valid, n);
        }
    }
}
