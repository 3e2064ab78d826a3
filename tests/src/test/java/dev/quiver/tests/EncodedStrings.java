package dev.quiver.tests;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Dictionary-encoded Utf8 columns for tests: a dictionary (entries may be null, or invalid UTF-8),
 * its indices (any signed integer width, null rows holding garbage indices, out-of-range ones
 * included), and the same rows decoded into a plain Utf8 column, the reference.
 */
final class EncodedStrings {
    private EncodedStrings() {}

    /** The encoding of dictionary {@code id} with indices of {@code bits} bits. */
    static DictionaryEncoding encoding(long id, int bits) {
        return new DictionaryEncoding(id, false, new ArrowType.Int(bits, true));
    }

    /** {@code entries} as a Utf8 vector (a null entry is a null value). */
    static VarCharVector dictionary(BufferAllocator allocator, String name, String... entries) {
        VarCharVector v = new VarCharVector(name, allocator);
        fill(v, entries);
        return v;
    }

    /** Overwrites {@code v} in place with {@code entries}: the same vector object, new contents. */
    static void fill(VarCharVector v, String... entries) {
        v.reset();
        for (int i = 0; i < entries.length; i++) {
            if (entries[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, entries[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(entries.length);
    }

    /**
     * The indices column {@code name} of dictionary {@code id}: row i is {@code rows[i]}, or null
     * (with {@code garbage} written behind it) where {@code rows[i]} is null.
     */
    static FieldVector indices(
            BufferAllocator allocator, String name, long id, int bits, Integer[] rows, long garbage) {
        DictionaryEncoding enc = encoding(id, bits);
        Field f = new Field(name, new FieldType(true, enc.getIndexType(), enc), null);
        FieldVector v = f.createVector(allocator);
        try {
            ((BaseFixedWidthVector) v).allocateNew(rows.length);
            for (int i = 0; i < rows.length; i++) {
                if (rows[i] == null) {
                    ((BaseIntVector) v).setWithPossibleTruncate(i, garbage);
                    ((BaseFixedWidthVector) v).setNull(i);
                } else {
                    ((BaseIntVector) v).setWithPossibleTruncate(i, rows[i]);
                }
            }
            v.setValueCount(rows.length);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /** The rows decoded: row i is {@code entries[rows[i]]}, null where the index or the entry is. */
    static VarCharVector decoded(BufferAllocator allocator, String name, String[] entries, Integer[] rows) {
        String[] values = new String[rows.length];
        for (int i = 0; i < rows.length; i++) {
            values[i] = rows[i] == null ? null : entries[rows[i]];
        }
        return dictionary(allocator, name, values);
    }

    /** {@code n} random indices into {@code size} entries, about {@code nullShare} of them null. */
    static Integer[] randomRows(Random random, int n, int size, double nullShare) {
        Integer[] rows = new Integer[n];
        for (int i = 0; i < n; i++) {
            rows[i] = random.nextDouble() < nullShare ? null : random.nextInt(size);
        }
        return rows;
    }
}
