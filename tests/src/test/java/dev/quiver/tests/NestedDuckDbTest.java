package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.Placement;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.duckdb.DuckDBStruct;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The nested functions against DuckDB (embedded): the same generated table in both, each
 * expression evaluated by Quiver and by DuckDB in DuckDB's spelling, compared row by row.
 * Lists come back from DuckDB as {@link java.sql.Array}, structs as {@code DuckDBStruct}; both
 * are turned into the Java lists and maps {@link Values#get} gives for Quiver's results.
 */
class NestedDuckDbTest extends QuiverTestBase {
    private static final int ROWS = 300;
    private static final DataType.ListType INT_LIST = new DataType.ListType(DataType.INT32, true);
    private static final DataType.ListType STRING_LIST = new DataType.ListType(DataType.UTF8, true);

    private Connection duckDb;
    private VectorSchemaRoot batch;
    private long seed;

    @BeforeEach
    void load() throws SQLException {
        seed = Long.getLong("quiver.seed", System.nanoTime());
        System.out.println("NestedDuckDbTest seed " + seed + " (replay with -Dquiver.seed=" + seed + ")");
        Random r = new Random(seed);
        List<Object> x = new ArrayList<>();
        List<Object> y = new ArrayList<>();
        List<Object> d = new ArrayList<>();
        List<Object> s = new ArrayList<>();
        List<Object> i = new ArrayList<>();
        List<Object> l = new ArrayList<>();
        List<Object> ls = new ArrayList<>();
        for (int k = 0; k < ROWS; k++) {
            x.add(r.nextInt(5) == 0 ? null : r.nextInt(7) - 3);
            y.add(r.nextInt(4) == 0 ? null : r.nextInt(7) - 3);
            d.add(r.nextInt(5) == 0 ? null : (r.nextInt(9) - 4) / 2.0);
            s.add(r.nextInt(5) == 0 ? null : "s" + r.nextInt(4));
            i.add(r.nextInt(6) == 0 ? null : r.nextInt(11) - 5);
            l.add(r.nextInt(6) == 0 ? null : randomList(r, () -> r.nextInt(5) == 0 ? null : r.nextInt(7) - 3));
            ls.add(r.nextInt(6) == 0 ? null : randomList(r, () -> r.nextInt(5) == 0 ? null : "s" + r.nextInt(4)));
        }
        List<FieldVector> columns = new ArrayList<>();
        try {
            columns.add(Values.of(DataType.INT32, "x", x, allocator));
            columns.add(Values.of(DataType.INT32, "y", y, allocator));
            columns.add(Values.of(DataType.FLOAT64, "d", d, allocator));
            columns.add(Values.of(DataType.UTF8, "s", s, allocator));
            columns.add(Values.of(DataType.INT32, "i", i, allocator));
            columns.add(Values.of(INT_LIST, "l", l, allocator));
            columns.add(Values.of(STRING_LIST, "ls", ls, allocator));
        } catch (RuntimeException e) {
            columns.forEach(FieldVector::close);
            throw e;
        }
        batch = TestColumns.batch(ROWS, columns.toArray(FieldVector[]::new));
        duckDb = DriverManager.getConnection("jdbc:duckdb:");
        StringBuilder insert = new StringBuilder("INSERT INTO t VALUES ");
        for (int k = 0; k < ROWS; k++) {
            insert.append(k == 0 ? "" : ", ").append('(').append(k);
            for (List<Object> c : List.of(x, y, d, s, i, l, ls)) {
                insert.append(", ").append(sql(c.get(k)));
            }
            insert.append(')');
        }
        try (Statement st = duckDb.createStatement()) {
            st.execute(
                    "CREATE TABLE t (id INTEGER, x INTEGER, y INTEGER, d DOUBLE, s VARCHAR, i INTEGER, l INTEGER[], ls VARCHAR[])");
            st.execute(insert.toString());
        }
        // The load itself is checked.
        for (String c : List.of("x", "y", "d", "s", "i", "l", "ls")) {
            assertEquals(TestColumns.values(batch.getVector(c)), duckDbColumn(c), "loading " + c);
        }
    }

    @AfterEach
    void close() throws SQLException {
        if (batch != null) {
            batch.close();
        }
        if (duckDb != null) {
            duckDb.close();
        }
    }

    private static List<Object> randomList(Random r, Supplier<Object> element) {
        int n = r.nextInt(5);
        List<Object> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            out.add(element.get());
        }
        return out;
    }

    private static String sql(Object v) {
        return switch (v) {
            case null -> "NULL";
            case String s -> "'" + s.replace("'", "''") + "'";
            case List<?> l -> {
                StringBuilder b = new StringBuilder("[");
                for (int k = 0; k < l.size(); k++) {
                    b.append(k == 0 ? "" : ", ").append(sql(l.get(k)));
                }
                yield b.append(']').toString();
            }
            default -> v.toString();
        };
    }

    private List<Object> duckDbColumn(String expr) throws SQLException {
        List<Object> out = new ArrayList<>();
        try (Statement st = duckDb.createStatement();
                ResultSet rs = st.executeQuery("SELECT " + expr + " FROM t ORDER BY id")) {
            while (rs.next()) {
                out.add(normalize(rs.getObject(1)));
            }
        }
        return out;
    }

    private static Object normalize(Object o) throws SQLException {
        if (o instanceof Array a) {
            List<Object> out = new ArrayList<>();
            for (Object e : (Object[]) a.getArray()) {
                out.add(normalize(e));
            }
            return out;
        }
        if (o instanceof DuckDBStruct s) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : s.getMap().entrySet()) {
                out.put(e.getKey(), normalize(e.getValue()));
            }
            return out;
        }
        return o;
    }

    private void same(String quiverSql, String duckDbSql) throws SQLException {
        List<Object> expected = duckDbColumn(duckDbSql);
        List<Object> got;
        try (FieldVector out = quiver.compile(batch.getSchema(), quiverSql).evaluate(batch, Placement.CPU, allocator)) {
            got = TestColumns.values(out);
        }
        for (int k = 0; k < ROWS; k++) {
            int row = k;
            assertEquals(
                    expected.get(k),
                    got.get(k),
                    () -> quiverSql + " vs DuckDB " + duckDbSql + " at row " + row + " (seed " + seed + ")");
        }
    }

    @Test
    void listBuildersMatchDuckDb() throws SQLException {
        same("make_array(x, y, x)", "list_value(x, y, x)");
        same("make_array(s, s, 'k')", "list_value(s, s, 'k')");
        same("make_array(d, 1.5)", "list_value(d, 1.5::DOUBLE)");
        same("[x, y]", "[x, y]");
        same("make_array(l, l)", "list_value(l, l)");
    }

    @Test
    void elementAccessMatchesDuckDb() throws SQLException {
        same("array_element(l, i)", "list_extract(l, i)");
        same("l[i]", "l[i]");
        same("l[1]", "l[1]");
        same("l[-1]", "l[-1]");
        same("ls[2]", "ls[2]");
        same("list_extract(ls, i)", "list_extract(ls, i)");
        same("make_array(x, y, 7)[i]", "list_value(x, y, 7)[i]");
    }

    @Test
    void lengthsAndContainmentMatchDuckDb() throws SQLException {
        same("array_length(l)", "len(l)");
        same("cardinality(ls)", "len(ls)");
        same("array_length(make_array(x, y))", "array_length(list_value(x, y))");
        same("array_contains(l, x)", "list_contains(l, x)");
        same("list_contains(l, 2)", "list_contains(l, 2)");
        same("array_has(ls, s)", "array_has(ls, s)");
        same("array_contains(l, d)", "list_contains(l, d)");
        same("array_contains(make_array(x, y), i)", "list_contains(list_value(x, y), i)");
    }

    @Test
    void structsMatchDuckDb() throws SQLException {
        same("named_struct('a', x, 'b', s)", "struct_pack(a := x, b := s)");
        same("named_struct('a', x, 'b', s)['b']", "struct_pack(a := x, b := s)['b']");
        same("get_field(named_struct('a', l, 'b', d), 'a')", "struct_extract(struct_pack(a := l, b := d), 'a')");
        same("named_struct('n', named_struct('a', x), 'l', l)", "struct_pack(n := struct_pack(a := x), l := l)");
        same("named_struct('a', x, 'b', s)['a'] + y", "struct_pack(a := x, b := s)['a'] + y");
        same("struct(x, s)['c1']", "s");
    }

    @Test
    void expectedEdgeRowsArePresent() {
        // A sanity check on the generator: the comparisons above see NULL lists, empty lists and NULL elements.
        List<Object> l = TestColumns.values(batch.getVector("l"));
        assertEquals(true, l.contains(null), "a NULL list (seed " + seed + ")");
        assertEquals(true, l.contains(List.of()), "an empty list (seed " + seed + ")");
        assertEquals(
                true,
                l.stream().anyMatch(v -> v instanceof List<?> e && e.contains(null)),
                "a NULL element (seed " + seed + ")");
    }
}
