package dev.quiver.strings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@link Utf8#firstNonAscii}, {@link Utf8#isAscii} and {@link Utf8#firstInvalid} against a byte
 * by byte loop, on every path: the public dispatch, the eight-bytes-per-step words
 * ({@link Utf8#firstNonAsciiWords}) and, where the Vector API module is present, the vectors of
 * {@link AsciiScan}; each on a heap segment (writable, read-only, a slice) and on a native one, with non-ASCII bytes just
 * outside the range (a read past either end would find them) and on a segment that ends where
 * the range ends (a read past it throws).
 */
class AsciiScanTest {
    private static final long SEED = 20_251_202L;
    /** Bytes at either end of a range where every position gets a non-ASCII byte of its own. */
    private static final int EDGE = 130;
    /** Non-ASCII bytes on both sides of a range. */
    private static final int GUARD = 80;

    private static long reference(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] < 0) {
                return i;
            }
        }
        return -1;
    }

    private static byte[] ascii(Random random, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) random.nextInt(0x80);
        }
        return b;
    }

    private static byte high(Random random) {
        return (byte) (0x80 | random.nextInt(0x80));
    }

    /** The bytes on the heap and natively; {@link #set} keeps both alike. */
    private record Bytes(byte[] array, MemorySegment heap, MemorySegment nativeCopy) {
        static Bytes of(byte[] array, Arena arena) {
            MemorySegment n = arena.allocate(Math.max(1, array.length)).asSlice(0, array.length);
            MemorySegment.copy(array, 0, n, ValueLayout.JAVA_BYTE, 0, array.length);
            return new Bytes(array, MemorySegment.ofArray(array), n);
        }

        void set(int at, byte value) {
            array[at] = value;
            nativeCopy.set(ValueLayout.JAVA_BYTE, at, value);
        }
    }

    /** Every path finds in {@code [from, to)} what the reference finds. */
    private static void assertAllPathsAgree(Bytes b, int from, int to, String what) {
        long expected = reference(b.array(), from, to);
        MemorySegment[] kinds = {b.heap(), b.heap().asReadOnly(), b.nativeCopy()};
        for (int kind = 0; kind < kinds.length; kind++) {
            MemorySegment s = kinds[kind];
            String where =
                    what + ", " + List.of("heap", "read-only heap", "native").get(kind) + " [" + from + ", " + to
                            + ") (seed " + SEED + ")";
            assertEquals(expected, Utf8.firstNonAscii(s, from, to), where);
            assertEquals(expected < 0, Utf8.isAscii(s, from, to), where);
            assertEquals(expected, Utf8.firstNonAsciiWords(s, from, to), where);
            if (Utf8.VECTOR_API && to - from >= AsciiScan.LANES) {
                assertEquals(expected, AsciiScan.firstNonAscii(s, from, to), where);
            }
        }
    }

    private static boolean nearAnEnd(int p, int n) {
        return p < EDGE || p >= n - EDGE;
    }

    @Test
    void everyLengthUpTo300FindsAHighByteAtEveryPosition() {
        Random random = new Random(SEED);
        try (Arena arena = Arena.ofConfined()) {
            for (int n = 0; n <= 300; n++) {
                int from = GUARD + n % 7; // ranges that start at every alignment
                byte[] guarded = ascii(random, from + n + GUARD);
                for (int i = 0; i < from; i++) {
                    guarded[i] = high(random);
                }
                for (int i = from + n; i < guarded.length; i++) {
                    guarded[i] = high(random);
                }
                Bytes g = Bytes.of(guarded, arena);
                Bytes exact = Bytes.of(Arrays.copyOfRange(guarded, from, from + n), arena);
                assertAllPathsAgree(g, from, from + n, n + " ASCII bytes between non-ASCII ones");
                assertAllPathsAgree(exact, 0, n, n + " ASCII bytes");
                MemorySegment slice = g.heap().asSlice(from, n); // a heap segment that starts inside its array
                assertEquals(-1, Utf8.firstNonAscii(slice, 0, n), n + " ASCII bytes, heap slice");
                for (int p = 0; p < n; p++) {
                    if (!nearAnEnd(p, n)) {
                        continue;
                    }
                    byte h = high(random);
                    g.set(from + p, h);
                    exact.set(p, h);
                    assertAllPathsAgree(g, from, from + n, n + " bytes, one high at " + p);
                    assertAllPathsAgree(exact, 0, n, n + " bytes, one high at " + p);
                    assertEquals(p, Utf8.firstNonAscii(slice, 0, n), n + " bytes, one high at " + p + ", heap slice");
                    int q = p + 1 + random.nextInt(n - p);
                    if (q < n) {
                        g.set(from + q, high(random));
                        exact.set(q, high(random));
                        assertAllPathsAgree(g, from, from + n, n + " bytes, high at " + p + " and " + q);
                        assertAllPathsAgree(exact, 0, n, n + " bytes, high at " + p + " and " + q);
                        g.set(from + q, (byte) 'q');
                        exact.set(q, (byte) 'q');
                    }
                    g.set(from + p, (byte) 'p');
                    exact.set(p, (byte) 'p');
                }
            }
        }
    }

    @Test
    void megabytesFindAHighByteNearEitherEndAndInside() {
        Random random = new Random(SEED + 1);
        int n = (2 << 20) + 37;
        try (Arena arena = Arena.ofConfined()) {
            Bytes b = Bytes.of(ascii(random, n), arena);
            assertAllPathsAgree(b, 0, n, "2 MB of ASCII");
            assertAllPathsAgree(b, 3, n - 5, "2 MB of ASCII");
            int[] positions = IntStream.concat(
                            IntStream.range(0, EDGE),
                            IntStream.concat(random.ints(20, EDGE, n - EDGE), IntStream.range(n - EDGE, n)))
                    .toArray();
            for (int p : positions) {
                b.set(p, high(random));
                assertAllPathsAgree(b, 0, n, "2 MB, one high byte at " + p);
                b.set(p, (byte) 'x');
            }
        }
    }

    /** Sequences planted in ASCII: valid ones, and invalid ones that {@link Utf8#firstInvalid} must report where they start. */
    private static final byte[][] VALID = {
        "é".getBytes(StandardCharsets.UTF_8),
        "€".getBytes(StandardCharsets.UTF_8),
        "𝄞".getBytes(StandardCharsets.UTF_8)
    };

    private static final byte[][] INVALID = {
        {(byte) 0xFF},
        {(byte) 0x80},
        {(byte) 0xC0, (byte) 0x80},
        {(byte) 0xE2, (byte) 0x82},
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
        {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}
    };

    @Test
    void validationSkipsAsciiRunsAndFindsWhatIsPlantedInThem() {
        Random random = new Random(SEED + 2);
        try (Arena arena = Arena.ofConfined()) {
            for (int n = 0; n <= 300; n++) {
                byte[] plain = ascii(random, n);
                assertEquals(-1, Utf8.firstInvalid(Bytes.of(plain, arena).nativeCopy(), 0, n));
                for (int p = 0; p < n; p++) {
                    if (!nearAnEnd(p, n)) {
                        continue;
                    }
                    boolean valid = random.nextBoolean();
                    byte[] seq = valid ? VALID[random.nextInt(VALID.length)] : INVALID[random.nextInt(INVALID.length)];
                    if (p + seq.length > n) {
                        continue;
                    }
                    byte[] b = plain.clone();
                    System.arraycopy(seq, 0, b, p, seq.length);
                    Bytes both = Bytes.of(b, arena);
                    long expected = valid ? -1 : p;
                    String what =
                            n + " bytes, " + HexFormat.of().formatHex(seq) + " at " + p + " (seed " + (SEED + 2) + ")";
                    assertEquals(expected, Utf8.firstInvalid(both.heap(), 0, n), what + ", heap");
                    assertEquals(expected, Utf8.firstInvalid(both.nativeCopy(), 0, n), what + ", native");
                    assertTrue(valid == Utf8Test.jdkValid(b), what + ": the JDK agrees on validity");
                }
            }
        }
    }
}
