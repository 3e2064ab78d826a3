package dev.quiver.cli.queries;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A generated table: its batches, all of one schema, and the dictionaries of its
 * dictionary-encoded columns (none for a plain table). Every engine of the query benchmark reads
 * these same Arrow batches. Closing it frees the batches and the dictionaries.
 *
 * @param name         the table's name in SQL ({@code lineitem}, {@code taxi})
 * @param encoding     how its low-cardinality string columns are stored
 * @param schema       the batches' schema (dictionary-encoded fields carry their encoding)
 * @param batches      the batches, in order
 * @param dictionaries the dictionaries the encoded fields name, by id
 */
public record BenchTable(
        String name,
        StringEncoding encoding,
        Schema schema,
        List<VectorSchemaRoot> batches,
        DictionaryProvider.MapDictionaryProvider dictionaries)
        implements AutoCloseable {

    public BenchTable {
        requireNonNull(name, "name is null");
        requireNonNull(encoding, "encoding is null");
        requireNonNull(schema, "schema is null");
        batches = List.copyOf(batches);
        requireNonNull(dictionaries, "dictionaries is null");
    }

    /** The rows of every batch together. */
    public long rows() {
        long n = 0;
        for (VectorSchemaRoot b : batches) {
            n += b.getRowCount();
        }
        return n;
    }

    @Override
    public void close() {
        batches.forEach(VectorSchemaRoot::close);
        List<Dictionary> ds = new ArrayList<>();
        for (long id : dictionaries.getDictionaryIds()) {
            ds.add(dictionaries.lookup(id));
        }
        ds.forEach(d -> d.getVector().close());
    }
}
