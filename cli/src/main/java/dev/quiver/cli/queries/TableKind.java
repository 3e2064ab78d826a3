package dev.quiver.cli.queries;

import org.apache.arrow.memory.BufferAllocator;

/** The tables the query suite runs over, each with its generator. */
public enum TableKind {
    LINEITEM(LineitemTable.NAME),
    TAXI(TaxiTable.NAME);

    private final String sqlName;

    TableKind(String sqlName) {
        this.sqlName = sqlName;
    }

    /** The table's name in the queries' SQL. */
    public String sqlName() {
        return sqlName;
    }

    /** A new table of {@code rows} rows from {@code seed}; the caller closes it. */
    public BenchTable generate(
            BufferAllocator allocator, long rows, int batchRows, long seed, StringEncoding encoding) {
        return switch (this) {
            case LINEITEM -> LineitemTable.generate(allocator, rows, batchRows, seed, encoding);
            case TAXI -> TaxiTable.generate(allocator, rows, batchRows, seed, encoding);
        };
    }
}
