package dev.quiver.kernels;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * A 4- or 8-byte constant written to the selected rows of a fixed-width column with masked
 * vector stores: each 64-row word of the selection becomes {@code 64 / lanes} stores whose masks
 * are slices of the word, instead of one store per selected row. The hot path of CASE with
 * constant branches. Only loaded when the {@code jdk.incubator.vector} module is present.
 */
final class VectorFills {
    private static final VectorSpecies<Integer> I32 = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> I64 = LongVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private VectorFills() {}

    /** Whether whole 64-row words split evenly into vectors of both species here. */
    static boolean usable() {
        return 64 % I32.length() == 0 && 64 % I64.length() == 0;
    }

    /** Rows of whole words only; the caller writes the rows of a last partial word. Returns the words done. */
    static int fill32(int c, MemorySegment dst, Selection selection) {
        IntVector v = IntVector.broadcast(I32, c);
        int lanes = I32.length();
        long laneMask = lanes == 64 ? -1L : (1L << lanes) - 1;
        int whole = selection.rows() >>> 6;
        for (int wi = 0; wi < whole; wi++) {
            long w = selection.word(wi);
            if (w == 0) {
                continue;
            }
            long base = (long) wi << 8; // 64 rows of 4 bytes
            for (int j = 0; j < 64; j += lanes) {
                long bits = (w >>> j) & laneMask;
                if (bits != 0) {
                    v.intoMemorySegment(dst, base + ((long) j << 2), LE, VectorMask.fromLong(I32, bits));
                }
            }
        }
        return whole;
    }

    /** As {@link #fill32} for 8-byte values. */
    static int fill64(long c, MemorySegment dst, Selection selection) {
        LongVector v = LongVector.broadcast(I64, c);
        int lanes = I64.length();
        long laneMask = lanes == 64 ? -1L : (1L << lanes) - 1;
        int whole = selection.rows() >>> 6;
        for (int wi = 0; wi < whole; wi++) {
            long w = selection.word(wi);
            if (w == 0) {
                continue;
            }
            long base = (long) wi << 9; // 64 rows of 8 bytes
            for (int j = 0; j < 64; j += lanes) {
                long bits = (w >>> j) & laneMask;
                if (bits != 0) {
                    v.intoMemorySegment(dst, base + ((long) j << 3), LE, VectorMask.fromLong(I64, bits));
                }
            }
        }
        return whole;
    }
}
