package dev.quiver.kernels;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.BufferedReader;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * The selected rows of a fixed-width column packed to the front of another, with the Vector API's
 * {@code compress}, a value a lane (long, int, short or byte lanes). Each vector's lanes of a 64-row
 * word are loaded, compressed by their slice of the word as a mask, and stored at the next free
 * byte of the result, which then moves on by the kept lanes. The lanes past those stay garbage
 * until the next store overwrites them; near the end of the result the store is masked to the
 * kept lanes, so nothing is written past it. A word of zeros costs nothing; a word of ones is
 * compressed like any other (every lane kept: cheaper than a bulk copy's call, and than a branch
 * on the word).
 *
 * <p>Branch-free for a selection that keeps most rows at random, where a walk run by run takes a
 * branch and a short copy per run. Only worth it where {@code compress} is one instruction
 * ({@link #fast}); elsewhere the Vector API computes it lane by lane, correctly but slowly.
 * Only loaded when the {@code jdk.incubator.vector} module is present.
 */
final class VectorCompress {
    private static final VectorSpecies<Long> I64 = LongVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I32 = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Short> I16 = ShortVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> I8 = ByteVector.SPECIES_PREFERRED;
    private static final long LANES64 = lowBits(I64.length());
    private static final long LANES32 = lowBits(I32.length());
    private static final long LANES16 = lowBits(I16.length());
    private static final long LANES8 = lowBits(I8.length());
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** {@link #fast} for 4- and 8-byte lanes. */
    private static final boolean FAST_WIDE = vmOption("UseAVX", 3) || vmOption("UseSVE", 1);
    /** {@link #fast} for 1- and 2-byte lanes (VPCOMPRESSB/W). */
    private static final boolean FAST_NARROW = vmOption("UseAVX", 3) && cpuFlag("avx512_vbmi2");

    private VectorCompress() {}

    private static long lowBits(int n) {
        return n >= 64 ? -1L : (1L << n) - 1;
    }

    /** Whether 64 lanes split evenly into vectors of every species here. */
    static boolean usable() {
        return 64 % I64.length() == 0 && 64 % I32.length() == 0 && 64 % I16.length() == 0 && 64 % I8.length() == 0;
    }

    /**
     * Whether HotSpot compiles {@code compress} of {@code width}-byte lanes to one instruction here:
     * 4- and 8-byte lanes on x86 with AVX-512 ({@code -XX:UseAVX=3}) and on AArch64 with SVE
     * ({@code -XX:UseSVE} above 0); 1- and 2-byte lanes on x86 with AVX-512 and AVX512_VBMI2,
     * which only Linux's {@code /proc/cpuinfo} tells. False where the JVM does not say (no HotSpot
     * diagnostic bean, another architecture), and for other widths. {@link #filter} gives the same
     * values either way, lane by lane in Java where this is false.
     */
    static boolean fast(int width) {
        return switch (width) {
            case 8, 4 -> FAST_WIDE;
            case 2, 1 -> FAST_NARROW;
            default -> false;
        };
    }

    /** Whether HotSpot's integer option {@code name} (UseAVX on x86, UseSVE on AArch64) is at least {@code least}. */
    private static boolean vmOption(String name, int least) {
        String arch = System.getProperty("os.arch", "");
        boolean mine = name.equals("UseAVX") ? arch.equals("amd64") || arch.equals("x86_64") : arch.equals("aarch64");
        if (!mine) {
            return false;
        }
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return vm != null && Integer.parseInt(vm.getVMOption(name).getValue()) >= least;
        } catch (RuntimeException | LinkageError e) {
            // No such option (another JVM, a build without it), or no management module.
            return false;
        }
    }

    /** Whether the first {@code flags} line of {@code /proc/cpuinfo} names {@code flag} (false where there is none). */
    private static boolean cpuFlag(String flag) {
        try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/cpuinfo"), StandardCharsets.US_ASCII)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("flags")) {
                    return (" " + line.substring(line.indexOf(':') + 1) + " ").contains(" " + flag + " ");
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Value {@code k} of {@code dst} := value {@code r} of {@code src} ({@code width} 1, 2, 4 or 8
     * bytes), for the k-th selected row r of the selection's whole words; the caller moves the rows
     * of a last partial word, from the returned position on. Returns the values written (the bit
     * count of the whole words).
     */
    static long filter(MemorySegment src, MemorySegment dst, int width, Selection selection) {
        // A loop of its own per lane type, compiled apart: in one loop over every width, the
        // profile of one width slowed another's (8-byte values by a third, measured). Generic code
        // over VectorSpecies<E> instead is not compiled to vector instructions at all (30x slower).
        long bytes = switch (width) {
            case 8 -> longs(src, dst, selection);
            case 4 -> ints(src, dst, selection);
            case 2 -> shorts(src, dst, selection);
            case 1 -> bytes(src, dst, selection);
            default -> throw new IllegalArgumentException("compress moves 1-, 2-, 4- or 8-byte values, not " + width);
        };
        return bytes / width;
    }

    /** {@link #filter} of 8-byte values as long lanes; returns the bytes written. */
    private static long longs(MemorySegment src, MemorySegment dst, Selection selection) {
        int lanes = I64.length();
        long roomy = dst.byteSize() - I64.vectorByteSize(); // up to here a whole vector fits
        long k = 0;
        for (int wi = 0, whole = selection.rows() >>> 6; wi < whole; wi++) {
            long w = selection.word(wi);
            long at = (long) wi << 9;
            for (int j = 0; w != 0 && j < 64; j += lanes) {
                long bits = (w >>> j) & LANES64;
                int kept = Long.bitCount(bits);
                LongVector v = LongVector.fromMemorySegment(I64, src, at + ((long) j << 3), LE)
                        .compress(VectorMask.fromLong(I64, bits));
                if (k <= roomy) {
                    v.intoMemorySegment(dst, k, LE);
                } else {
                    v.intoMemorySegment(dst, k, LE, I64.indexInRange(0, kept));
                }
                k += (long) kept << 3;
            }
        }
        return k;
    }

    /** {@link #filter} of 4-byte values as int lanes; returns the bytes written. */
    private static long ints(MemorySegment src, MemorySegment dst, Selection selection) {
        int lanes = I32.length();
        long roomy = dst.byteSize() - I32.vectorByteSize();
        long k = 0;
        for (int wi = 0, whole = selection.rows() >>> 6; wi < whole; wi++) {
            long w = selection.word(wi);
            long at = (long) wi << 8;
            for (int j = 0; w != 0 && j < 64; j += lanes) {
                long bits = (w >>> j) & LANES32;
                int kept = Long.bitCount(bits);
                IntVector v = IntVector.fromMemorySegment(I32, src, at + ((long) j << 2), LE)
                        .compress(VectorMask.fromLong(I32, bits));
                if (k <= roomy) {
                    v.intoMemorySegment(dst, k, LE);
                } else {
                    v.intoMemorySegment(dst, k, LE, I32.indexInRange(0, kept));
                }
                k += (long) kept << 2;
            }
        }
        return k;
    }

    /** {@link #filter} of 2-byte values as short lanes; returns the bytes written. */
    private static long shorts(MemorySegment src, MemorySegment dst, Selection selection) {
        int lanes = I16.length();
        long roomy = dst.byteSize() - I16.vectorByteSize();
        long k = 0;
        for (int wi = 0, whole = selection.rows() >>> 6; wi < whole; wi++) {
            long w = selection.word(wi);
            long at = (long) wi << 7;
            for (int j = 0; w != 0 && j < 64; j += lanes) {
                long bits = (w >>> j) & LANES16;
                int kept = Long.bitCount(bits);
                ShortVector v = ShortVector.fromMemorySegment(I16, src, at + ((long) j << 1), LE)
                        .compress(VectorMask.fromLong(I16, bits));
                if (k <= roomy) {
                    v.intoMemorySegment(dst, k, LE);
                } else {
                    v.intoMemorySegment(dst, k, LE, I16.indexInRange(0, kept));
                }
                k += (long) kept << 1;
            }
        }
        return k;
    }

    /** {@link #filter} of 1-byte values as byte lanes; returns the bytes written. */
    private static long bytes(MemorySegment src, MemorySegment dst, Selection selection) {
        int lanes = I8.length();
        long roomy = dst.byteSize() - I8.vectorByteSize();
        long k = 0;
        for (int wi = 0, whole = selection.rows() >>> 6; wi < whole; wi++) {
            long w = selection.word(wi);
            long at = (long) wi << 6;
            for (int j = 0; w != 0 && j < 64; j += lanes) {
                long bits = (w >>> j) & LANES8;
                int kept = Long.bitCount(bits);
                ByteVector v =
                        ByteVector.fromMemorySegment(I8, src, at + j, LE).compress(VectorMask.fromLong(I8, bits));
                if (k <= roomy) {
                    v.intoMemorySegment(dst, k, LE);
                } else {
                    v.intoMemorySegment(dst, k, LE, I8.indexInRange(0, kept));
                }
                k += kept;
            }
        }
        return k;
    }
}
