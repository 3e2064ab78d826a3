package dev.quiver.cpu;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Integer division inside fused loops (called by generated code; small enough to be inlined).
 * A zero divisor is replaced by one so the loop never traps; whether that zero sat in a
 * non-null row is recorded so the backend can report the row.
 */
public final class DivisionChecks {
    private DivisionChecks() {
    }

    public static IntVector divide(IntVector a, IntVector b) {
        return a.lanewise(VectorOperators.DIV, b.blend(1, b.compare(VectorOperators.EQ, 0)));
    }

    public static LongVector divide(LongVector a, LongVector b) {
        return a.lanewise(VectorOperators.DIV, b.blend(1L, b.compare(VectorOperators.EQ, 0L)));
    }

    /**
     * The smaller of {@code firstBad} and the first row {@code rowBase + i + lane} below
     * {@code rowLimit} that is valid and has a zero divisor in {@code b} (-1 stands for none).
     * Taking the minimum matters when a program divides more than once: a later division node
     * may fail on an earlier row of the same step.
     */
    public static long firstZeroDivisor(IntVector b, MemorySegment validity, long i, long rowBase, long rowLimit, long firstBad) {
        VectorMask<Integer> z = b.compare(VectorOperators.EQ, 0);
        return z.anyTrue() ? earliest(firstBad, firstValid(z.toLong(), validity, rowBase + i, rowLimit)) : firstBad;
    }

    public static long firstZeroDivisor(LongVector b, MemorySegment validity, long i, long rowBase, long rowLimit, long firstBad) {
        VectorMask<Long> z = b.compare(VectorOperators.EQ, 0L);
        return z.anyTrue() ? earliest(firstBad, firstValid(z.toLong(), validity, rowBase + i, rowLimit)) : firstBad;
    }

    private static long earliest(long a, long b) {
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }

    private static long firstValid(long lanes, MemorySegment validity, long firstRow, long rowLimit) {
        while (lanes != 0) {
            long row = firstRow + Long.numberOfTrailingZeros(lanes);
            if (row >= rowLimit) {
                return -1;
            }
            if (dev.quiver.memory.ValidityBitmaps.isValid(validity, row)) {
                return row;
            }
            lanes &= lanes - 1;
        }
        return -1;
    }
}
