package dev.quiver.kernels;

import dev.quiver.types.DataType;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link ComparisonKernels.Order}s of Float64, Float32, Int32 (and Date32) and Int64 (and
 * timestamps) over whole 64-row words with the Vector API: each vector compare gives
 * {@code lanes} bits of a word through {@code VectorMask.toLong()}. The orders here take only
 * whole words ({@code n} a multiple of 64); the caller does a batch's last partial word with
 * the plain loops. Floats follow SQL's total order: an IEEE compare puts NaN nowhere, so NaN
 * lanes are added where the order puts them (equal to NaN, above everything else).
 *
 * <p>Only loaded when the {@code jdk.incubator.vector} module is present.
 */
final class VectorComparisons {
    private static final VectorSpecies<Double> F64 = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F32 = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I32 = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> I64 = LongVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private VectorComparisons() {}

    /** The whole-word order for array {@code a} against {@code b}, or null when {@code a}'s type has no vector loop here. */
    static ComparisonKernels.Order order(Operand a, Operand b) {
        MemorySegment ad = a.data();
        return switch (a.type) {
            case DataType.FloatingPoint f
            when f.bitWidth() == 64 -> {
                if (!b.isScalar()) {
                    yield float64(ad, b.data());
                }
                double s = FixedWidth.toDouble(b.scalar);
                yield Double.isNaN(s) ? float64Nan(ad) : float64(ad, s);
            }
            case DataType.FloatingPoint _ -> {
                if (!b.isScalar()) {
                    yield float32(ad, b.data());
                }
                float s = (float) FixedWidth.toDouble(b.scalar);
                yield Float.isNaN(s) ? float32Nan(ad) : float32(ad, s);
            }
            case DataType.Int i
            when i.equals(DataType.INT32) ->
                b.isScalar() ? int32(ad, (int) FixedWidth.toLong(b.scalar)) : int32(ad, b.data());
            case DataType.Date32 _ -> b.isScalar() ? int32(ad, (int) FixedWidth.toLong(b.scalar)) : int32(ad, b.data());
            case DataType.Int i
            when i.equals(DataType.INT64) ->
                b.isScalar() ? int64(ad, FixedWidth.toLong(b.scalar)) : int64(ad, b.data());
            case DataType.Timestamp _ -> b.isScalar() ? int64(ad, FixedWidth.toLong(b.scalar)) : int64(ad, b.data());
            default -> null;
        };
    }

    // Each order: for each word k, 64 / lanes vectors starting at row from + 64k.

    private static ComparisonKernels.Order float64(MemorySegment a, double s) {
        int lanes = F64.length();
        return (from, n, lt, eq) -> {
            // Broadcast inside the loop body: a vector captured by the lambda would be boxed.
            DoubleVector sv = DoubleVector.broadcast(F64, s);
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 3;
                long l = 0;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    DoubleVector v = DoubleVector.fromMemorySegment(F64, a, base + ((long) j << 3), LE);
                    // NaN lanes are neither less nor equal: greater, as the total order has it.
                    l |= v.compare(VectorOperators.LT, sv).toLong() << j;
                    e |= v.compare(VectorOperators.EQ, sv).toLong() << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }

    /** Against a NaN scalar: NaN rows are equal to it, every other row is less. */
    private static ComparisonKernels.Order float64Nan(MemorySegment a) {
        int lanes = F64.length();
        return (from, n, lt, eq) -> {
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 3;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    DoubleVector v = DoubleVector.fromMemorySegment(F64, a, base + ((long) j << 3), LE);
                    e |= v.test(VectorOperators.IS_NAN).toLong() << j;
                }
                lt[k] = ~e;
                eq[k] = e;
            }
        };
    }

    private static ComparisonKernels.Order float64(MemorySegment a, MemorySegment b) {
        int lanes = F64.length();
        return (from, n, lt, eq) -> {
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 3;
                long l = 0;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    long off = base + ((long) j << 3);
                    DoubleVector x = DoubleVector.fromMemorySegment(F64, a, off, LE);
                    DoubleVector y = DoubleVector.fromMemorySegment(F64, b, off, LE);
                    long xNan = x.test(VectorOperators.IS_NAN).toLong();
                    long yNan = y.test(VectorOperators.IS_NAN).toLong();
                    l |= (x.compare(VectorOperators.LT, y).toLong() | (yNan & ~xNan)) << j;
                    e |= (x.compare(VectorOperators.EQ, y).toLong() | (xNan & yNan)) << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }

    private static ComparisonKernels.Order float32(MemorySegment a, float s) {
        int lanes = F32.length();
        return (from, n, lt, eq) -> {
            // Broadcast inside the loop body: a vector captured by the lambda would be boxed.
            FloatVector sv = FloatVector.broadcast(F32, s);
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 2;
                long l = 0;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    FloatVector v = FloatVector.fromMemorySegment(F32, a, base + ((long) j << 2), LE);
                    l |= v.compare(VectorOperators.LT, sv).toLong() << j;
                    e |= v.compare(VectorOperators.EQ, sv).toLong() << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }

    private static ComparisonKernels.Order float32Nan(MemorySegment a) {
        int lanes = F32.length();
        return (from, n, lt, eq) -> {
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 2;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    FloatVector v = FloatVector.fromMemorySegment(F32, a, base + ((long) j << 2), LE);
                    e |= v.test(VectorOperators.IS_NAN).toLong() << j;
                }
                lt[k] = ~e;
                eq[k] = e;
            }
        };
    }

    private static ComparisonKernels.Order float32(MemorySegment a, MemorySegment b) {
        int lanes = F32.length();
        return (from, n, lt, eq) -> {
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 2;
                long l = 0;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    long off = base + ((long) j << 2);
                    FloatVector x = FloatVector.fromMemorySegment(F32, a, off, LE);
                    FloatVector y = FloatVector.fromMemorySegment(F32, b, off, LE);
                    long xNan = x.test(VectorOperators.IS_NAN).toLong();
                    long yNan = y.test(VectorOperators.IS_NAN).toLong();
                    l |= (x.compare(VectorOperators.LT, y).toLong() | (yNan & ~xNan)) << j;
                    e |= (x.compare(VectorOperators.EQ, y).toLong() | (xNan & yNan)) << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }

    private static ComparisonKernels.Order int32(MemorySegment a, int s) {
        int lanes = I32.length();
        return (from, n, lt, eq) -> {
            // Broadcast inside the loop body: a vector captured by the lambda would be boxed.
            IntVector sv = IntVector.broadcast(I32, s);
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 2;
                long l = 0;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    IntVector v = IntVector.fromMemorySegment(I32, a, base + ((long) j << 2), LE);
                    l |= v.compare(VectorOperators.LT, sv).toLong() << j;
                    e |= v.compare(VectorOperators.EQ, sv).toLong() << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }

    private static ComparisonKernels.Order int32(MemorySegment a, MemorySegment b) {
        int lanes = I32.length();
        return (from, n, lt, eq) -> {
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 2;
                long l = 0;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    long off = base + ((long) j << 2);
                    IntVector x = IntVector.fromMemorySegment(I32, a, off, LE);
                    IntVector y = IntVector.fromMemorySegment(I32, b, off, LE);
                    l |= x.compare(VectorOperators.LT, y).toLong() << j;
                    e |= x.compare(VectorOperators.EQ, y).toLong() << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }

    private static ComparisonKernels.Order int64(MemorySegment a, long s) {
        int lanes = I64.length();
        return (from, n, lt, eq) -> {
            // Broadcast inside the loop body: a vector captured by the lambda would be boxed.
            LongVector sv = LongVector.broadcast(I64, s);
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 3;
                long l = 0;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    LongVector v = LongVector.fromMemorySegment(I64, a, base + ((long) j << 3), LE);
                    l |= v.compare(VectorOperators.LT, sv).toLong() << j;
                    e |= v.compare(VectorOperators.EQ, sv).toLong() << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }

    private static ComparisonKernels.Order int64(MemorySegment a, MemorySegment b) {
        int lanes = I64.length();
        return (from, n, lt, eq) -> {
            for (int k = 0; k < n >>> 6; k++) {
                long base = (long) (from + (k << 6)) << 3;
                long l = 0;
                long e = 0;
                for (int j = 0; j < 64; j += lanes) {
                    long off = base + ((long) j << 3);
                    LongVector x = LongVector.fromMemorySegment(I64, a, off, LE);
                    LongVector y = LongVector.fromMemorySegment(I64, b, off, LE);
                    l |= x.compare(VectorOperators.LT, y).toLong() << j;
                    e |= x.compare(VectorOperators.EQ, y).toLong() << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }
}
