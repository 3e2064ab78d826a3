package dev.quiver.cli.queries;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * A query written by hand: plain Java that reads one batch's Arrow vectors row by row, applies
 * the filter and writes the projected values of the rows it keeps into {@code out}, rows
 * {@code 0, 1, ...}. {@code out} has the query's output schema, its fixed-width vectors room for
 * as many rows as the batch has, its strings room to grow ({@code setSafe}); the caller sets the
 * value counts from the row count returned, and closes {@code out}.
 */
@FunctionalInterface
public interface RowLoop {
    /** Fills {@code out} from {@code batch}: the number of rows written. */
    int run(VectorSchemaRoot batch, DictionaryProvider dictionaries, VectorSchemaRoot out);
}
