package dev.quiver.cli.queries;

import java.util.List;

/**
 * The built-in queries, in the order they run (grouped by table, so each table is generated
 * once): TPC-H's Q1, Q6, Q12, Q14 and Q19 (their scalar parts) and the string-heavy query over
 * {@code lineitem}; then each of them that reads a low-cardinality string again over the table
 * with those strings dictionary-encoded ({@code -dict}; Q6 reads none); then the taxi query with
 * its RowFn.
 */
public final class QuerySuite {
    private QuerySuite() {}

    public static List<BenchQuery> all() {
        return List.of(
                Q1.query(),
                Q6.query(),
                Q12.query(),
                Q14.query(),
                Q19.query(),
                StringsQuery.query(),
                Q1.query().overDictionaries(),
                Q12.query().overDictionaries(),
                Q14.query().overDictionaries(),
                Q19.query().overDictionaries(),
                StringsQuery.query().overDictionaries(),
                TaxiQuery.query());
    }

    /** The names of {@link #all()}, in order. */
    public static List<String> names() {
        return all().stream().map(BenchQuery::name).toList();
    }
}
