package dev.quiver.cli.queries;

/** How a generated table stores its low-cardinality string columns. */
public enum StringEncoding {
    /** Utf8 vectors, every value written out in each row. */
    PLAIN,
    /** Int32 indices into one Utf8 dictionary per column, shared by every batch. */
    DICTIONARY
}
