package dev.quiver.strings;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * The first byte that is not ASCII in a range of at least one vector, with the Vector API:
 * {@link #STEP} bytes per step (four vectors of the preferred species, OR-ed, one sign test),
 * then a vector at a time, then one last vector that ends where the range ends (it overlaps bytes
 * already found ASCII, so no byte is read past the range and no scalar tail is needed). Only
 * {@link Utf8} calls it, and only where the {@code jdk.incubator.vector} module is present.
 */
final class AsciiScan {
    private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder(); // one byte a lane: any order reads the same
    /** Bytes in one vector: the shortest range {@link #firstNonAscii} takes. */
    static final int LANES = BYTES.length();
    /** Bytes per step of the main loop. */
    static final long STEP = 4L * LANES;

    private AsciiScan() {}

    /**
     * Where the first byte of {@code [from, to)} at or above 0x80 is, or -1 when every byte is
     * below it. {@code to - from} is at least {@link #LANES}.
     */
    static long firstNonAscii(MemorySegment d, long from, long to) {
        long k = from;
        for (; k + STEP <= to; k += STEP) {
            ByteVector a = load(d, k);
            ByteVector b = load(d, k + LANES);
            ByteVector c = load(d, k + 2L * LANES);
            ByteVector e = load(d, k + 3L * LANES);
            // A byte is not ASCII where its sign bit is set, in the OR of the four as in each.
            if (a.or(b).or(c.or(e)).lt((byte) 0).anyTrue()) {
                break; // the vector loop below finds it within these four
            }
        }
        for (; k + LANES <= to; k += LANES) {
            VectorMask<Byte> high = load(d, k).lt((byte) 0);
            if (high.anyTrue()) {
                return k + high.firstTrue();
            }
        }
        if (k < to) {
            long last = to - LANES; // from <= last: the range holds a vector
            VectorMask<Byte> high = load(d, last).lt((byte) 0);
            if (high.anyTrue()) {
                return last + high.firstTrue(); // bytes before k were ASCII: this is at k or after
            }
        }
        return -1;
    }

    private static ByteVector load(MemorySegment d, long at) {
        return ByteVector.fromMemorySegment(BYTES, d, at, ORDER);
    }
}
