package dev.quiver.memory;

import dev.quiver.errors.InputException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Bounds-checked {@link MemorySegment} views of a fixed-width Arrow vector's buffers that alias
 * the vector's own memory: reading or writing through a view reads or writes the vector, with
 * no copy.
 *
 * <p>The views cover exactly the vector's value count ({@code valueCount * byteWidth} data
 * bytes, {@code ceil(valueCount / 8)} validity bytes); an access outside them throws
 * {@link IndexOutOfBoundsException}. They live in a confined arena owned by this object:
 * {@link #close()} ends them, after which any access throws {@link IllegalStateException}, so
 * a view cannot outlive the vector it aliases as long as it is closed before the vector. Use
 * from one thread.
 *
 * <pre>{@code
 * try (Float8Vector v = ...; VectorView view = VectorView.of(v)) {
 *     double first = view.data().get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0);
 * }
 * }</pre>
 */
public final class VectorView implements AutoCloseable {
    private final Arena arena;
    private final MemorySegment data;
    private final MemorySegment validity;
    private final int valueCount;
    private final int byteWidth;

    private VectorView(FieldVector vector) {
        Objects.requireNonNull(vector, "vector is null");
        if (!(vector instanceof BaseFixedWidthVector fixed)) {
            throw new IllegalArgumentException("vector '" + vector.getName() + "' of type "
                    + vector.getField().getType() + " is not a fixed-width vector");
        }
        this.valueCount = vector.getValueCount();
        this.byteWidth = fixed.getTypeWidth();
        this.arena = Arena.ofConfined();
        try {
            // A BitVector (width 0) packs its values one bit per row, as its validity.
            long dataBytes = vector instanceof BitVector ? validityBytes(valueCount) : (long) valueCount * byteWidth;
            this.data = alias(fixed.getDataBuffer(), dataBytes, "data", vector);
            this.validity = alias(fixed.getValidityBuffer(), validityBytes(valueCount), "validity", vector);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Views of {@code vector}'s data and validity buffers. The caller closes the view before the vector. */
    public static VectorView of(FieldVector vector) {
        return new VectorView(vector);
    }

    /** Bytes a validity bitmap of {@code rows} rows occupies. */
    public static long validityBytes(long rows) {
        return (rows + 7) / 8;
    }

    private MemorySegment alias(ArrowBuf buf, long bytes, String what, FieldVector vector) {
        if (bytes == 0) {
            return MemorySegment.NULL.reinterpret(0, arena, null);
        }
        if (buf.capacity() < bytes) {
            throw new InputException("the " + what + " buffer of vector '" + vector.getName() + "' holds "
                    + buf.capacity() + " bytes, fewer than the " + bytes + " its " + valueCount + " values need");
        }
        // The one place a raw address becomes a segment: bounded by the live region, scoped to this view.
        return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(bytes, arena, null);
    }

    /** The values: {@code valueCount * byteWidth} bytes, little-endian; for a BitVector, its bitmap. */
    public MemorySegment data() {
        return data;
    }

    /** The validity bitmap: bit {@code i % 8} of byte {@code i / 8} is set when row {@code i} is valid. */
    public MemorySegment validity() {
        return validity;
    }

    public int valueCount() {
        return valueCount;
    }

    public int byteWidth() {
        return byteWidth;
    }

    @Override
    public void close() {
        arena.close();
    }
}
