package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.InputException;
import dev.quiver.kernels.DictionaryTable;
import dev.quiver.strings.Utf8Input;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * Decodes a dictionary-encoded column (its indices) into plain values of the dictionary's
 * type, once per batch. The dictionary is looked up in {@code dictionaries} on every batch,
 * so a reader that replaces dictionaries between batches is followed.
 */
public record DictionaryDecodeExpr(
        PhysicalExpr indices, long dictionaryId, DictionaryProvider dictionaries, DataType dataType)
        implements PhysicalExpr {
    public DictionaryDecodeExpr {
        Objects.requireNonNull(indices, "indices is null");
        Objects.requireNonNull(dictionaries, "dictionaries is null");
        Objects.requireNonNull(dataType, "dataType is null");
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        Dictionary dictionary = dictionaries.lookup(dictionaryId);
        if (dictionary == null) {
            throw new InputException("no dictionary with id " + dictionaryId + " for " + indices.describe());
        }
        DataType actual = DataType.fromField(dictionary.getVector().getField());
        if (!actual.equals(dataType)) {
            throw new InputException("dictionary " + dictionaryId + " holds " + actual + " values, but "
                    + indices.describe() + " was planned with " + dataType);
        }
        try (ColumnarValue in = indices.evaluate(ctx)) {
            ColumnarValue.Array a = (ColumnarValue.Array) in;
            FieldVector values = dictionary.getVector();
            if (DictionaryTable.readable(a.vector())
                    && values.getValueCount() <= Math.max(a.vector().getValueCount(), SMALL)
                    && validUtf8(values)) {
                // The values on the heap, gathered by the indices (a null index gives NULL); checked above,
                // so what they give needs no check.
                DictionaryTable table = DictionaryTable.decoding(values);
                FieldVector gathered = table == null ? null : table.gather(a.vector(), ctx.allocator());
                if (gathered != null) {
                    return new ColumnarValue.Array(gathered);
                }
            }
            // Arrow's decoder, then the result checked: a message that names the column's row.
            FieldVector decoded = (FieldVector) DictionaryEncoder.decode(a.vector(), dictionary, ctx.allocator());
            return new ColumnarValue.Array(Utf8Input.checked(decoded, a.vector().getName()));
        }
    }

    /** A dictionary of at most this many values is checked whole however small the batch. */
    private static final int SMALL = 1024;

    /** Whether the dictionary's strings (if it holds strings) are valid UTF-8; checked per batch: a reader may reload it. */
    private static boolean validUtf8(FieldVector values) {
        try {
            Utf8Input.check(values, "dictionary");
            return true;
        } catch (InputException e) {
            return false;
        }
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(indices);
    }

    @Override
    public String describe() {
        return "decode dictionary " + dictionaryId;
    }
}
