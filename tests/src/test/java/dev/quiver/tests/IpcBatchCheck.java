package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.util.ValueVectorUtility;

/**
 * The reference of {@link IpcFuzzTest}, independent of Quiver: whether a batch as Arrow's reader
 * loaded it is well-formed, column by column, by Arrow's own checks
 * ({@link ValueVectorUtility#validateFull}: buffer sizes for the declared lengths, offsets
 * monotonic and within their data, children as long as their parents need), a first offset that
 * is not negative (which those checks miss), the batch's row count (not negative, every column
 * as long as the batch), and each dictionary-encoded column's non-null indices within its
 * dictionary; and a canonical copy of a well-formed batch, made with Arrow's
 * getters and setters ({@code copyFromSafe}): the same values in freshly allocated buffers,
 * aligned, zero behind the nulls, with nothing shared.
 */
final class IpcBatchCheck {
    private IpcBatchCheck() {}

    /**
     * What is wrong with a column: its buffers ({@code values == false}: the column is malformed),
     * or only its values ({@code values == true}: a decimal beyond its declared precision or a
     * string that is not valid UTF-8, which Arrow's validation rejects but which is a value, not a
     * buffer that cannot be read).
     */
    record Problem(String description, boolean values) {}

    /** What is wrong with column {@code column} of {@code batch}, or null when it is well-formed. */
    static Problem problem(VectorSchemaRoot batch, int column, DictionaryProvider dictionaries) {
        FieldVector v = batch.getFieldVectors().get(column);
        if (batch.getRowCount() < 0) {
            return new Problem("is in a batch of " + batch.getRowCount() + " rows", false);
        }
        if (v.getValueCount() != batch.getRowCount()) {
            return new Problem(
                    "has " + v.getValueCount() + " values in a batch of " + batch.getRowCount() + " rows", false);
        }
        try {
            ValueVectorUtility.validate(v);
        } catch (RuntimeException e) {
            return new Problem("is malformed (" + e.getMessage() + ")", false);
        }
        String negative = negativeFirstOffset(v);
        if (negative != null) {
            return new Problem(negative, false);
        }
        try {
            ValueVectorUtility.validateFull(v);
        } catch (RuntimeException e) {
            // The full check adds what values hold to the buffers' checks: a decimal within its precision, a string
            // that is valid UTF-8. Quiver checks buffers before it computes and values where it reads them.
            return new Problem("is malformed (" + e.getMessage() + ")", v instanceof DecimalVector || isUtf8(e));
        }
        if (v.getField().getDictionary() == null) {
            return null;
        }
        Dictionary d = dictionaries.lookup(v.getField().getDictionary().getId());
        if (d == null) {
            return new Problem("has no dictionary", false);
        }
        if (negativeFirstOffset(d.getVector()) != null) {
            return new Problem("has a malformed dictionary (" + negativeFirstOffset(d.getVector()) + ")", false);
        }
        // A dictionary whose strings are not UTF-8 is a values problem; its indices are still checked.
        Problem values = null;
        try {
            ValueVectorUtility.validateFull(d.getVector());
        } catch (RuntimeException e) {
            if (!isUtf8(e)) {
                return new Problem("has a malformed dictionary (" + e.getMessage() + ")", false);
            }
            values = new Problem("has a dictionary that " + e.getMessage(), true);
        }
        BaseIntVector indices = (BaseIntVector) v;
        int size = d.getVector().getValueCount();
        for (int i = 0; i < v.getValueCount(); i++) {
            if (!v.isNull(i)) {
                long index = indices.getValueAsLong(i);
                if (index < 0 || index >= size) {
                    return new Problem(
                            "has index " + index + " at row " + i + " outside its dictionary of " + size, false);
                }
            }
        }
        return values;
    }

    /** Whether Arrow's full check failed on a string's bytes (not valid UTF-8): a value, not a buffer. */
    static boolean isUtf8(RuntimeException e) {
        return String.valueOf(e.getMessage()).startsWith("Non-UTF-8 data");
    }

    /**
     * Arrow's checks (19.0) miss one thing the format requires: offsets start at 0 or after, not
     * before the data. Null when {@code v} and its children start their offsets at 0 or more.
     */
    private static String negativeFirstOffset(FieldVector v) {
        if (v.getValueCount() > 0) {
            long first = switch (v) {
                case BaseVariableWidthVector w -> w.getOffsetBuffer().getInt(0);
                case BaseLargeVariableWidthVector w -> w.getOffsetBuffer().getLong(0);
                case ListVector l -> l.getOffsetBuffer().getInt(0);
                default -> 0;
            };
            if (first < 0) {
                return "is malformed (its first offset is " + first + ")";
            }
        }
        for (FieldVector child : v.getChildrenFromFields()) {
            String c = negativeFirstOffset(child);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /** A well-formed batch copied value by value, with its dictionaries; closing it frees both. */
    record Copy(VectorSchemaRoot root, DictionaryProvider.MapDictionaryProvider dictionaries) implements AutoCloseable {
        @Override
        public void close() {
            root.close();
            for (long id : dictionaries.getDictionaryIds()) {
                dictionaries.lookup(id).getVector().close();
            }
        }
    }

    /**
     * The canonical copy of the columns {@code read} of {@code batch}, which {@link #problem} finds
     * well-formed; every other column becomes a column of nulls of the same type and length (an
     * expression that does not read a column cannot depend on it), and every other dictionary an
     * empty one.
     */
    static Copy copy(
            VectorSchemaRoot batch, DictionaryProvider dictionaries, Set<Integer> read, BufferAllocator allocator) {
        List<FieldVector> columns = new ArrayList<>();
        DictionaryProvider.MapDictionaryProvider copied = new DictionaryProvider.MapDictionaryProvider();
        try {
            List<FieldVector> vectors = batch.getFieldVectors();
            for (int c = 0; c < vectors.size(); c++) {
                FieldVector v = vectors.get(c);
                columns.add(read.contains(c) ? copyOf(v, allocator) : nulls(v, batch.getRowCount(), allocator));
            }
            for (int c = 0; c < vectors.size(); c++) {
                var encoding = vectors.get(c).getField().getDictionary();
                if (encoding != null && copied.lookup(encoding.getId()) == null) {
                    Dictionary d = dictionaries.lookup(encoding.getId());
                    boolean used = read.stream()
                            .anyMatch(k ->
                                    encoding.equals(vectors.get(k).getField().getDictionary()));
                    copied.put(new Dictionary(
                            used ? copyOf(d.getVector(), allocator) : nulls(d.getVector(), 0, allocator),
                            d.getEncoding()));
                }
            }
            return new Copy(new VectorSchemaRoot(batch.getSchema().getFields(), columns, batch.getRowCount()), copied);
        } catch (RuntimeException e) {
            columns.forEach(FieldVector::close);
            for (long id : copied.getDictionaryIds()) {
                copied.lookup(id).getVector().close();
            }
            throw e;
        }
    }

    private static FieldVector nulls(FieldVector like, int rows, BufferAllocator allocator) {
        FieldVector v = like.getField().createVector(allocator);
        try {
            v.setInitialCapacity(Math.max(1, rows));
            v.allocateNew(); // zeroed: every row null
            v.setValueCount(rows);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    private static FieldVector copyOf(FieldVector from, BufferAllocator allocator) {
        int n = from.getValueCount();
        if (from instanceof NullVector) {
            NullVector nulls = new NullVector(from.getField());
            nulls.setValueCount(n);
            return nulls;
        }
        FieldVector to = from.getField().createVector(allocator);
        try {
            to.setInitialCapacity(Math.max(1, n));
            to.allocateNew();
            for (int i = 0; i < n; i++) {
                to.copyFromSafe(i, i, from);
            }
            to.setValueCount(n);
            return to;
        } catch (RuntimeException e) {
            to.close();
            throw e;
        }
    }
}
