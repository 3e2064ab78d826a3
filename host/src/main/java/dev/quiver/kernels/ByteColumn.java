package dev.quiver.kernels;

import dev.quiver.types.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;

/**
 * Bounds-checked views of a Utf8, LargeUtf8 or Binary operand: row {@code i} is the bytes
 * {@code [start(i), end(i))} of {@link #data}. A scalar operand reads its one row for every row.
 * The views belong to the {@link PredicateOutput} that made them and end with it.
 */
final class ByteColumn {
    final MemorySegment data;
    /** The offsets (Int32, or Int64 when {@link #large}), for loops that read them without the constant check. */
    final MemorySegment offsets;

    final boolean large;
    /** A scalar: every row reads row 0. */
    final boolean constant;

    private ByteColumn(MemorySegment data, MemorySegment offsets, boolean large, boolean constant) {
        this.data = data;
        this.offsets = offsets;
        this.large = large;
        this.constant = constant;
    }

    /** Views of {@code in}'s buffers in {@code out}'s arena; {@code in} must not be of the Null type. */
    static ByteColumn of(KernelInput in, PredicateOutput out) {
        if (!(in.type instanceof DataType.Utf8 || in.type instanceof DataType.Binary)) {
            // Unreachable from a plan: only string and binary operands are read as bytes.
            throw new UnsupportedOperationException("no byte reader for " + in.type);
        }
        return new ByteColumn(
                out.view(in.vector.getDataBuffer()),
                out.view(in.vector.getOffsetBuffer()),
                in.type instanceof DataType.Utf8 u && u.large(),
                in.constant);
    }

    /** Bounds-checked views of a Utf8 or LargeUtf8 vector's buffers (every row its own) that live as long as {@code arena}. */
    static ByteColumn of(FieldVector v, Arena arena) {
        return new ByteColumn(
                view(v.getDataBuffer(), arena),
                view(v.getOffsetBuffer(), arena),
                v instanceof LargeVarCharVector,
                false);
    }

    private static MemorySegment view(ArrowBuf buf, Arena arena) {
        if (buf == null || buf.capacity() == 0) {
            return MemorySegment.NULL.reinterpret(0, arena, null);
        }
        return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(buf.capacity(), arena, null);
    }

    long start(int row) {
        int r = constant ? 0 : row;
        return large
                ? offsets.get(PredicateOutput.WORD, (long) r << 3)
                : offsets.get(PredicateOutput.INT, (long) r << 2);
    }

    long end(int row) {
        int r = constant ? 1 : row + 1;
        return large
                ? offsets.get(PredicateOutput.WORD, (long) r << 3)
                : offsets.get(PredicateOutput.INT, (long) r << 2);
    }

    /** Whether the {@code length} bytes of {@code a} at {@code aAt} equal those of {@code b} at {@code bAt}. */
    static boolean equal(MemorySegment a, long aAt, MemorySegment b, long bAt, long length) {
        long k = 0;
        for (; k + 8 <= length; k += 8) {
            if (a.get(PredicateOutput.WORD, aAt + k) != b.get(PredicateOutput.WORD, bAt + k)) {
                return false;
            }
        }
        for (; k < length; k++) {
            if (a.get(ValueLayout.JAVA_BYTE, aAt + k) != b.get(ValueLayout.JAVA_BYTE, bAt + k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The {@code n <= 8} bytes of {@code s} at {@code at} as a little-endian word (higher bytes 0);
     * reads a whole word where the view has room for one.
     */
    static long partialWord(MemorySegment s, long at, int n) {
        if (at + 8 <= s.byteSize()) {
            return s.get(PredicateOutput.WORD, at) & lowBytes(n);
        }
        long w = 0;
        for (int k = 0; k < n; k++) {
            w |= (s.get(ValueLayout.JAVA_BYTE, at + k) & 0xFFL) << (k << 3);
        }
        return w;
    }

    /** A mask of the low {@code n} bytes, {@code 0 <= n <= 8}, without a branch (a shift by 64 is a shift by 0 in Java: shift twice). */
    static long lowBytes(int n) {
        return ~((-1L << (n << 2)) << (n << 2));
    }
}
