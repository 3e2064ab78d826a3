package dev.quiver.kernels;

import dev.quiver.errors.InputException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Packed bitmaps as {@code long[]} words (bit {@code i} of word {@code i >>> 6} is row {@code i},
 * Arrow's LSB-first order): reading and writing Arrow bitmaps, and the bit-level gather and
 * scatter that filters, scatters and merges of validity bitmaps and Boolean values are made of.
 *
 * <p>Also the one place where an Arrow buffer becomes a {@link MemorySegment} for the selection
 * kernels: {@link #view} is bounded by the buffer's capacity (every access is checked) and is
 * only ever held in local variables of a kernel call, so it never outlives the vector it
 * aliases.
 */
final class PackedBits {
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private PackedBits() {}

    /** Words needed for {@code rows} bits. */
    static int words(int rows) {
        return (rows + 63) >>> 6;
    }

    /** A bounds-checked view of {@code buf}'s whole capacity; keep it no longer than the call that reads the buffer. */
    static MemorySegment view(ArrowBuf buf) {
        if (buf == null || buf.capacity() == 0) {
            return MemorySegment.NULL;
        }
        return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(buf.capacity());
    }

    /**
     * The first {@code rows} validity bits of {@code v}, or {@code null} when all of them are set
     * (no nulls, including a vector without a bitmap: Arrow omits it when there are no nulls, as
     * imported vectors may). Bits at or beyond {@code rows} are zero. A Null-typed vector reads
     * as all null.
     *
     * @throws IllegalArgumentException when the bitmap is shorter than {@code rows} bits
     */
    static long[] validity(FieldVector v, int rows) {
        if (v.getField().getType() instanceof ArrowType.Null) {
            return new long[words(rows)];
        }
        ArrowBuf validity = v.getValidityBuffer();
        if (validity == null || validity.capacity() == 0) {
            return null;
        }
        if (validity.capacity() < (rows + 7) >>> 3) {
            throw new InputException("the validity bitmap of vector '" + v.getName() + "' holds " + validity.capacity()
                    + " bytes, fewer than " + rows + " rows need");
        }
        long[] out = read(validity, rows);
        for (int i = 0, full = rows >>> 6; i < full; i++) {
            if (out[i] != -1L) {
                return out;
            }
        }
        int tail = rows & 63;
        if (tail != 0 && out[out.length - 1] != (1L << tail) - 1) {
            return out;
        }
        return null;
    }

    /** The first {@code rows} bits of {@code bits}; bits at or beyond {@code rows} are zero. */
    static long[] read(ArrowBuf bits, int rows) {
        long[] out = new long[words(rows)];
        read(view(bits), out, rows);
        return out;
    }

    static void read(MemorySegment bits, long[] out, int rows) {
        int bytes = (rows + 7) >>> 3;
        int full = bytes >>> 3;
        for (int i = 0; i < full; i++) {
            out[i] = bits.get(LONG, (long) i << 3);
        }
        if (full < words(rows)) {
            // The buffer may end within the last word.
            long w = 0;
            for (int b = full << 3; b < bytes; b++) {
                w |= (bits.get(ValueLayout.JAVA_BYTE, b) & 0xFFL) << ((b & 7) << 3);
            }
            out[full] = w;
        }
        int tail = rows & 63;
        if (tail != 0) {
            out[out.length - 1] &= (1L << tail) - 1;
        }
    }

    /** Writes the first {@code rows} bits of {@code words} as exactly {@code ceil(rows / 8)} bytes of {@code bits}. */
    static void write(long[] words, MemorySegment bits, int rows) {
        int bytes = (rows + 7) >>> 3;
        int full = bytes >>> 3;
        for (int i = 0; i < full; i++) {
            bits.set(LONG, (long) i << 3, words[i]);
        }
        for (int b = full << 3; b < bytes; b++) {
            bits.set(ValueLayout.JAVA_BYTE, b, (byte) (words[b >>> 3] >>> ((b & 7) << 3)));
        }
    }

    /** Sets the first {@code rows} bits of {@code bits} (whole bytes: the bits past {@code rows} in the last byte stay clear). */
    static void setAll(MemorySegment bits, int rows) {
        int bytes = (rows + 7) >>> 3;
        int full = rows >>> 3;
        bits.asSlice(0, full).fill((byte) -1);
        if (full < bytes) {
            bits.set(ValueLayout.JAVA_BYTE, full, (byte) ((1 << (rows & 7)) - 1));
        }
    }

    /** Bits {@code at .. at + n - 1} of {@code src} (n in 0..64), as the low bits of a word. */
    static long extract(long[] src, int at, int n) {
        if (n == 0) {
            return 0;
        }
        int wi = at >>> 6;
        int shift = at & 63;
        long bits = src[wi] >>> shift;
        if (shift + n > 64) {
            bits |= src[wi + 1] << (64 - shift);
        }
        return n == 64 ? bits : bits & ((1L << n) - 1);
    }

    /** ORs the low {@code n} bits of {@code bits} (n in 0..64, higher bits clear) into {@code dst} at bit {@code at}. */
    static void append(long[] dst, int at, long bits, int n) {
        int wi = at >>> 6;
        int shift = at & 63;
        dst[wi] |= bits << shift;
        if (shift + n > 64) {
            dst[wi + 1] |= bits >>> (64 - shift);
        }
    }

    /** The bits of {@code src} at the rows {@code selection} selects, packed in order ({@code selection.count()} bits). */
    static long[] filter(long[] src, Selection selection) {
        long[] out = new long[words(selection.count())];
        int k = 0;
        for (int wi = 0, n = selection.wordCount(); wi < n; wi++) {
            long w = selection.word(wi);
            if (w == 0) {
                continue;
            }
            int c = Long.bitCount(w);
            append(out, k, w == -1L ? src[wi] : Long.compress(src[wi], w), c);
            k += c;
        }
        return out;
    }

    /** The bits of {@code src} at {@code indices}, in that order. */
    static long[] take(long[] src, int[] indices) {
        long[] out = new long[words(indices.length)];
        for (int k = 0; k < indices.length; k++) {
            int r = indices[k];
            out[k >>> 6] |= ((src[r >>> 6] >>> r) & 1L) << k;
        }
        return out;
    }

    /**
     * One input of {@link #merge}: where its bits come from for the rows of its selection.
     * {@code words == null} means "all set"; {@code compact}: the k-th selected row takes bit k.
     */
    record Source(Selection rows, long[] words, boolean compact) {
        static Source ones(Selection rows) {
            return new Source(rows, null, false);
        }
    }

    /** ORs into {@code out}, for each source, its bits at the rows it selects (sources are disjoint). */
    static void merge(long[] out, Source s) {
        Selection sel = s.rows();
        long[] src = s.words();
        int k = 0;
        for (int wi = 0, n = sel.wordCount(); wi < n; wi++) {
            long w = sel.word(wi);
            if (w == 0) {
                continue;
            }
            if (src == null) {
                out[wi] |= w;
            } else if (!s.compact()) {
                out[wi] |= src[wi] & w;
            } else {
                int c = Long.bitCount(w);
                long bits = extract(src, k, c);
                out[wi] |= w == -1L ? bits : Long.expand(bits, w);
                k += c;
            }
        }
    }
}
