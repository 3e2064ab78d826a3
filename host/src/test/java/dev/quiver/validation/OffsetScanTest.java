package dev.quiver.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link OffsetScan} against the definition, one offset at a time: for every count of offsets from
 * 0 to 300 (every vector boundary of every lane count up to 16 and several steps of the main loop,
 * and their tails) and a long buffer, with each kind of fault at every position near either end,
 * 4- and 8-byte offsets find exactly the first bad index the reference finds.
 */
class OffsetScanTest {
    private static final long SEED = 20_251_204L;
    private static final int EDGE = 130;

    /** The first index of {@code offsets} that is negative, past {@code limit} or below the one before it; -1 when none is. */
    private static long reference(long[] offsets, long limit) {
        for (int i = 0; i < offsets.length; i++) {
            if (offsets[i] < 0 || offsets[i] > limit || (i > 0 && offsets[i] < offsets[i - 1])) {
                return i;
            }
        }
        return -1;
    }

    /** Offsets that never decrease, from a random start, rows of 0 to 40 bytes. */
    private static long[] valid(Random random, int count) {
        long[] o = new long[count];
        long at = random.nextInt(3) == 0 ? 0 : random.nextInt(100);
        for (int i = 0; i < count; i++) {
            o[i] = at;
            at += random.nextInt(5) == 0 ? 0 : random.nextInt(41);
        }
        return o;
    }

    private static void assertScansAgree(long[] offsets, long limit, String what) {
        try (Arena arena = Arena.ofConfined()) {
            assertScansAgree(arena, offsets, limit, what);
        }
    }

    /** Both scans, over native buffers that end where the offsets end (a read past them throws). */
    private static void assertScansAgree(Arena arena, long[] offsets, long limit, String what) {
        long expected = reference(offsets, limit);
        MemorySegment ints = arena.allocate(4L * offsets.length + 1).asSlice(0, 4L * offsets.length);
        MemorySegment longs = arena.allocate(8L * offsets.length + 1).asSlice(0, 8L * offsets.length);
        boolean fitsInts = true;
        for (int i = 0; i < offsets.length; i++) {
            fitsInts &= offsets[i] == (int) offsets[i];
            ints.set(ValueLayout.JAVA_INT_UNALIGNED, 4L * i, (int) offsets[i]);
            longs.set(ValueLayout.JAVA_LONG_UNALIGNED, 8L * i, offsets[i]);
        }
        String where = what + ", limit " + limit + " (seed " + SEED + ")";
        assertEquals(expected, OffsetScan.firstBadLong(longs, offsets.length, limit), where + ", 8-byte offsets");
        if (fitsInts) {
            assertEquals(expected, OffsetScan.firstBadInt(ints, offsets.length, limit), where + ", 4-byte offsets");
        }
    }

    /** The faults planted at {@code at}: negative, past the limit, below the offset before, and a valid change. */
    private static long[] faults(long[] o, int at, long limit) {
        return new long[] {
            -1, Integer.MIN_VALUE, limit + 1, Integer.MAX_VALUE, at > 0 ? o[at - 1] - 1 : -5, at > 0 ? o[at - 1] : 0
        };
    }

    @Test
    void everyFaultAtEveryPositionNearEitherEndIsFoundFirst() {
        Random random = new Random(SEED);
        for (int count = 0; count <= 300; count++) {
            long[] o = valid(random, count);
            long end = count == 0 ? 0 : o[count - 1];
            for (long limit : new long[] {end, end + random.nextInt(10)}) {
                assertScansAgree(o, limit, count + " valid offsets");
                for (int at = 0; at < count; at++) {
                    if (at >= EDGE && at < count - EDGE) {
                        continue;
                    }
                    long saved = o[at];
                    for (long bad : faults(o, at, limit)) {
                        o[at] = bad;
                        assertScansAgree(o, limit, count + " offsets, " + bad + " at " + at);
                        // A second fault after the first changes nothing.
                        int later = at + 1 + random.nextInt(count - at);
                        if (later < count) {
                            long kept = o[later];
                            o[later] = -7;
                            assertScansAgree(o, limit, count + " offsets, " + bad + " at " + at + ", -7 after");
                            o[later] = kept;
                        }
                    }
                    o[at] = saved;
                }
            }
        }
    }

    @Test
    void aLongBufferIsScannedToItsEnd() {
        Random random = new Random(SEED + 1);
        int count = (1 << 18) + 7;
        long[] o = valid(random, count);
        long limit = o[count - 1];
        try (Arena arena = Arena.ofConfined()) {
            assertScansAgree(arena, o, limit, count + " valid offsets");
            for (int at : new int[] {count - 1, count - 2, count - 17, count / 2, count / 2 + 1}) {
                long saved = o[at];
                for (long bad : faults(o, at, limit)) {
                    o[at] = bad;
                    assertScansAgree(arena, o, limit, count + " offsets, " + bad + " at " + at);
                }
                o[at] = saved;
            }
        }
    }
}
