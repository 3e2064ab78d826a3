package dev.quiver;

import dev.quiver.cancel.Cancellation;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.util.TransferPair;

/**
 * The rows of one batch that a filter (and a limit) keep, column by column, for a projection: a
 * column of the batch is compacted the first time one of the projection's expressions reads it,
 * and every later expression reads that same compacted column. A column no expression reads is
 * never touched. Compacting is one gather ({@link Kernels#filter}), or, when the kept rows are
 * consecutive, a slice that shares the batch's buffers ({@link TransferPair#splitAndTransfer}).
 *
 * <p>Closing frees the compacted columns (a vector that shares one of them keeps its memory
 * alive). One projection of one batch, on one thread.
 */
final class KeptRows implements AutoCloseable {
    private final Selection selection;
    private final int runStart;
    private final BufferAllocator allocator;
    private final Map<FieldVector, FieldVector> compacted = new IdentityHashMap<>();

    KeptRows(Selection selection, BufferAllocator allocator) {
        this.selection = Objects.requireNonNull(selection, "selection is null");
        this.allocator = Objects.requireNonNull(allocator, "allocator is null");
        this.runStart = selection.runStart();
    }

    /** How many rows are kept: the row count of every compacted column. */
    int rows() {
        return selection.count();
    }

    /**
     * The kept rows of each of {@code batchColumns} (vectors of the batch, by identity), compacting
     * those not compacted yet; borrowed: they live until {@link #close()}.
     */
    List<FieldVector> columns(List<FieldVector> batchColumns) {
        List<FieldVector> out = new ArrayList<>(batchColumns.size());
        for (FieldVector v : batchColumns) {
            out.add(column(v));
        }
        return out;
    }

    /** The kept rows of {@code batchColumn} (a vector of the batch, by identity), compacted now if not yet; borrowed. */
    FieldVector column(FieldVector batchColumn) {
        FieldVector c = compacted.get(batchColumn);
        if (c == null) {
            Cancellation.check(); // a boundary per column compacted
            if (runStart >= 0 && SharedColumns.canShare(batchColumn, allocator)) {
                c = SharedColumns.slice(batchColumn, runStart, selection.count(), allocator);
            }
            if (c == null) {
                c = Kernels.filter(batchColumn, selection, allocator);
            }
            compacted.put(batchColumn, c);
        }
        return c;
    }

    /**
     * A live view of {@code batchColumns}' kept rows: element i is column i compacted, or null while
     * nothing has read it (so a column no expression reads is never compacted). Borrowed, as {@link #columns}.
     */
    List<FieldVector> compactedView(List<FieldVector> batchColumns) {
        return new AbstractList<>() {
            @Override
            public FieldVector get(int index) {
                return compacted.get(batchColumns.get(index));
            }

            @Override
            public int size() {
                return batchColumns.size();
            }
        };
    }

    @Override
    public void close() {
        compacted.values().forEach(FieldVector::close);
        compacted.clear();
    }
}
