package dev.quiver.validation;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * One pass over an offsets buffer (of a string, binary or list column) that finds the first
 * offset out of order: negative, smaller than the one before it, or past the end of what the
 * offsets index (the data buffer's bytes, the child's elements).
 *
 * <p>Offsets that start at 0 or more, never decrease and end within the limit are all within
 * it, so the pass that every valid batch pays compares neighbouring pairs only, four vectors of
 * pairs per step with one test, the last vector overlapping the one before it instead of a
 * scalar tail; the two ends are read once. Only a batch that fails is scanned again, an offset at
 * a time, for the index of its first bad offset.
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
        if (offsets.get(INT, 0) >= 0
                && offsets.get(INT, (count - 1) << 2) <= lim
                && intsNeverDecrease(offsets, count - 1)) {
            return -1;
        }
        int prev = 0;
        for (long i = 0; i < count; i++) {
            int cur = offsets.get(INT, i << 2);
            if (cur < prev || cur > lim) { // the first against 0: not negative
                return i;
            }
            prev = cur;
        }
        throw new IllegalStateException("offsets failed the vector test but no offset is bad"); // not reached
    }

    /** Whether {@code offsets[i + 1] >= offsets[i]} for every {@code i < pairs}. */
    private static boolean intsNeverDecrease(MemorySegment offsets, long pairs) {
        int lanes = INTS.length();
        if (pairs < lanes) {
            for (long i = 0; i < pairs; i++) {
                if (offsets.get(INT, (i + 1) << 2) < offsets.get(INT, i << 2)) {
                    return false;
                }
            }
            return true;
        }
        long step = 4L * lanes;
        long i = 0;
        for (; i + step <= pairs; i += step) {
            if (intsDecrease(offsets, i)
                    .or(intsDecrease(offsets, i + lanes))
                    .or(intsDecrease(offsets, i + 2L * lanes).or(intsDecrease(offsets, i + 3L * lanes)))
                    .anyTrue()) {
                return false;
            }
        }
        for (; i + lanes <= pairs; i += lanes) {
            if (intsDecrease(offsets, i).anyTrue()) {
                return false;
            }
        }
        // The last vector of pairs ends with the last pair; it overlaps pairs already compared.
        return i == pairs || !intsDecrease(offsets, pairs - lanes).anyTrue();
    }

    /** Lane j: whether {@code offsets[i + j + 1] < offsets[i + j]}. */
    private static VectorMask<Integer> intsDecrease(MemorySegment offsets, long i) {
        IntVector a = IntVector.fromMemorySegment(INTS, offsets, i << 2, ORDER);
        IntVector b = IntVector.fromMemorySegment(INTS, offsets, (i + 1) << 2, ORDER);
        return b.lt(a);
    }

    /** As {@link #firstBadInt} for 8-byte offsets ({@code offsets} holds {@code count * 8} bytes). */
    static long firstBadLong(MemorySegment offsets, long count, long limit) {
        if (count == 0) {
            return -1;
        }
        if (offsets.get(LONG, 0) >= 0
                && offsets.get(LONG, (count - 1) << 3) <= limit
                && longsNeverDecrease(offsets, count - 1)) {
            return -1;
        }
        long prev = 0;
        for (long i = 0; i < count; i++) {
            long cur = offsets.get(LONG, i << 3);
            if (cur < prev || cur > limit) {
                return i;
            }
            prev = cur;
        }
        throw new IllegalStateException("offsets failed the vector test but no offset is bad"); // not reached
    }

    /** As {@link #intsNeverDecrease} for 8-byte offsets. */
    private static boolean longsNeverDecrease(MemorySegment offsets, long pairs) {
        int lanes = LONGS.length();
        if (pairs < lanes) {
            for (long i = 0; i < pairs; i++) {
                if (offsets.get(LONG, (i + 1) << 3) < offsets.get(LONG, i << 3)) {
                    return false;
                }
            }
            return true;
        }
        long step = 4L * lanes;
        long i = 0;
        for (; i + step <= pairs; i += step) {
            if (longsDecrease(offsets, i)
                    .or(longsDecrease(offsets, i + lanes))
                    .or(longsDecrease(offsets, i + 2L * lanes).or(longsDecrease(offsets, i + 3L * lanes)))
                    .anyTrue()) {
                return false;
            }
        }
        for (; i + lanes <= pairs; i += lanes) {
            if (longsDecrease(offsets, i).anyTrue()) {
                return false;
            }
        }
        return i == pairs || !longsDecrease(offsets, pairs - lanes).anyTrue();
    }

    private static VectorMask<Long> longsDecrease(MemorySegment offsets, long i) {
        LongVector a = LongVector.fromMemorySegment(LONGS, offsets, i << 3, ORDER);
        LongVector b = LongVector.fromMemorySegment(LONGS, offsets, (i + 1) << 3, ORDER);
        return b.lt(a);
    }
}
