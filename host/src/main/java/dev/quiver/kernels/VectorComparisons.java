package dev.quiver.kernels;

import dev.quiver.kernels.WordCompareCompiler.Lanes;
import dev.quiver.kernels.WordCompareCompiler.Shape;
import dev.quiver.types.DataType;
import java.lang.foreign.MemorySegment;
import java.util.EnumMap;
import java.util.Map;

/**
 * {@link ComparisonKernels.Order}s of Float64, Float32, Int32 (and Date32) and Int64 (and
 * timestamps) over whole 64-row words with the Vector API: each vector compare gives
 * {@code lanes} bits of a word through {@code VectorMask.toLong()}. The orders here take only
 * whole words ({@code n} a multiple of 64); the caller does a batch's last partial word with
 * the plain loops. Floats follow SQL's total order: an IEEE compare puts NaN nowhere, so NaN
 * lanes are added where the order puts them (equal to NaN, above everything else).
 *
 * <p>The loops are generated ({@link WordCompareCompiler}), one per element type and operand
 * shape, each made the first time it is needed and kept for the process.
 *
 * <p>Only loaded when the {@code jdk.incubator.vector} module is present.
 */
final class VectorComparisons {
    /** A generated loop: the order of {@code a} against {@code b}, or against the scalar whose bits are {@code s}. */
    interface WordCompare {
        /** Bit {@code j} of {@code lt[k]} / {@code eq[k]} for row {@code from + 64k + j}, {@code k < n / 64}. */
        void words(MemorySegment a, MemorySegment b, long s, int from, int n, long[] lt, long[] eq);
    }

    private static final Map<Lanes, Map<Shape, WordCompare>> LOOPS = new EnumMap<>(Lanes.class);

    private VectorComparisons() {}

    /** The whole-word order for array {@code a} against {@code b}, or null when {@code a}'s type has no vector loop here. */
    static ComparisonKernels.Order order(Operand a, Operand b) {
        Lanes lanes = lanes(a.type);
        if (lanes == null) {
            return null;
        }
        MemorySegment ad = a.data();
        if (!b.isScalar()) {
            return bind(loop(lanes, Shape.COLUMN), ad, b.data(), 0);
        }
        return switch (lanes) {
            case FLOAT64 -> {
                double s = FixedWidth.toDouble(b.scalar);
                yield Double.isNaN(s)
                        ? bind(loop(lanes, Shape.NAN_SCALAR), ad, null, 0)
                        : bind(loop(lanes, Shape.SCALAR), ad, null, Double.doubleToRawLongBits(s));
            }
            case FLOAT32 -> {
                float s = (float) FixedWidth.toDouble(b.scalar);
                yield Float.isNaN(s)
                        ? bind(loop(lanes, Shape.NAN_SCALAR), ad, null, 0)
                        : bind(loop(lanes, Shape.SCALAR), ad, null, Float.floatToRawIntBits(s));
            }
            case INT32 -> bind(loop(lanes, Shape.SCALAR), ad, null, (int) FixedWidth.toLong(b.scalar));
            case INT64 -> bind(loop(lanes, Shape.SCALAR), ad, null, FixedWidth.toLong(b.scalar));
        };
    }

    private static Lanes lanes(DataType type) {
        return switch (type) {
            case DataType.FloatingPoint f -> f.bitWidth() == 64 ? Lanes.FLOAT64 : Lanes.FLOAT32;
            case DataType.Int i when i.equals(DataType.INT32) -> Lanes.INT32;
            case DataType.Date32 _ -> Lanes.INT32;
            case DataType.Int i when i.equals(DataType.INT64) -> Lanes.INT64;
            case DataType.Timestamp _ -> Lanes.INT64;
            default -> null;
        };
    }

    private static ComparisonKernels.Order bind(WordCompare loop, MemorySegment a, MemorySegment b, long s) {
        return (from, n, lt, eq) -> loop.words(a, b, s, from, n, lt, eq);
    }

    private static WordCompare loop(Lanes lanes, Shape shape) {
        synchronized (LOOPS) {
            return LOOPS.computeIfAbsent(lanes, _ -> new EnumMap<>(Shape.class))
                    .computeIfAbsent(shape, sh -> WordCompareCompiler.compile(lanes, sh));
        }
    }
}
