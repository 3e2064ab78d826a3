package dev.quiver;

import dev.quiver.errors.ResourceException;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/** An evaluation's value as the vector {@link CompiledExpression} returns: owned by the caller, named and typed as its output field. */
final class ResultVector {
    private ResultVector() {}

    /**
     * {@code v} (which this takes over) as a vector of {@code rows} rows the caller owns, as
     * {@code field}: a scalar broadcast, an owned array renamed, a column it borrows (of the batch,
     * or compacted for a projection) copied, or with {@code share} shared where Arrow can
     * ({@link SharedColumns}).
     */
    static FieldVector of(ColumnarValue v, Field field, int rows, BufferAllocator allocator, boolean share) {
        return switch (v) {
            case ColumnarValue.Scalar s -> {
                try {
                    yield rename(Values.broadcast(s.value(), field.getName(), rows, allocator), field, allocator);
                } catch (OutOfMemoryException e) {
                    throw new ResourceException(
                            "cannot allocate the " + rows + "-row result of " + field.getName() + " from allocator '"
                                    + allocator.getName() + "': " + e.getMessage(),
                            e);
                }
            }
            case ColumnarValue.Array a
            when !a.owned() && a.vector() instanceof NullVector -> new NullVector(field, rows);
            case ColumnarValue.Array a
            when !a.owned() -> {
                // A column of the batch itself: the caller gets a vector it can close on its own.
                FieldVector shared = share && SharedColumns.canShare(a.vector(), allocator)
                        ? SharedColumns.share(a.vector(), field, rows, allocator)
                        : null;
                yield shared != null
                        ? shared
                        : rename(Kernels.filter(a.vector(), Selection.all(rows), allocator), field, allocator);
            }
            case ColumnarValue.Array a -> rename(a.vector(), field, allocator);
        };
    }

    private static FieldVector rename(FieldVector v, Field field, BufferAllocator allocator) {
        if (v.getField().equals(field)) {
            return v;
        }
        try (v) {
            TransferPair tp = v.getTransferPair(field, allocator);
            tp.transfer();
            return (FieldVector) tp.getTo();
        }
    }
}
