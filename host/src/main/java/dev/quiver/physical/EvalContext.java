package dev.quiver.physical;

import dev.quiver.functions.ExecutionConfig;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.strings.Utf8Input;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * One batch being evaluated: its columns (in the order the plan resolved them), its row
 * count, the query's configuration and the kernel executor for fused programs.
 *
 * <p>{@link #select} gives the same batch restricted to some rows. Its columns are filtered
 * lazily, each the first time a node reads it, so a selection pays only for the columns the
 * nodes evaluated on it read; close it to free them. A context is used by one thread at a time.
 *
 * <p>It also keeps the values of the plan's shared subtrees ({@link SharedExpr}) for the batch:
 * close every context, a batch's too, once its result is taken ({@link #release} hands a root
 * value that is a kept one over to the caller first).
 */
public final class EvalContext implements AutoCloseable {
    private final FieldVector[] columns;
    private final int rows;
    private final ExecutionConfig config;
    private final KernelExecutor kernels;
    /** For a selection: the context it selects from, and which rows; null for a batch. */
    private final EvalContext parent;

    private final Selection selection;
    private final List<FieldVector> owned = new ArrayList<>();
    /** The values of {@link SharedExpr}s computed (or gathered) in this context, by id; owned here. */
    private Map<Integer, ColumnarValue> shared;
    /** Where shared values not computed here may be found: the context this one selects from (its rows by {@link #sharedRows}); null for a batch. */
    private EvalContext sharedFrom;

    private Selection sharedRows;
    /** For a batch evaluated with others (a projection's expressions): where the shared values computed on every row live, owned by the caller; null otherwise. */
    private final SharedValues store;
    /** For a batch whose columns are bound when first read: where column i comes from; null otherwise. */
    private final IntFunction<FieldVector> source;
    /** For a batch: which string columns were checked for valid UTF-8 (once per batch); null for a selection. */
    private final boolean[] checkedUtf8;

    private boolean closed;

    public EvalContext(List<FieldVector> columns, int rows, ExecutionConfig config, KernelExecutor kernels) {
        this(columns, rows, config, kernels, null);
    }

    /**
     * A batch evaluated with other expressions over the same rows: the values of shared subtrees
     * computed on every row are kept in {@code store} (which the caller owns and closes after every
     * expression's result is taken), and those an earlier expression kept there are read, not
     * computed again. A root value that is a kept one is {@link #release released} borrowed. Null:
     * this context keeps its own, as {@link #EvalContext(List, int, ExecutionConfig, KernelExecutor)}.
     *
     * @throws IllegalArgumentException when {@code store} holds values of another row count
     */
    public EvalContext(
            List<FieldVector> columns, int rows, ExecutionConfig config, KernelExecutor kernels, SharedValues store) {
        this(columns.toArray(FieldVector[]::new), rows, config, kernels, null, null, store, null);
        for (FieldVector c : this.columns) {
            Objects.requireNonNull(c, "a column is null");
        }
        checkRows(store, rows);
    }

    /**
     * As {@link #EvalContext(List, int, ExecutionConfig, KernelExecutor, SharedValues)}, with each of
     * the {@code columnCount} columns bound the first time a node reads it: {@code source.apply(i)}
     * gives column {@code i} of {@code rows} rows, borrowed (it must outlive this context). So a
     * column that only a shared value kept in {@code store} reads is never bound (for a projection
     * over kept rows: never compacted).
     */
    public EvalContext(
            int columnCount,
            IntFunction<FieldVector> source,
            int rows,
            ExecutionConfig config,
            KernelExecutor kernels,
            SharedValues store) {
        this(
                new FieldVector[columnCount],
                rows,
                config,
                kernels,
                null,
                null,
                store,
                Objects.requireNonNull(source, "source is null"));
        checkRows(store, rows);
    }

    private static void checkRows(SharedValues store, int rows) {
        if (store != null && store.rows() != rows) {
            throw new IllegalArgumentException("shared values of " + store.rows() + " rows for a batch of " + rows);
        }
    }

    private EvalContext(
            FieldVector[] columns,
            int rows,
            ExecutionConfig config,
            KernelExecutor kernels,
            EvalContext parent,
            Selection selection,
            SharedValues store,
            IntFunction<FieldVector> source) {
        this.columns = columns;
        this.store = store;
        this.source = source;
        this.rows = rows;
        this.config = Objects.requireNonNull(config, "config is null");
        this.kernels = Objects.requireNonNull(kernels, "kernels is null");
        this.parent = parent;
        this.selection = selection;
        this.checkedUtf8 = parent == null ? new boolean[columns.length] : null;
        this.sharedFrom = parent;
        this.sharedRows = selection;
        if (rows < 0) {
            throw new IllegalArgumentException("rows < 0");
        }
    }

    public int rows() {
        return rows;
    }

    public ExecutionConfig config() {
        return config;
    }

    public KernelExecutor kernels() {
        return kernels;
    }

    public BufferAllocator allocator() {
        return config.allocator();
    }

    /** How many columns the batch has. */
    public int columnCount() {
        return columns.length;
    }

    /** Every column of the batch (filtering them all, for a selection), borrowed. */
    public List<FieldVector> columns() {
        List<FieldVector> out = new ArrayList<>(columns.length);
        for (int i = 0; i < columns.length; i++) {
            out.add(column(i).vector());
        }
        return out;
    }

    /** Column {@code index} of the batch, borrowed (it lives as long as this context). */
    public ColumnarValue.Array column(int index) {
        if (index < 0 || index >= columns.length) {
            throw new IndexOutOfBoundsException(
                    "column index " + index + " is out of range: the batch has " + columns.length + " column(s)");
        }
        FieldVector c = columns[index];
        if (c == null && source != null) {
            c = Objects.requireNonNull(source.apply(index), "the source gave no column");
            columns[index] = c;
        }
        if (c == null) {
            if (closed) {
                throw new IllegalStateException("this selection of the batch is closed");
            }
            c = Kernels.filter(parent.column(index).vector(), selection, allocator());
            owned.add(c);
            columns[index] = c;
        } else if (checkedUtf8 != null && !checkedUtf8[index]) {
            // Strings are checked where they enter, so every kernel after this reads valid UTF-8
            // and an error names the row of the batch.
            Utf8Input.check(c, c.getName());
            checkedUtf8[index] = true;
        }
        return ColumnarValue.Array.borrowed(c);
    }

    /**
     * The rows of this batch that {@code rows} selects, as a batch of {@code rows.count()} rows
     * (row k is the k-th selected row). Close it when done; a full selection still gives a new
     * context (its columns are this one's, borrowed).
     */
    public EvalContext select(Selection rows) {
        Objects.requireNonNull(rows, "rows is null");
        if (rows.rows() != this.rows) {
            throw new IllegalArgumentException("a selection of " + rows.rows() + " rows on a batch of " + this.rows);
        }
        if (rows.isAll()) {
            EvalContext all = new EvalContext(columnsNow(), this.rows, config, kernels, null, null, null, null);
            Arrays.fill(all.checkedUtf8, true);
            all.sharedFrom = this;
            all.sharedRows = rows;
            return all;
        }
        return new EvalContext(new FieldVector[columns.length], rows.count(), config, kernels, this, rows, null, null);
    }

    private FieldVector[] columnsNow() {
        FieldVector[] out = new FieldVector[columns.length];
        for (int i = 0; i < columns.length; i++) {
            out[i] = column(i).vector();
        }
        return out;
    }

    /** The same batch with other columns and row count. */
    public EvalContext withColumns(List<FieldVector> newColumns, int newRows) {
        return new EvalContext(newColumns, newRows, config, kernels);
    }

    /**
     * The value of shared subtree {@code id} on this context's rows, borrowed (it lives as long as
     * this context): kept from an earlier reference, else gathered from the value a context this
     * one selects from has, else computed by {@code compute} (which must return a value of this
     * context's rows) and kept.
     */
    public ColumnarValue shared(int id, Supplier<ColumnarValue> compute) {
        ColumnarValue v = lookup(id);
        if (v == null) {
            v = compute.get();
            keep(id, v);
        }
        return borrow(v);
    }

    /** The value of shared subtree {@code id} here, or gathered from a parent's; null where none has it. */
    private ColumnarValue lookup(int id) {
        ColumnarValue v = shared == null ? null : shared.get(id);
        if (v != null) {
            return v;
        }
        if (store != null) {
            return store.lookup(id);
        }
        if (sharedFrom == null) {
            return null;
        }
        ColumnarValue all = sharedFrom.lookup(id);
        if (all == null || sharedRows.isAll()) {
            return all == null ? null : borrow(all); // every row: the parent's value itself, which it keeps
        }
        ColumnarValue mine = Kernels.filter(all, sharedRows, allocator());
        keep(id, mine);
        return mine;
    }

    private void keep(int id, ColumnarValue v) {
        if (store != null) {
            store.keep(id, v); // computed on every row of the batch: for every expression over it
            return;
        }
        if (closed) {
            v.close();
            throw new IllegalStateException("this selection of the batch is closed");
        }
        if (shared == null) {
            shared = new HashMap<>();
        }
        shared.put(id, v);
    }

    private static ColumnarValue borrow(ColumnarValue v) {
        return v instanceof ColumnarValue.Array a ? ColumnarValue.Array.borrowed(a.vector()) : v;
    }

    /**
     * {@code value}, a result of this context, made independent of it: a shared value this context
     * keeps is handed over (owned by the caller, no longer kept here); anything else is returned
     * as it is. For the root of an evaluation, before the context closes. With a {@link SharedValues}
     * store, a kept value stays the store's: it is returned borrowed (it lives as long as the store).
     */
    public ColumnarValue release(ColumnarValue value) {
        if (shared == null || !(value instanceof ColumnarValue.Array a) || a.owned()) {
            return value;
        }
        for (Map.Entry<Integer, ColumnarValue> e : shared.entrySet()) {
            if (e.getValue() instanceof ColumnarValue.Array kept && kept.vector() == a.vector() && kept.owned()) {
                shared.remove(e.getKey());
                return kept;
            }
        }
        return value;
    }

    /** Frees the columns a selection filtered and the shared values kept here. */
    @Override
    public void close() {
        RuntimeException failure = null;
        if (shared != null) {
            for (ColumnarValue v : shared.values()) {
                try {
                    v.close();
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            shared = null;
        }
        for (FieldVector v : owned) {
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
        owned.clear();
        if (parent != null) {
            Arrays.fill(columns, null);
            closed = true;
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "EvalContext(" + rows + " rows, " + columns.length + " columns"
                + (selection == null ? "" : ", a selection") + ")";
    }
}
