package dev.quiver.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Vectors that read the same Arrow buffers as another vector, without copying a byte: the
 * zero-copy half of {@code named_struct}, {@code struct} and {@code get_field}.
 *
 * <p>A shared vector holds its own reference to each buffer, taken in its own allocator
 * ({@code ReferenceManager.retain(buffer, allocator)}, what Arrow's IPC loader does), so the
 * source and the shared vector can be closed in either order and each buffer is freed once,
 * by whichever closes last. Both allocators must have the same root allocator.
 *
 * <p>One exception, Arrow's, not ours: {@code loadFieldBuffers} materialises a new validity
 * bitmap (rows/8 bytes) when a vector has no nulls or only nulls; value, offset and child
 * buffers are always shared.
 *
 * <p>Shared buffers are read-only by contract: nothing in Quiver writes into a vector it did
 * not allocate, except Boolean chains, which reuse Boolean vectors they own; so callers that
 * share a Boolean vector and hand it on as a result must copy it instead (see
 * {@code GetField}).
 */
public final class SharedVectors {
    private SharedVectors() {}

    /**
     * A new vector of {@code field} (a field of the same shape as {@code source}'s, possibly
     * named or nullable differently) over {@code source}'s first {@code rows} rows, sharing its
     * buffers; the caller owns it.
     */
    public static FieldVector share(FieldVector source, Field field, int rows, BufferAllocator allocator) {
        return share(source, field, rows, null, allocator);
    }

    /**
     * As {@link #share(FieldVector, Field, int, BufferAllocator)}, with {@code validity} (a
     * bitmap of at least {@code rows} bits, still owned by the caller) in place of the source's
     * own validity bitmap, at the top level only.
     */
    public static FieldVector share(
            FieldVector source, Field field, int rows, ArrowBuf validity, BufferAllocator allocator) {
        Objects.requireNonNull(source, "source is null");
        Objects.requireNonNull(field, "field is null");
        Objects.requireNonNull(allocator, "allocator is null");
        FieldVector out = field.createVector(allocator);
        try {
            load(source, out, rows, validity);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /** Loads {@code source}'s buffers (retained) into {@code target}, a vector of the same shape, and its children likewise. */
    public static void load(FieldVector source, FieldVector target, int rows, ArrowBuf validity) {
        if (source.getValueCount() < rows) {
            throw new IllegalArgumentException(
                    "cannot share " + rows + " rows of a vector of " + source.getValueCount());
        }
        List<ArrowBuf> buffers = new ArrayList<>(source.getFieldBuffers());
        int nulls = 0;
        if (!buffers.isEmpty() && hasValidity(source)) {
            if (validity != null) {
                buffers.set(0, validity);
            }
            nulls = rows == 0 ? 0 : BitVectorHelper.getNullCount(buffers.getFirst(), rows);
        }
        target.loadFieldBuffers(new ArrowFieldNode(rows, nulls), buffers);
        List<FieldVector> from = source.getChildrenFromFields();
        List<FieldVector> to = target.getChildrenFromFields();
        if (from.size() != to.size()) {
            throw new IllegalArgumentException("cannot share a " + source.getField() + " as a " + target.getField());
        }
        for (int i = 0; i < from.size(); i++) {
            FieldVector child = from.get(i);
            // A struct's children have its rows; a list's child has as many as its offsets reach.
            int childRows = source instanceof StructVector ? rows : child.getValueCount();
            load(child, to.get(i), childRows, null);
        }
    }

    private static boolean hasValidity(FieldVector v) {
        return !(v instanceof NullVector);
    }
}
