package dev.quiver.cli.queries;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;

/**
 * Row-by-row reads of a Utf8 column, plain or dictionary-encoded (Int32 indices into a Utf8
 * dictionary), for the hand-written per-row loops: each row's bytes are compared where they lie
 * in the Arrow buffer, without a {@code String} or a copy, as a careful person writes such a loop.
 * A dictionary-encoded row is read through its index, row by row (no per-dictionary precomputation).
 */
final class Utf8Column {
    private final VarCharVector values;
    private final IntVector indices;
    private final ArrowBuf data;
    private final ArrowBuf offsets;

    private Utf8Column(VarCharVector values, IntVector indices) {
        this.values = values;
        this.indices = indices;
        this.data = values.getDataBuffer();
        this.offsets = values.getOffsetBuffer();
    }

    /** {@code vector}, a Utf8 vector or the Int32 indices of a dictionary {@code dictionaries} holds. */
    static Utf8Column of(FieldVector vector, DictionaryProvider dictionaries) {
        DictionaryEncoding encoding = vector.getField().getDictionary();
        if (encoding == null) {
            if (!(vector instanceof VarCharVector v)) {
                throw new IllegalArgumentException(vector.getField() + " is not a Utf8 column");
            }
            return new Utf8Column(v, null);
        }
        Dictionary d = dictionaries.lookup(encoding.getId());
        if (d == null || !(d.getVector() instanceof VarCharVector v) || !(vector instanceof IntVector indices)) {
            throw new IllegalArgumentException(vector.getField() + " is not Int32 indices into a Utf8 dictionary");
        }
        return new Utf8Column(v, indices);
    }

    boolean isNull(int row) {
        return indices == null ? values.isNull(row) : indices.isNull(row) || values.isNull(indices.get(row));
    }

    private int entry(int row) {
        return indices == null ? row : indices.get(row);
    }

    /** The byte length of the row's value. */
    int length(int row) {
        int e = entry(row);
        return offsets.getInt((long) (e + 1) * 4) - offsets.getInt((long) e * 4);
    }

    /** Byte {@code k} of the row's value. */
    byte byteAt(int row, int k) {
        return data.getByte(offsets.getInt((long) entry(row) * 4) + (long) k);
    }

    /** Whether the row's value is {@code s} (bytes). */
    boolean equalTo(int row, byte[] s) {
        int e = entry(row);
        int start = offsets.getInt((long) e * 4), end = offsets.getInt((long) (e + 1) * 4);
        return end - start == s.length && matchesAt(start, s);
    }

    /** Whether the row's value starts with {@code prefix} (LIKE 'prefix%'). */
    boolean startsWith(int row, byte[] prefix) {
        int e = entry(row);
        int start = offsets.getInt((long) e * 4), end = offsets.getInt((long) (e + 1) * 4);
        return end - start >= prefix.length && matchesAt(start, prefix);
    }

    /** Whether the row's value contains {@code part} (LIKE '%part%'). */
    boolean contains(int row, byte[] part) {
        int e = entry(row);
        int start = offsets.getInt((long) e * 4), end = offsets.getInt((long) (e + 1) * 4);
        byte first = part[0];
        for (int at = start; at <= end - part.length; at++) {
            if (data.getByte(at) == first && matchesAt(at, part)) {
                return true;
            }
        }
        return false;
    }

    private boolean matchesAt(int at, byte[] s) {
        for (int k = 0; k < s.length; k++) {
            if (data.getByte(at + (long) k) != s[k]) {
                return false;
            }
        }
        return true;
    }

    /** Copies the row's value into row {@code outRow} of {@code out} (which grows as needed). */
    void copyTo(int row, VarCharVector out, int outRow) {
        out.copyFromSafe(entry(row), outRow, values);
    }
}
