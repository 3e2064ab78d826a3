package dev.quiver.physical;

import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.value.ColumnarValue;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * The values of shared subtrees ({@link SharedExpr}) for one batch, kept across the expressions
 * evaluated over it, so a subtree that several expressions of a projection read is computed once
 * for all of them: each expression's batch context
 * ({@link EvalContext#EvalContext(java.util.List, int, dev.quiver.functions.ExecutionConfig, KernelExecutor, SharedValues)})
 * keeps here what it computes on every row, and reads what an earlier expression kept.
 *
 * <p>{@link #select} gives the values on some rows of the batch (a filter's kept rows): each is
 * gathered from this one's the first time it is read there, so a subtree the filter computed is
 * not computed again by the projection over the kept rows. Only values computed on every row are
 * kept (a value computed inside a CASE branch or a lazily evaluated AND term stays in that
 * evaluation's context), so every value here covers every row.
 *
 * <p>Owns its values: close it once the batch's results are taken (a result that is a kept value
 * was handed out borrowed). One batch, one thread at a time.
 */
public final class SharedValues implements AutoCloseable {
    private final int rows;
    private final BufferAllocator allocator;
    /** For a selection: the values it gathers from, and which of their rows; null for a batch. */
    private final SharedValues from;

    private final Selection selection;
    private final Map<Integer, ColumnarValue> values = new HashMap<>();
    /** Per id, how many times a kept value was read instead of computed (gathered ones included). */
    private final Map<Integer, Integer> reads = new TreeMap<>();

    /** The batch's columns already checked for this batch (by identity), shared with every selection of it. */
    private final Set<FieldVector> checked;

    private boolean closed;

    /** The values of a batch of {@code rows} rows; gathers allocate from {@code allocator}. */
    public SharedValues(int rows, BufferAllocator allocator) {
        this(rows, allocator, null, null);
    }

    private SharedValues(int rows, BufferAllocator allocator, SharedValues from, Selection selection) {
        if (rows < 0) {
            throw new IllegalArgumentException("rows < 0");
        }
        this.rows = rows;
        this.allocator = Objects.requireNonNull(allocator, "allocator is null");
        this.from = from;
        this.selection = selection;
        this.checked = from != null ? from.checked : Collections.newSetFromMap(new IdentityHashMap<>());
    }

    /**
     * Whether column {@code v} of this batch was checked already (its buffers, by {@code
     * BatchValidation}) while evaluating another expression over the same batch: a projection's
     * filter and its columns read one batch, so each of its columns is checked once.
     */
    public boolean isChecked(FieldVector v) {
        return checked.contains(v);
    }

    /** Notes that column {@code v} of this batch has been checked. */
    public void markChecked(FieldVector v) {
        checked.add(v);
    }

    /** How many rows every value here has. */
    public int rows() {
        return rows;
    }

    /**
     * The values of this batch on the rows {@code kept} selects (of this batch's rows), gathered
     * from this one's when first read; close it before this one.
     */
    public SharedValues select(Selection kept, BufferAllocator allocator) {
        Objects.requireNonNull(kept, "kept is null");
        if (kept.rows() != rows) {
            throw new IllegalArgumentException("a selection of " + kept.rows() + " rows on values of " + rows);
        }
        return new SharedValues(kept.count(), allocator, this, kept);
    }

    /** Per id, how many times a value kept here (or gathered here) was read instead of computed. */
    public Map<Integer, Integer> reads() {
        return Map.copyOf(reads);
    }

    /** The value of subtree {@code id} here, kept (owned here); null where none is kept here or where this selects from. */
    ColumnarValue lookup(int id) {
        ColumnarValue v = find(id);
        if (v != null) {
            reads.merge(id, 1, Integer::sum);
        }
        return v;
    }

    private ColumnarValue find(int id) {
        ColumnarValue v = values.get(id);
        if (v != null || from == null) {
            return v;
        }
        ColumnarValue all = from.find(id);
        if (all == null) {
            return null;
        }
        ColumnarValue mine = selection.isAll() ? borrowed(all) : Kernels.filter(all, selection, allocator);
        keep(id, mine);
        return mine;
    }

    /** Keeps {@code v}, the value of subtree {@code id} on every row here; this takes it over. */
    void keep(int id, ColumnarValue v) {
        if (closed) {
            v.close();
            throw new IllegalStateException("these shared values are closed");
        }
        ColumnarValue before = values.put(id, v);
        if (before != null) {
            before.close();
        }
    }

    private static ColumnarValue borrowed(ColumnarValue v) {
        return v instanceof ColumnarValue.Array a ? ColumnarValue.Array.borrowed(a.vector()) : v;
    }

    /** Frees the values kept here. */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (ColumnarValue v : values.values()) {
            try {
                v.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        values.clear();
        closed = true;
        if (failure != null) {
            throw failure;
        }
    }
}
