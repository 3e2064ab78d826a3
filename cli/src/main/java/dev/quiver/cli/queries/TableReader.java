package dev.quiver.cli.queries;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An {@link ArrowReader} over some columns of a {@link BenchTable}'s batches, to export them as
 * an Arrow C stream: each batch's buffers of those columns are loaded into the reader's root by
 * reference (no copy), and the dictionaries are the table's own. Closing it leaves the table as
 * it was.
 */
final class TableReader extends ArrowReader {
    private final BenchTable table;
    private final List<String> columns;
    private final Schema schema;
    private int next;

    /** A reader of {@code columns} (names of the table's fields, in the order given). */
    TableReader(BufferAllocator allocator, BenchTable table, List<String> columns) {
        super(allocator);
        this.table = table;
        this.columns = List.copyOf(columns);
        this.schema = new Schema(
                this.columns.stream().map(c -> table.schema().findField(c)).toList());
    }

    @Override
    public boolean loadNextBatch() throws IOException {
        if (next >= table.batches().size()) {
            return false;
        }
        VectorSchemaRoot batch = table.batches().get(next++);
        VectorSchemaRoot projected = new VectorSchemaRoot(
                schema.getFields(), columns.stream().map(batch::getVector).toList(), batch.getRowCount());
        try (ArrowRecordBatch buffers = new VectorUnloader(projected).getRecordBatch()) {
            new VectorLoader(getVectorSchemaRoot()).load(buffers);
        }
        return true;
    }

    @Override
    public Map<Long, Dictionary> getDictionaryVectors() {
        Map<Long, Dictionary> out = new HashMap<>();
        for (long id : table.dictionaries().getDictionaryIds()) {
            out.put(id, table.dictionaries().lookup(id));
        }
        return out;
    }

    @Override
    public Dictionary lookup(long id) {
        return table.dictionaries().lookup(id);
    }

    @Override
    public long bytesRead() {
        return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
        return schema;
    }
}
