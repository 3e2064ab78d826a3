package dev.quiver.cli.queries;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBResultSet;

/**
 * DuckDB, embedded (an in-memory database through {@code duckdb_jdbc}), on one thread
 * ({@code SET threads=1}). Each run exports the table's batches as an Arrow C stream
 * ({@code Data.exportArrayStream}: the buffers themselves, no copy), registers it under the
 * table's name ({@code DuckDBConnection.registerArrowStream}), runs the query's DuckDB SQL and reads
 * the result as Arrow through the C Data interface
 * ({@code DuckDBResultSet.arrowExportStream(allocator, batchRows)}), batch by batch.
 *
 * <p>The stream holds only the columns the query reads ({@link BenchQuery#columnsRead}).
 * {@code registerArrowStream} scans a Java stream with DuckDB's {@code arrow_scan_dumb}, which
 * has no projection pushdown: DuckDB converts every column of every batch it is given into its
 * own vectors, used or not (over the whole {@code lineitem} table a {@code count(*)} took 30 times
 * as long as over the one column it needs). Leaving the other columns out of the stream is the
 * pushdown DuckDB does itself where its scan can project, and costs nothing (no copy).
 */
final class DuckDbEngine implements Engine {
    static final String NAME = "duckdb-1t";

    private final Connection connection;
    private final BufferAllocator allocator;
    private final int batchRows;
    private final String version;

    private DuckDbEngine(Connection connection, BufferAllocator allocator, int batchRows, String version) {
        this.connection = connection;
        this.allocator = allocator;
        this.batchRows = batchRows;
        this.version = version;
    }

    /** A new in-memory DuckDB on one thread, whose results come in batches of up to {@code batchRows} rows. */
    static DuckDbEngine open(BufferAllocator allocator, int batchRows) {
        requireNonNull(allocator, "allocator is null");
        try {
            Connection c = DriverManager.getConnection("jdbc:duckdb:");
            try (Statement s = c.createStatement()) {
                s.execute("SET threads = 1");
                String version;
                try (ResultSet r = s.executeQuery("SELECT version()")) {
                    r.next();
                    version = r.getString(1);
                }
                return new DuckDbEngine(c, allocator, batchRows, version);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not start DuckDB: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "DuckDB " + version
                + " embedded (duckdb_jdbc), SET threads = 1, reading the batches through the Arrow C "
                + "Data interface (registerArrowStream) and returning Arrow batches of up to " + batchRows
                + " rows (arrowExportStream)";
    }

    @Override
    public PreparedQuery prepare(BenchQuery query, BenchTable table) {
        return sink -> run(query, table, sink);
    }

    private long run(BenchQuery query, BenchTable table, Consumer<VectorSchemaRoot> sink) {
        try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
            TableReader reader = new TableReader(allocator, table, query.columnsRead(table.schema()));
            try {
                Data.exportArrayStream(allocator, reader, stream);
            } catch (RuntimeException e) {
                reader.close();
                throw e;
            }
            connection.unwrap(DuckDBConnection.class).registerArrowStream(table.name(), stream);
            long rows = 0;
            try (Statement statement = connection.createStatement();
                    ResultSet result = statement.executeQuery(query.duckDbSql());
                    ArrowReader batches = (ArrowReader)
                            result.unwrap(DuckDBResultSet.class).arrowExportStream(allocator, batchRows)) {
                while (batches.loadNextBatch()) {
                    VectorSchemaRoot batch = batches.getVectorSchemaRoot();
                    rows += batch.getRowCount();
                    sink.accept(batch);
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("DuckDB failed on " + query.name() + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new IllegalStateException("could not close DuckDB: " + e.getMessage(), e);
        }
    }
}
