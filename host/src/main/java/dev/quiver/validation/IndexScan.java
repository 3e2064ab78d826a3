package dev.quiver.validation;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * One pass over a dictionary-encoded column's indices that finds the first non-null row whose
 * index is outside the dictionary. Indices are compared as unsigned numbers, so one comparison
 * with the dictionary's size rejects both negative and too large signed indices; a null row's
 * index is garbage and is looked at only when it is out of range.
 */
final class IndexScan {
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private IndexScan() {}

    /**
     * The first row of {@code rows} whose index in {@code data} ({@code width} bytes each,
     * {@code signed} or not) is at least {@code size} or negative, and whose validity bit in
     * {@code validity} is set ({@code validity} null: every row is valid); -1 when none is.
     */
    static long firstOutOfRange(
            MemorySegment data, MemorySegment validity, int width, boolean signed, long rows, int size) {
        long i = 0;
        if (width == 4) {
            // The common case (Arrow's default index type), a whole vector of indices per step.
            int lanes = INTS.length();
            IntVector sizes = IntVector.broadcast(INTS, size);
            for (; i + lanes <= rows; i += lanes) {
                VectorMask<Integer> bad =
                        IntVector.fromMemorySegment(INTS, data, i << 2, ORDER).compare(VectorOperators.UGE, sizes);
                if (bad.anyTrue()) {
                    for (long lanesBad = bad.toLong(); lanesBad != 0; lanesBad &= lanesBad - 1) {
                        long row = i + Long.numberOfTrailingZeros(lanesBad);
                        if (isValid(validity, row)) {
                            return row;
                        }
                    }
                }
            }
        }
        for (; i < rows; i++) {
            if (Long.compareUnsigned(index(data, width, signed, i), size) >= 0 && isValid(validity, i)) {
                return i;
            }
        }
        return -1;
    }

    /** Row {@code row}'s index, sign- or zero-extended to 64 bits. */
    static long index(MemorySegment data, int width, boolean signed, long row) {
        return switch (width) {
            case 1 ->
                signed
                        ? data.get(ValueLayout.JAVA_BYTE, row)
                        : Byte.toUnsignedLong(data.get(ValueLayout.JAVA_BYTE, row));
            case 2 ->
                signed
                        ? data.get(ValueLayout.JAVA_SHORT_UNALIGNED, row << 1)
                        : Short.toUnsignedLong(data.get(ValueLayout.JAVA_SHORT_UNALIGNED, row << 1));
            case 4 ->
                signed
                        ? data.get(ValueLayout.JAVA_INT_UNALIGNED, row << 2)
                        : Integer.toUnsignedLong(data.get(ValueLayout.JAVA_INT_UNALIGNED, row << 2));
            default -> data.get(ValueLayout.JAVA_LONG_UNALIGNED, row << 3);
        };
    }

    private static boolean isValid(MemorySegment validity, long row) {
        return validity == null || (validity.get(ValueLayout.JAVA_BYTE, row >>> 3) >> (row & 7) & 1) != 0;
    }
}
