package dev.quiver.kernels;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Which rows of a string column have a given length, or the length of the row beside them in
 * another column, up to 64 rows at a time, from the offsets alone: each vector step subtracts a
 * vector of offsets from the same vector one offset further ({@code offsets[r + 1] - offsets[r]}
 * for a lane's row {@code r}) and compares, so {@link StringOrder}'s equality touches the bytes
 * only of the rows whose length matches. The rows past the last whole vector are done one by one.
 *
 * <p>Only loaded when the {@code jdk.incubator.vector} module is present.
 */
final class StringLengths {
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private StringLengths() {}

    /** Bit {@code j}: row {@code row + j} ({@code j < n <= 64}) of the column whose offsets these are has {@code len} bytes. */
    static long equalTo(MemorySegment offsets, boolean large, int row, int n, long len) {
        long bits = 0;
        int j = 0;
        if (!large) {
            int lanes = INTS.length();
            int l = (int) len;
            for (; j + lanes <= n; j += lanes) {
                long at = (long) (row + j) << 2;
                IntVector start = IntVector.fromMemorySegment(INTS, offsets, at, LE);
                IntVector end = IntVector.fromMemorySegment(INTS, offsets, at + 4, LE);
                bits |= end.sub(start).compare(VectorOperators.EQ, l).toLong() << j;
            }
            for (; j < n; j++) {
                long at = (long) (row + j) << 2;
                long length = offsets.get(PredicateOutput.INT, at + 4) - offsets.get(PredicateOutput.INT, at);
                bits |= (length == len ? 1L : 0L) << j;
            }
            return bits;
        }
        int lanes = LONGS.length();
        for (; j + lanes <= n; j += lanes) {
            long at = (long) (row + j) << 3;
            LongVector start = LongVector.fromMemorySegment(LONGS, offsets, at, LE);
            LongVector end = LongVector.fromMemorySegment(LONGS, offsets, at + 8, LE);
            bits |= end.sub(start).compare(VectorOperators.EQ, len).toLong() << j;
        }
        for (; j < n; j++) {
            long at = (long) (row + j) << 3;
            long length = offsets.get(PredicateOutput.WORD, at + 8) - offsets.get(PredicateOutput.WORD, at);
            bits |= (length == len ? 1L : 0L) << j;
        }
        return bits;
    }

    /** Bit {@code j}: row {@code row + j} ({@code j < n <= 64}) has one of {@code lengths} bytes. */
    static long anyOf(MemorySegment offsets, boolean large, int row, int n, long[] lengths) {
        if (lengths.length == 0) {
            return 0; // no key: no row has a key's length
        }
        long bits = 0;
        int j = 0;
        if (!large && lengths.length <= 4) {
            // Up to four lengths, each compared in every step (repeating the last): no loop over
            // the lengths inside the vector loop, which kept its vectors from staying in registers.
            int l0 = (int) lengths[0];
            int l1 = (int) lengths[Math.min(1, lengths.length - 1)];
            int l2 = (int) lengths[Math.min(2, lengths.length - 1)];
            int l3 = (int) lengths[lengths.length - 1];
            int lanes = INTS.length();
            for (; j + lanes <= n; j += lanes) {
                long at = (long) (row + j) << 2;
                IntVector len = IntVector.fromMemorySegment(INTS, offsets, at + 4, LE)
                        .sub(IntVector.fromMemorySegment(INTS, offsets, at, LE));
                VectorMask<Integer> hit = len.compare(VectorOperators.EQ, l0)
                        .or(len.compare(VectorOperators.EQ, l1))
                        .or(len.compare(VectorOperators.EQ, l2))
                        .or(len.compare(VectorOperators.EQ, l3));
                bits |= hit.toLong() << j;
            }
        }
        for (; j < n; j++) {
            long len = length(offsets, large, row + j);
            for (long l : lengths) {
                bits |= (len == l ? 1L : 0L) << j;
            }
        }
        return bits;
    }

    /** Bit {@code j}: row {@code row + j} ({@code j < n <= 64}) has as many bytes in {@code a} as in {@code b}. */
    static long equalAcross(MemorySegment a, boolean aLarge, MemorySegment b, boolean bLarge, int row, int n) {
        long bits = 0;
        int j = 0;
        if (!aLarge && !bLarge) {
            int lanes = INTS.length();
            for (; j + lanes <= n; j += lanes) {
                long at = (long) (row + j) << 2;
                IntVector x = IntVector.fromMemorySegment(INTS, a, at + 4, LE)
                        .sub(IntVector.fromMemorySegment(INTS, a, at, LE));
                IntVector y = IntVector.fromMemorySegment(INTS, b, at + 4, LE)
                        .sub(IntVector.fromMemorySegment(INTS, b, at, LE));
                bits |= x.compare(VectorOperators.EQ, y).toLong() << j;
            }
        }
        for (; j < n; j++) {
            bits |= (length(a, aLarge, row + j) == length(b, bLarge, row + j) ? 1L : 0L) << j;
        }
        return bits;
    }

    private static long length(MemorySegment offsets, boolean large, int row) {
        return large
                ? offsets.get(PredicateOutput.WORD, ((long) row << 3) + 8)
                        - offsets.get(PredicateOutput.WORD, (long) row << 3)
                : offsets.get(PredicateOutput.INT, ((long) row << 2) + 4)
                        - offsets.get(PredicateOutput.INT, (long) row << 2);
    }
}
