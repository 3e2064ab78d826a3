package dev.quiver.cli.queries;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A low-cardinality string column of a generated table, such as {@code l_shipmode}: its name and
 * its few values. The generator picks a value index per row; the column stores it as a Utf8 value
 * ({@link StringEncoding#PLAIN}) or as an Int32 index into its dictionary
 * ({@link StringEncoding#DICTIONARY}), so both encodings of a table hold the same strings.
 */
final class CategoricalColumn {

    private static final ArrowType.Int INDEX = new ArrowType.Int(32, true);

    private final String name;
    private final List<String> values;
    private final long id;
    private final byte[][] bytes;

    /**
     * @param name   the column's name
     * @param id     its dictionary's id, unique within the table
     * @param values its values, in dictionary order
     */
    CategoricalColumn(String name, long id, String... values) {
        this.name = name;
        this.id = id;
        this.values = List.of(values);
        this.bytes = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = values[i].getBytes(UTF_8);
        }
    }

    String name() {
        return name;
    }

    /** How many values the column has. */
    int cardinality() {
        return values.size();
    }

    /** Value {@code i}. */
    String value(int i) {
        return values.get(i);
    }

    /** The column's field: Utf8, or Int32 indices with the dictionary encoding of {@link #id}. */
    Field field(StringEncoding encoding) {
        return encoding == StringEncoding.PLAIN
                ? Field.nullable(name, ArrowType.Utf8.INSTANCE)
                : new Field(name, new FieldType(true, INDEX, new DictionaryEncoding(id, false, INDEX)), null);
    }

    /** A new dictionary of {@link #values}, owned by the caller. */
    Dictionary dictionary(BufferAllocator allocator) {
        VarCharVector v = new VarCharVector(name + "_dictionary", allocator);
        try {
            v.allocateNew(values.size());
            for (int i = 0; i < values.size(); i++) {
                v.setSafe(i, bytes[i]);
            }
            v.setValueCount(values.size());
            return new Dictionary(v, new DictionaryEncoding(id, false, INDEX));
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /** Writes value {@code valueIndex} into row {@code row} of {@code vector}, as its encoding stores it. */
    void write(FieldVector vector, int row, int valueIndex) {
        if (vector instanceof IntVector indices) {
            indices.set(row, valueIndex);
        } else {
            ((VarCharVector) vector).setSafe(row, bytes[valueIndex]);
        }
    }
}
