package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import dev.quiver.errors.ErrorKind;
import dev.quiver.errors.QuiverException;
import dev.quiver.kernels.DictionaryTable;
import dev.quiver.memory.VectorContents;
import dev.quiver.types.DataType;
import dev.quiver.validation.BatchValidation;
import dev.quiver.value.ColumnarValue;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.dictionary.Dictionary;

/**
 * A deterministic subtree whose only column is one dictionary-encoded column, computed over the
 * dictionary's values instead of the batch's rows, then gathered by the batch's indices:
 * {@code payment_type = 'card'} compares each distinct value once and each row costs one table
 * lookup. The planner makes this node ({@code DictionaryMapping}); EXPLAIN shows it as
 * {@code DictionaryMap[...]} with the subtree below it.
 *
 * <p>Per batch:
 * <ol>
 *   <li>the dictionary is looked up again ({@code dictionaries.lookup(id)}), so a reader that
 *       replaces it between batches is followed;</li>
 *   <li>when it has at least as many values as the batch has rows, or is missing, of another
 *       type than planned, or not a flat vector, the subtree runs on the batch's rows as it would
 *       without this node (decoding the column), which also raises whatever error that gives;</li>
 *   <li>otherwise the table for this dictionary is taken from the cache, or computed: the subtree
 *       over a batch of {@code size + 1} rows, the dictionary's values in order and one NULL
 *       (the value of a row whose index is null, which is not always NULL: {@code m IS NULL},
 *       {@code CASE WHEN m = 'AIR' THEN 1 ELSE 0 END});</li>
 *   <li>the table ({@link DictionaryTable}, on the heap) is gathered by the indices: a Boolean
 *       result straight into its two bitmaps from a byte per entry, fixed-width and string
 *       results through heap arrays; a result the subtree gave as a scalar stays that scalar.</li>
 * </ol>
 *
 * <p><b>Errors.</b> The dictionary may hold values no row of the batch references, so computing
 * on them must not raise where the rows would not. When the subtree fails on the dictionary
 * (a failed cast, invalid UTF-8 in an unused value, a division by zero in a branch only NULL
 * takes), that is remembered for this dictionary and its batches run on their rows, as they
 * would without this node: the rows decide whether there is an error, and it names a row of the
 * batch. A failure that says nothing of the values (memory, a device) is not remembered.
 * Cancellation is never caught.
 *
 * <p><b>Cache and memory.</b> One entry per node: the last dictionary computed, keyed by its
 * contents (a heap copy its current vector is compared with, one vectorized comparison per batch;
 * {@link VectorContents#sameContents}), because a reader loads a replaced dictionary into the same
 * vector. The table is on the Java heap too, so no Arrow memory outlives the batch that computed
 * it: nothing needs closing, a replaced entry is garbage, and each batch's result and temporary
 * vectors come from that batch's allocator and are freed before it returns (all but the result).
 * The entry is replaced by an atomic write of an immutable record; concurrent batches may compute
 * the same dictionary twice but never read a half-built entry.
 */
public final class DictionaryMapExpr implements PhysicalExpr {
    private final PhysicalExpr body;
    private final DictionaryDecodeExpr decode;
    private final AtomicReference<Cached> cache = new AtomicReference<>();
    private final LongAdder computed = new LongAdder();
    private final LongAdder gathered = new LongAdder();
    private final LongAdder onRows = new LongAdder();

    /**
     * @param body   the subtree: deterministic, its only column the one {@code decode} decodes
     * @param decode the decode of that column inside {@code body}
     */
    public DictionaryMapExpr(PhysicalExpr body, DictionaryDecodeExpr decode) {
        this.body = Objects.requireNonNull(body, "body is null");
        this.decode = Objects.requireNonNull(decode, "decode is null");
    }

    public PhysicalExpr body() {
        return body;
    }

    public DictionaryDecodeExpr decode() {
        return decode;
    }

    /** How many times the subtree was computed over a dictionary's values (each distinct dictionary once while it stays). */
    public long dictionariesComputed() {
        return computed.sum();
    }

    /** How many batches were answered by gathering a dictionary's table. */
    public long batchesGathered() {
        return gathered.sum();
    }

    /** How many batches ran the subtree on their rows (a dictionary as large as the batch, one that fails, ...). */
    public long batchesOnRows() {
        return onRows.sum();
    }

    @Override
    public DataType dataType() {
        return body.dataType();
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        Dictionary dictionary = decode.dictionaries().lookup(decode.dictionaryId());
        if (dictionary == null) {
            return onRows(ctx); // the decode says what is wrong
        }
        FieldVector values = dictionary.getVector();
        int size = values.getValueCount();
        if (size >= ctx.rows() || !DataType.fromField(values.getField()).equals(decode.dataType())) {
            return onRows(ctx);
        }
        try (ColumnarValue idx = decode.indices().evaluate(ctx)) {
            if (!(idx instanceof ColumnarValue.Array ia) || !DictionaryTable.readable(ia.vector())) {
                return onRows(ctx);
            }
            Table table = table(ctx, values, size);
            ColumnarValue out =
                    table instanceof RowsDecide ? null : gather(table, ia.vector(), values, ctx.allocator());
            if (out == null) {
                return onRows(ctx);
            }
            gathered.increment();
            return out;
        }
    }

    private ColumnarValue onRows(EvalContext ctx) {
        onRows.increment();
        return body.evaluate(ctx);
    }

    /** This dictionary's table: the cached one when the dictionary holds the same bytes, else computed (and cached). */
    private Table table(EvalContext ctx, FieldVector values, int size) {
        Cached c = cache.get();
        if (c != null && c.dictionary().sameContents(values)) {
            return c.table();
        }
        VectorContents key = VectorContents.copyOf(values);
        if (key == null) {
            return RowsDecide.NOT_REMEMBERED;
        }
        Table t = compute(ctx, size);
        if (t != RowsDecide.NOT_REMEMBERED) {
            cache.set(new Cached(key, t));
        }
        return t;
    }

    /** The subtree over the dictionary's {@code size} values and one NULL, as a table on the heap. */
    private Table compute(EvalContext ctx, int size) {
        computed.increment();
        BufferAllocator allocator = ctx.allocator();
        try (IntVector entries = entries(size, columnName(), allocator)) {
            // The subtree reads only the dictionary column; every other position is never read.
            List<FieldVector> columns = Collections.nCopies(ctx.columnCount(), entries);
            try (EvalContext dictionary = new EvalContext(columns, size + 1, ctx.config(), ctx.kernels());
                    ColumnarValue v = body.evaluate(dictionary)) {
                return switch (v) {
                    case ColumnarValue.Scalar s -> new Constant(s);
                    case ColumnarValue.Array a -> {
                        DictionaryTable t = DictionaryTable.of(a.vector());
                        yield t == null ? RowsDecide.NOT_REMEMBERED : new Tabled(t);
                    }
                };
            }
        } catch (CancelledException e) {
            throw e;
        } catch (QuiverException e) {
            // A value of the dictionary fails: the same values fail again, so remember it; the rows decide.
            ErrorKind k = e.kind();
            boolean aboutValues = k == ErrorKind.ARITHMETIC || k == ErrorKind.EVALUATION || k == ErrorKind.INPUT;
            return aboutValues ? RowsDecide.REMEMBERED : RowsDecide.NOT_REMEMBERED;
        } catch (RuntimeException e) {
            return RowsDecide.NOT_REMEMBERED; // memory, a device, ...: the rows run and say
        }
    }

    /** The table gathered by the indices; null when it cannot be gathered here (the rows compute it). */
    private ColumnarValue gather(Table table, FieldVector indices, FieldVector values, BufferAllocator allocator) {
        try {
            return switch (table) {
                case Constant c -> c.value();
                case Tabled t -> {
                    FieldVector out = t.table().gather(indices, allocator);
                    yield out == null ? null : new ColumnarValue.Array(out);
                }
                case RowsDecide _ -> throw new IllegalStateException("no table to gather");
            };
        } catch (IndexOutOfBoundsException e) {
            // Batch validation refuses such batches first; here its message all the same.
            BatchValidation.checkDictionaryIndices(indices, columnName(), values);
            throw e;
        }
    }

    private String columnName() {
        return decode.indices() instanceof ColumnExpr c
                ? c.name()
                : decode.indices().describe();
    }

    /** Indices 0 .. size - 1 and a null: the dictionary's values in order, then NULL. */
    private static IntVector entries(int size, String name, BufferAllocator allocator) {
        IntVector v = new IntVector(name, allocator);
        try {
            v.allocateNew(size + 1);
            for (int i = 0; i < size; i++) {
                v.set(i, i);
            }
            v.setNull(size);
            v.setValueCount(size + 1);
            return v;
        } catch (RuntimeException | Error e) {
            v.close();
            throw e;
        }
    }

    /** The subtree is deterministic and so is the node; it is cheap only once its table is known, which planning cannot tell. */
    @Override
    public boolean isCheapAndInfallible() {
        return false;
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(body);
    }

    @Override
    public String describe() {
        return "DictionaryMap[" + Names.sqlOverValues(body) + "] on the values of dictionary " + decode.dictionaryId()
                + " (" + Names.quote(columnName()) + "), once per distinct dictionary, gathered by index";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DictionaryMapExpr m && m.body.equals(body) && m.decode.equals(decode);
    }

    @Override
    public int hashCode() {
        return Objects.hash(body, decode);
    }

    @Override
    public String toString() {
        return describe();
    }

    /** What the subtree gives over one dictionary: per entry, the last for a null index. */
    private sealed interface Table permits Constant, Tabled, RowsDecide {}

    /** The subtree gave a scalar: one value for every entry. */
    private record Constant(ColumnarValue.Scalar value) implements Table {}

    /** One value per entry, on the heap. */
    private record Tabled(DictionaryTable table) implements Table {}

    /** No table: the batch runs on its rows; {@code REMEMBERED} when this dictionary will fail again. */
    private enum RowsDecide implements Table {
        REMEMBERED,
        NOT_REMEMBERED
    }

    /** The cache's one entry: a dictionary's contents and its table. */
    private record Cached(VectorContents dictionary, Table table) {}
}
