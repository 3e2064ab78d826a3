package dev.quiver.kernels;

import dev.quiver.cancel.Cancellation;
import dev.quiver.types.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * The Boolean result of a predicate kernel (IN, BETWEEN, LIKE), written 64 rows per step,
 * together with bounds-checked views of the input buffers the kernel reads.
 *
 * <p>Every view lives in one confined arena that {@link #finish()} and {@link #close()} end, so
 * no view outlives the call that made it. {@link #finish()} hands the vector to the caller;
 * {@link #close()} without it (an exception) frees the vector too.
 *
 * <pre>{@code
 * try (PredicateOutput out = PredicateOutput.allocate(rows, allocator)) {
 *     for (int w = 0; w < out.words(); w++) {
 *         long valid = out.inputValidity(v, w);
 *         out.store(w, valid, matches & valid);
 *     }
 *     return out.finish();
 * }
 * }</pre>
 */
final class PredicateOutput implements AutoCloseable {
    /** A word stored with {@code (w & CHECK_WORDS) == 0} is a cancellation boundary (every 1024 rows). */
    private static final int CHECK_WORDS = 15;

    static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final FieldVector vector;
    private final Arena arena;
    private final MemorySegment validity;
    private final MemorySegment values;
    private final int rows;
    private boolean finished;

    /** Whether {@link #combine} merges into a running AND (else OR); only for an output {@link #into} a target. */
    private final boolean and;

    private PredicateOutput(FieldVector vector, Arena arena, int rows) {
        this.vector = vector;
        this.arena = arena;
        this.rows = rows;
        this.validity = view(vector.getValidityBuffer());
        this.values = view(vector.getDataBuffer());
        this.and = false;
    }

    private PredicateOutput(MemorySegment validity, MemorySegment values, int rows, boolean and) {
        this.vector = null;
        this.arena = Arena.ofConfined();
        this.rows = rows;
        this.validity = validity;
        this.values = values;
        this.and = and;
    }

    /**
     * An output that is combined ({@link #combine}) into the running AND ({@code and}) or OR
     * result of a chain, held in the bitmaps {@code validity} and {@code values} of {@code rows}
     * rows, instead of a vector of its own; {@link #finish()} then returns null.
     */
    static PredicateOutput into(MemorySegment validity, MemorySegment values, int rows, boolean and) {
        return new PredicateOutput(validity, values, rows, and);
    }

    /** Whether this output is combined into a target ({@link #into}). */
    boolean combining() {
        return vector == null;
    }

    /**
     * The rows of word {@code w} the target has not decided (not FALSE for AND, not TRUE for OR):
     * the only ones whose value {@link #combine} can change; all rows when not {@link #combining}.
     */
    long undecided(int w) {
        if (vector != null) {
            return -1L;
        }
        long tv = Bitmaps.word(validity, w);
        long td = Bitmaps.word(values, w) & tv;
        return Kleene.undecided(and, tv, td);
    }

    /**
     * Kleene-combines rows {@code 64w .. 64w + 63} ({@code valid}, {@code value}) into the target
     * of an output {@link #into} a chain's result; rows the target has decided keep their value.
     */
    void combine(int w, long valid, long value) {
        if ((w & CHECK_WORDS) == 0) {
            Cancellation.check();
        }
        long tv = Bitmaps.word(validity, w);
        long td = Bitmaps.word(values, w) & tv;
        long cd = value & valid;
        long nv = Kleene.valid(and, tv, td, valid, cd) & liveMask(w);
        Bitmaps.setWord(validity, w, nv, rows);
        Bitmaps.setWord(values, w, Kleene.value(and, td, cd, nv), rows);
    }

    /** A Boolean vector named "result" of {@code rows} rows (all null until stored). */
    static PredicateOutput allocate(int rows, BufferAllocator allocator) {
        FieldVector v = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        Arena arena = Arena.ofConfined();
        try {
            return new PredicateOutput(v, arena, rows);
        } catch (RuntimeException | Error e) {
            arena.close();
            v.close();
            throw e;
        }
    }

    /** Words of 64 rows the result has (the last may be partial). */
    int words() {
        return (rows + 63) >>> 6;
    }

    int rows() {
        return rows;
    }

    /** The rows of word {@code w} that exist: all 64, or the low bits of a partial last word. */
    long liveMask(int w) {
        int live = rows - (w << 6);
        return live >= 64 ? -1L : (1L << live) - 1;
    }

    /**
     * A bounds-checked view of all of {@code buf} (its capacity, which may exceed what the rows
     * use), valid until this output is finished or closed; an empty view for a missing buffer.
     */
    MemorySegment view(ArrowBuf buf) {
        if (buf == null || buf.capacity() == 0) {
            return MemorySegment.NULL.reinterpret(0, arena, null);
        }
        // The one place a raw address becomes a segment: bounded by the buffer, scoped to this call.
        return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(buf.capacity(), arena, null);
    }

    /** Bit {@code j} set when row {@code 64w + j} of {@code bits} (an LSB-first bitmap view) is set; bits past the view are 0. */
    static long bitsWord(MemorySegment bits, int w) {
        long off = (long) w << 3;
        if (off + 8 <= bits.byteSize()) {
            return bits.get(WORD, off);
        }
        long word = 0;
        for (long b = off; b < bits.byteSize() && b < off + 8; b++) {
            word |= (bits.get(ValueLayout.JAVA_BYTE, b) & 0xFFL) << ((b - off) << 3);
        }
        return word;
    }

    /**
     * A reader of an input's validity, 64 rows per word (only the live rows of a word are
     * meaningful): a scalar is all valid or all null, a vector without a bitmap all valid.
     */
    ValidityWords validity(KernelInput in) {
        if (in.isNullType()) {
            return w -> 0L;
        }
        if (in.constant) {
            long all = in.vector.isNull(0) ? 0L : -1L;
            return w -> all;
        }
        ArrowBuf buf = in.vector.getValidityBuffer();
        if (buf == null || buf.capacity() == 0) {
            long all = in.vector.getNullCount() == 0 ? -1L : 0L;
            return w -> all;
        }
        MemorySegment bits = view(buf);
        long bitmapBytes = bits.byteSize();
        if (bitmapBytes >= ResultVector.validityBytes(rows)) {
            return w -> ((long) w << 3) + 8 <= bitmapBytes ? bits.get(WORD, (long) w << 3) : bitsWord(bits, w);
        }
        // A bitmap shorter than the rows (an imported vector): rows past it follow the null count, as KernelInput does.
        boolean noNulls = in.vector.getNullCount() == 0;
        return w -> {
            long word = bitsWord(bits, w);
            long covered = Math.max(0, Math.min(64, (bitmapBytes << 3) - ((long) w << 6)));
            long beyond = covered >= 64 ? 0 : -1L << covered;
            return noNulls ? word | beyond : word & ~beyond;
        };
    }

    /** Validity of an input, 64 rows per word. */
    @FunctionalInterface
    interface ValidityWords {
        long get(int w);
    }

    /**
     * Writes rows {@code 64w .. 64w + 63}: {@code valid} is the validity, {@code value} the
     * values; bits past the last row and values of null rows are written as 0.
     */
    void store(int w, long valid, long value) {
        if ((w & CHECK_WORDS) == 0) {
            Cancellation.check(); // the predicates over strings reach a boundary every 1024 rows
        }
        long live = liveMask(w);
        valid &= live;
        value &= valid;
        long off = (long) w << 3;
        if (off + 8 <= validity.byteSize() && off + 8 <= values.byteSize()) {
            validity.set(WORD, off, valid);
            values.set(WORD, off, value);
            return;
        }
        long bytes = ResultVector.validityBytes(rows);
        for (long b = off; b < bytes && b < off + 8; b++) {
            int shift = (int) ((b - off) << 3);
            validity.set(ValueLayout.JAVA_BYTE, b, (byte) (valid >>> shift));
            values.set(ValueLayout.JAVA_BYTE, b, (byte) (value >>> shift));
        }
    }

    /** Ends the views and hands the result, now owned by the caller, over. */
    FieldVector finish() {
        finished = true;
        arena.close();
        return vector;
    }

    @Override
    public void close() {
        if (!finished) {
            arena.close();
            if (vector != null) {
                vector.close();
            }
        }
    }
}
