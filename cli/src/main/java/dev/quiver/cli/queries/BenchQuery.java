package dev.quiver.cli.queries;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One query of the suite: a filter and a projection over one table, written three ways that must
 * give the same rows: Quiver's SQL ({@link #filter} and {@link #projections}, as
 * {@code quiver.compileProjection(schema, filter, projections)} takes them), the hand-written
 * per-row Java loop ({@link #rowLoop}, writing {@link #output}), and DuckDB's SQL
 * ({@link #duckDbSql}, a {@code SELECT} from the table's SQL name).
 *
 * @param name        the query's name ({@code q1}; {@code q1-dict} over dictionary-encoded strings)
 * @param table       the table it reads
 * @param encoding    how that table's low-cardinality strings are stored
 * @param description what it is, in a few words
 * @param filter      Quiver's filter, a Boolean SQL expression
 * @param projections Quiver's projected expressions, each named with {@code AS}
 * @param duckDbSql   the same query for DuckDB
 * @param output      the schema the row loop writes
 * @param rowLoop     the hand-written loop
 */
public record BenchQuery(
        String name,
        TableKind table,
        StringEncoding encoding,
        String description,
        String filter,
        List<String> projections,
        String duckDbSql,
        Schema output,
        RowLoop rowLoop) {

    public BenchQuery {
        requireNonNull(name, "name is null");
        requireNonNull(table, "table is null");
        requireNonNull(encoding, "encoding is null");
        requireNonNull(description, "description is null");
        requireNonNull(filter, "filter is null");
        projections = List.copyOf(projections);
        requireNonNull(duckDbSql, "duckDbSql is null");
        requireNonNull(output, "output is null");
        requireNonNull(rowLoop, "rowLoop is null");
    }

    /** This query over the table with dictionary-encoded strings, named {@code <name>-dict}; the SQL and the loop are the same. */
    public BenchQuery overDictionaries() {
        return new BenchQuery(
                name + "-dict",
                table,
                StringEncoding.DICTIONARY,
                description + ", strings dictionary-encoded",
                filter,
                projections,
                duckDbSql,
                output,
                rowLoop);
    }

    /**
     * The columns of {@code schema} the query reads, in the schema's order: those whose name is
     * a word of {@link #duckDbSql} (names are matched as whole words, so {@code tip} is not read
     * by {@code tip_band}).
     */
    public List<String> columnsRead(Schema schema) {
        return schema.getFields().stream()
                .map(Field::getName)
                .filter(n -> Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(n) + "(?![A-Za-z0-9_])")
                        .matcher(duckDbSql)
                        .find())
                .toList();
    }

    /** {@code SELECT projections FROM table WHERE filter}: the DuckDB SQL of a query whose expressions both engines spell alike. */
    static String select(List<String> projections, TableKind table, String filter) {
        return "SELECT " + String.join(", ", projections) + " FROM " + table.sqlName() + " WHERE " + filter;
    }
}
