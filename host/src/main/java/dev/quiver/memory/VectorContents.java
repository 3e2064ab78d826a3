package dev.quiver.memory;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The contents of a flat Arrow vector (Boolean, fixed-width, or variable-width with 4- or 8-byte
 * offsets) copied onto the Java heap, a key to compare a vector with later: its kind, type,
 * value count and, per buffer, the bytes its values use (validity {@code ceil(n / 8)}; data {@code n * width}; offsets
 * {@code (n + 1) * 4} or {@code * 8} and the data up to the last offset). It holds no Arrow
 * memory, so it may be kept across batches and dropped without being closed.
 *
 * <p>{@link #sameContents} says whether a vector holds these bytes now: a cache keyed by contents
 * rather than by identity, because an Arrow reader loads a replaced (or delta) dictionary into the
 * same vector object, possibly at the same addresses. Bytes behind null values and the bitmap bits
 * past the last value take part in the comparison, so two vectors with equal values but different
 * garbage compare unequal: a cache miss, never a wrong hit. Immutable; thread-safe.
 */
public final class VectorContents {
    /** The most bytes one copy holds; a larger vector is not copied ({@link #copyOf} returns null). */
    public static final long MAX_BYTES = 256L << 20;

    private final Field field;
    private final Class<?> kind;
    private final int valueCount;
    /** Validity, then offsets (variable width), then data: the vector's own buffer order. */
    private final byte[][] buffers;

    private VectorContents(Field field, Class<?> kind, int valueCount, byte[][] buffers) {
        this.field = field;
        this.kind = kind;
        this.valueCount = valueCount;
        this.buffers = buffers;
    }

    /**
     * A heap copy of {@code v}, or null when {@code v} is not a flat vector (lists, structs, string
     * views, a Null vector) or its values take more than {@link #MAX_BYTES}.
     */
    public static VectorContents copyOf(FieldVector v) {
        Objects.requireNonNull(v, "v is null");
        List<ArrowBuf> bufs = buffers(v);
        long[] lengths = lengths(v);
        if (bufs == null || lengths == null) {
            return null;
        }
        long total = 0;
        for (long l : lengths) {
            total += l;
        }
        if (total > MAX_BYTES) {
            return null;
        }
        boolean noBitmap = capacity(bufs.getFirst()) < lengths[0];
        byte[][] copies = new byte[bufs.size()][];
        for (int k = 0; k < copies.length; k++) {
            byte[] b = new byte[(int) lengths[k]];
            ArrowBuf buf = bufs.get(k);
            if (k == 0 && noBitmap) {
                Arrays.fill(b, (byte) -1); // no bitmap: no nulls
            } else if (capacity(buf) < b.length) {
                return null; // malformed: not copied
            } else if (b.length > 0) {
                MemorySegment.copy(view(buf), 0, MemorySegment.ofArray(b), 0, b.length);
            }
            copies[k] = b;
        }
        return new VectorContents(v.getField(), v.getClass(), v.getValueCount(), copies);
    }

    /** How many values the copy holds. */
    public int valueCount() {
        return valueCount;
    }

    /** The heap bytes the copy holds. */
    public long bytes() {
        long total = 0;
        for (byte[] b : buffers) {
            total += b.length;
        }
        return total;
    }

    /**
     * Whether {@code v} holds exactly these bytes now: the same kind of vector and type, value
     * count, and the bytes of every buffer (one vectorized comparison per buffer).
     */
    public boolean sameContents(FieldVector v) {
        Objects.requireNonNull(v, "v is null");
        if (v.getClass() != kind
                || v.getValueCount() != valueCount
                || !v.getField().getType().equals(field.getType())) {
            return false;
        }
        List<ArrowBuf> bufs = buffers(v);
        long[] lengths = lengths(v);
        if (bufs == null || lengths == null || bufs.size() != buffers.length) {
            return false;
        }
        for (int k = 0; k < buffers.length; k++) {
            byte[] mine = buffers[k];
            if (lengths[k] != mine.length) {
                return false;
            }
            if (mine.length == 0) {
                continue;
            }
            ArrowBuf buf = bufs.get(k);
            if (capacity(buf) < mine.length) {
                if (k != 0 || !allOnes(mine)) {
                    return false; // a missing bitmap reads as all valid
                }
                continue;
            }
            MemorySegment heap = MemorySegment.ofArray(mine);
            if (MemorySegment.mismatch(heap, 0, mine.length, view(buf), 0, mine.length) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** The buffers of {@code v} in Arrow's order (validity, offsets, data), or null for a vector that is not flat. */
    private static List<ArrowBuf> buffers(FieldVector v) {
        return switch (v) {
            case BaseFixedWidthVector f -> List.of(f.getValidityBuffer(), f.getDataBuffer());
            case BaseVariableWidthVector b -> List.of(b.getValidityBuffer(), b.getOffsetBuffer(), b.getDataBuffer());
            case BaseLargeVariableWidthVector b ->
                List.of(b.getValidityBuffer(), b.getOffsetBuffer(), b.getDataBuffer());
            default -> null;
        };
    }

    /** The bytes of each buffer the values use, or null for a vector that is not flat or a malformed one. */
    private static long[] lengths(FieldVector v) {
        int n = v.getValueCount();
        long validity = (n + 7L) >>> 3;
        return switch (v) {
            case BitVector _ -> new long[] {validity, validity};
            case BaseFixedWidthVector f -> new long[] {validity, (long) n * f.getTypeWidth()};
            case BaseVariableWidthVector b -> {
                if (n == 0) {
                    yield new long[] {0, 0, 0};
                }
                long offsets = (n + 1L) * 4;
                if (capacity(b.getOffsetBuffer()) < offsets) {
                    yield null;
                }
                long end = b.getOffsetBuffer().getInt((long) n * 4);
                yield end < 0 || end > capacity(b.getDataBuffer()) ? null : new long[] {validity, offsets, end};
            }
            case BaseLargeVariableWidthVector b -> {
                if (n == 0) {
                    yield new long[] {0, 0, 0};
                }
                long offsets = (n + 1L) * 8;
                if (capacity(b.getOffsetBuffer()) < offsets) {
                    yield null;
                }
                long end = b.getOffsetBuffer().getLong((long) n * 8);
                yield end < 0 || end > capacity(b.getDataBuffer()) ? null : new long[] {validity, offsets, end};
            }
            default -> null;
        };
    }

    private static long capacity(ArrowBuf buf) {
        return buf == null ? 0 : buf.capacity();
    }

    /** A bounds-checked view of {@code buf}'s capacity, held only for the call that reads it. */
    private static MemorySegment view(ArrowBuf buf) {
        return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(buf.capacity());
    }

    private static boolean allOnes(byte[] b) {
        for (byte x : b) {
            if (x != -1) {
                return false;
            }
        }
        return true;
    }
}
