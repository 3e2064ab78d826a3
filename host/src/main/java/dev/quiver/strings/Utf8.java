package dev.quiver.strings;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * UTF-8 over bytes in memory: ASCII tests (several vectors per step with the Vector API, eight
 * bytes per step without), case mapping eight bytes per step (SWAR on little-endian words),
 * validation, and decoding of one code point. The string kernels and
 * string RowFns are written on these.
 */
public final class Utf8 {
    /** Unaligned little-endian 64-bit words. */
    public static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Unaligned little-endian 32-bit offsets. */
    public static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Whether the Vector API module is present (Quiver's launcher and tests add it); without it the ASCII tests read words. */
    static final boolean VECTOR_API =
            ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    static final long HIGH_BITS = 0x8080_8080_8080_8080L;
    static final long ONES = 0x0101_0101_0101_0101L;

    private Utf8() {}

    /** Whether the bytes {@code [from, to)} of {@code d} are all ASCII (below 0x80). */
    public static boolean isAscii(MemorySegment d, long from, long to) {
        return firstNonAscii(d, from, to) < 0;
    }

    /**
     * Where the first byte of {@code [from, to)} of {@code d} that is not ASCII (0x80 or above)
     * is, or -1 when there is none (an empty range included). With the Vector API, a range of at
     * least one vector of a native segment is read several vectors per step ({@link AsciiScan});
     * shorter ones, and native segments without the Vector API, eight bytes per step; a heap
     * segment over a {@code byte[]} byte by byte from the array.
     */
    public static long firstNonAscii(MemorySegment d, long from, long to) {
        if (d.isNative()) {
            return VECTOR_API && to - from >= AsciiScan.LANES
                    ? AsciiScan.firstNonAscii(d, from, to)
                    : firstNonAsciiWords(d, from, to);
        }
        // A heap segment goes through none of the JDK's segment access code: the JIT's profiles
        // of that code are shared by every caller, and once it had seen heap segments (tests,
        // literals, dictionaries) the loops above ran Arrow's native buffers 3x slower (5 to 10x
        // for the words; ValidationBenchmark.asciiQuiver, asciiAfterHeap).
        if (d.heapBase().orElse(null) instanceof byte[] array) {
            if (from >= to) {
                return -1;
            }
            Objects.checkFromToIndex(from, to, d.byteSize());
            long base = d.address(); // where the segment starts in the array
            for (long k = from; k < to; k++) {
                if (array[(int) (base + k)] < 0) {
                    return k;
                }
            }
            return -1;
        }
        return firstNonAsciiWords(d, from, to); // read-only, or over an array of wider elements
    }

    /** {@link #firstNonAscii} eight bytes per step: four words OR-ed per step, then a word at a time, then byte by byte. */
    static long firstNonAsciiWords(MemorySegment d, long from, long to) {
        long k = from;
        for (; k + 32 <= to; k += 32) {
            if (((d.get(WORD, k) | d.get(WORD, k + 8) | d.get(WORD, k + 16) | d.get(WORD, k + 24)) & HIGH_BITS) != 0) {
                break; // the word loop below finds it within these four
            }
        }
        for (; k + 8 <= to; k += 8) {
            long high = d.get(WORD, k) & HIGH_BITS;
            if (high != 0) {
                return k + (Long.numberOfTrailingZeros(high) >>> 3); // little-endian: the lowest byte is the first
            }
        }
        for (; k < to; k++) {
            if (d.get(ValueLayout.JAVA_BYTE, k) < 0) {
                return k;
            }
        }
        return -1;
    }

    /**
     * Where the first invalid UTF-8 sequence in {@code [from, to)} starts, or -1 when the bytes
     * are valid UTF-8 (RFC 3629). Runs of ASCII are skipped as {@link #firstNonAscii} finds them.
     */
    public static long firstInvalid(MemorySegment d, long from, long to) {
        long k = firstNonAscii(d, from, to);
        while (k >= 0) {
            int b = d.get(ValueLayout.JAVA_BYTE, k) & 0xFF; // 0x80 or above
            int n;
            int lo = 0x80;
            int hi = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) {
                n = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                n = 2;
                if (b == 0xE0) {
                    lo = 0xA0;
                } else if (b == 0xED) {
                    hi = 0x9F;
                }
            } else if (b >= 0xF0 && b <= 0xF4) {
                n = 3;
                if (b == 0xF0) {
                    lo = 0x90;
                } else if (b == 0xF4) {
                    hi = 0x8F;
                }
            } else {
                return k;
            }
            if (k + n >= to) {
                return k;
            }
            int c1 = d.get(ValueLayout.JAVA_BYTE, k + 1) & 0xFF;
            if (c1 < lo || c1 > hi) {
                return k;
            }
            for (int j = 2; j <= n; j++) {
                int c = d.get(ValueLayout.JAVA_BYTE, k + j) & 0xFF;
                if ((c & 0xC0) != 0x80) {
                    return k;
                }
            }
            k = firstNonAscii(d, k + n + 1, to);
        }
        return -1;
    }

    /** The number of code points in the valid UTF-8 bytes {@code [from, to)}: the bytes that do not continue a sequence. */
    public static long codePoints(MemorySegment d, long from, long to) {
        long continuations = 0;
        long k = from;
        for (; k + 8 <= to; k += 8) {
            long w = d.get(WORD, k);
            // A continuation byte is 10xxxxxx: bit 7 set and bit 6 clear.
            continuations += Long.bitCount(w & ~(w << 1) & HIGH_BITS);
        }
        for (; k < to; k++) {
            if ((d.get(ValueLayout.JAVA_BYTE, k) & 0xC0) == 0x80) {
                continuations++;
            }
        }
        return (to - from) - continuations;
    }

    /** The code point of the valid UTF-8 sequence that starts at {@code at}. */
    public static int decode(MemorySegment d, long at) {
        int b = d.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
        if (b < 0x80) {
            return b;
        }
        if (b < 0xE0) {
            return ((b & 0x1F) << 6) | (d.get(ValueLayout.JAVA_BYTE, at + 1) & 0x3F);
        }
        if (b < 0xF0) {
            return ((b & 0x0F) << 12)
                    | ((d.get(ValueLayout.JAVA_BYTE, at + 1) & 0x3F) << 6)
                    | (d.get(ValueLayout.JAVA_BYTE, at + 2) & 0x3F);
        }
        return ((b & 0x07) << 18)
                | ((d.get(ValueLayout.JAVA_BYTE, at + 1) & 0x3F) << 12)
                | ((d.get(ValueLayout.JAVA_BYTE, at + 2) & 0x3F) << 6)
                | (d.get(ValueLayout.JAVA_BYTE, at + 3) & 0x3F);
    }

    /** The length in bytes of the sequence whose first byte is {@code first} (1 for ASCII and for a stray byte). */
    public static int sequenceLength(byte first) {
        int b = first & 0xFF;
        return b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    }

    /** The number of UTF-8 bytes that encode {@code codePoint}. */
    public static int encodedLength(int codePoint) {
        return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    }

    /** ASCII {@code a-z} to {@code A-Z} in each byte of a word of ASCII bytes (every byte below 0x80). */
    public static long upperAsciiWord(long w) {
        long geA = w + ONES * (0x80 - 'a');
        long gtZ = w + ONES * (0x80 - 'z' - 1);
        return w ^ (((geA & ~gtZ) & HIGH_BITS) >>> 2);
    }

    /** ASCII {@code A-Z} to {@code a-z} in each byte of a word of ASCII bytes (every byte below 0x80). */
    public static long lowerAsciiWord(long w) {
        long geA = w + ONES * (0x80 - 'A');
        long gtZ = w + ONES * (0x80 - 'Z' - 1);
        return w ^ (((geA & ~gtZ) & HIGH_BITS) >>> 2);
    }
}
