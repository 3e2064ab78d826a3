package dev.quiver.validation;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * One pass over an offsets buffer (of a string, binary or list column) that finds the first
 * offset out of order: negative, smaller than the one before it, or past the end of what the
 * offsets index (the data buffer's bytes, the child's elements). Whole vectors of neighbouring
 * pairs are compared at once; only the tail runs per element.
 */
final class OffsetScan {
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder(); // Arrow buffers are in the platform's order
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private OffsetScan() {}

    /**
     * The index of the first of the {@code count} 4-byte offsets in {@code offsets} that is
     * negative, smaller than the offset before it or greater than {@code limit}; -1 when none is.
     * {@code offsets} holds at least {@code count * 4} bytes.
     */
    static long firstBadInt(MemorySegment offsets, long count, long limit) {
        if (count == 0) {
            return -1;
        }
        int lim = (int) Math.min(limit, Integer.MAX_VALUE);
        int first = offsets.get(INT, 0);
        if (first < 0 || first > lim) {
            return 0;
        }
        // From a non-negative first offset, offsets that never decrease are all non-negative.
        long pairs = count - 1; // offsets[i] against offsets[i + 1], i < pairs
        int lanes = INTS.length();
        IntVector limits = IntVector.broadcast(INTS, lim);
        long i = 0;
        for (; i + lanes <= pairs; i += lanes) {
            IntVector a = IntVector.fromMemorySegment(INTS, offsets, i << 2, ORDER);
            IntVector b = IntVector.fromMemorySegment(INTS, offsets, (i + 1) << 2, ORDER);
            VectorMask<Integer> bad = b.lt(a).or(b.compare(VectorOperators.GT, limits));
            if (bad.anyTrue()) {
                return i + 1 + bad.firstTrue();
            }
        }
        int prev = offsets.get(INT, i << 2);
        for (; i < pairs; i++) {
            int cur = offsets.get(INT, (i + 1) << 2);
            if (cur < prev || cur > lim) {
                return i + 1;
            }
            prev = cur;
        }
        return -1;
    }

    /** As {@link #firstBadInt} for 8-byte offsets ({@code offsets} holds {@code count * 8} bytes). */
    static long firstBadLong(MemorySegment offsets, long count, long limit) {
        if (count == 0) {
            return -1;
        }
        long first = offsets.get(LONG, 0);
        if (first < 0 || first > limit) {
            return 0;
        }
        long pairs = count - 1;
        int lanes = LONGS.length();
        LongVector limits = LongVector.broadcast(LONGS, limit);
        long i = 0;
        for (; i + lanes <= pairs; i += lanes) {
            LongVector a = LongVector.fromMemorySegment(LONGS, offsets, i << 3, ORDER);
            LongVector b = LongVector.fromMemorySegment(LONGS, offsets, (i + 1) << 3, ORDER);
            VectorMask<Long> bad = b.lt(a).or(b.compare(VectorOperators.GT, limits));
            if (bad.anyTrue()) {
                return i + 1 + bad.firstTrue();
            }
        }
        long prev = offsets.get(LONG, i << 3);
        for (; i < pairs; i++) {
            long cur = offsets.get(LONG, (i + 1) << 3);
            if (cur < prev || cur > limit) {
                return i + 1;
            }
            prev = cur;
        }
        return -1;
    }
}
