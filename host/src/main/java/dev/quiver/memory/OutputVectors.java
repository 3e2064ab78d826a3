package dev.quiver.memory;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Allocates result vectors whose every byte the caller is about to write.
 *
 * <p>Arrow's {@code allocateNew} zeroes the new buffers; a kernel that writes every value and
 * every validity bit would pay for that write twice (a full extra pass over memory). These
 * vectors are left uninitialized instead: the caller must write all {@code rows} values and
 * the first {@code ceil(rows / 8)} bytes of the validity bitmap (as {@link ValidityBitmaps#and}
 * does) before anyone reads them. Validity past those bytes (capacity the allocator rounded
 * up) is zeroed here, so rows beyond {@code rows} read as null, as after {@code allocateNew}.
 */
public final class OutputVectors {
    private OutputVectors() {}

    /**
     * A fixed-width vector of {@code field}'s type with {@code rows} rows of uninitialized
     * values and validity, owned by {@code allocator}; the caller closes it.
     */
    public static FieldVector uninitialized(Field field, int rows, BufferAllocator allocator) {
        FieldVector vector = field.createVector(allocator);
        try {
            if (!(vector instanceof BaseFixedWidthVector fixed)) {
                throw new IllegalArgumentException(
                        "field '" + field.getName() + "' of type " + field.getType() + " is not fixed-width");
            }
            if (rows < 2) {
                // loadFieldBuffers treats "no nulls" and "all null" specially; tiny vectors gain nothing anyway.
                fixed.allocateNew(rows);
                fixed.setValueCount(rows);
                return vector;
            }
            long validityBytes = (VectorView.validityBytes(rows) + 7) & ~7L;
            try (ArrowBuf validity = allocator.buffer(validityBytes);
                    ArrowBuf data = allocator.buffer(
                            vector instanceof BitVector ? validityBytes : (long) rows * fixed.getTypeWidth())) {
                // The allocator rounds capacity up: rows past `rows` that fit the capacity must read
                // as null, as after allocateNew. Only the bitmap past the written bytes is zeroed.
                long written = VectorView.validityBytes(rows);
                validity.setZero(written, validity.capacity() - written);
                // A null count strictly between 0 and rows makes Arrow adopt the bitmap as it is;
                // Arrow computes the real null count from the bitmap whenever it is asked.
                fixed.loadFieldBuffers(new ArrowFieldNode(rows, 1), List.of(validity, data));
            }
            return vector;
        } catch (RuntimeException e) {
            vector.close();
            throw e;
        }
    }
}
