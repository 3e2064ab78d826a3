package dev.quiver;

import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/**
 * New vectors over another vector's rows that share its buffers instead of copying them (Arrow's
 * {@link TransferPair#splitAndTransfer}: each buffer gains a reference, held by the new vector's
 * allocator). Closing either vector releases only its own references, so both stay usable until
 * each is closed; a write into one is seen by the other. Arrow re-packs (copies) only what a slice
 * that does not start at row 0 cannot share: a bitmap when the first row is not a multiple of 8,
 * the offsets of strings and lists.
 */
final class SharedColumns {
    private SharedColumns() {}

    /**
     * Whether {@code v}'s buffers can be shared with a vector of {@code allocator}: Arrow moves a
     * buffer's accounting only between allocators of one root (a {@link NullVector} has no buffers
     * to share).
     */
    static boolean canShare(FieldVector v, BufferAllocator allocator) {
        return !(v instanceof NullVector) && v.getAllocator().getRoot() == allocator.getRoot();
    }

    /**
     * Rows {@code [from, from + rows)} of {@code v} as a new vector of {@code allocator} with
     * {@code v}'s field, sharing its buffers; or null where Arrow cannot split this kind of vector.
     */
    static FieldVector slice(FieldVector v, int from, int rows, BufferAllocator allocator) {
        return split(v.getTransferPair(allocator), from, rows);
    }

    /** The first {@code rows} rows of {@code v} as a new vector named and typed as {@code field}, sharing its buffers (or null, as {@link #slice}). */
    static FieldVector share(FieldVector v, Field field, int rows, BufferAllocator allocator) {
        return split(v.getTransferPair(Objects.requireNonNull(field, "field is null"), allocator), 0, rows);
    }

    private static FieldVector split(TransferPair pair, int from, int rows) {
        FieldVector to = (FieldVector) pair.getTo();
        try {
            pair.splitAndTransfer(from, rows);
            return to;
        } catch (UnsupportedOperationException e) {
            to.close();
            return null;
        } catch (RuntimeException | Error e) {
            to.close();
            throw e;
        }
    }
}
