package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.functions.PlanningException;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The searching and composing string functions, {@code ||} and LIKE, evaluated by Quiver through
 * the public API and by an embedded DuckDB on the same generated table, compared row by row.
 * Strings are ASCII and multi-byte (é, €, 日本語, 𝄞), empty, NULL (with garbage bytes, needles
 * included, behind them in the Arrow batch), 100 KB long, and adjacent rows that together hold
 * a needle ({@code 'xab'}, {@code 'cyy'}) that must not match. Columns: {@code s} (Utf8),
 * {@code t} (a short Utf8 needle, delimiter or separator per row), {@code big} (LargeUtf8, the
 * same as {@code s}), {@code n} (Int64 part index), {@code p} (a regular expression per row).
 * Regular expressions stay in the syntax Java's java.util.regex and DuckDB's RE2 share.
 * Seeded: the seed is printed.
 */
class StringSearchDuckDbTest extends QuiverTestBase {
    private static final long SEED = Long.getLong("quiver.seed", System.nanoTime());
    private static final String[] PIECES = {
        "a", "b", "c", "abc", ",", "é", "€", "日本語", "𝄞", "x", "ab", "bc", " ", "B", "ABC"
    };
    private static final String[] NEEDLES = {"abc", "a", "", "é", ",", "日本語", "𝄞", "bc", "c,", "xyz"};
    /** Both run RE2's syntax (Quiver through RE2/J): classes, anchors, flags and empty-width assertions included. */
    private static final String[] PATTERNS = {
        "abc",
        "a.c",
        "^a",
        "c$",
        "b+",
        "[é€]",
        "(a|b)c",
        "日本.",
        "x*",
        "\\d",
        "[^a-z]",
        "(?i)ab",
        "\\bc",
        "[[:alpha:]]+",
        "a.*?c",
        "\\pL+",
        "\\S",
        "(?s).",
        "\\Aa",
        "c\\z",
        "\\p{Han}",
        "(a+)+$",
        "(?U)b+"
    };

    private Connection duckDb;
    private VectorSchemaRoot batch;
    private Schema schema;
    private int rows;

    @BeforeEach
    void load() throws SQLException {
        System.out.println("StringSearchDuckDbTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        Random rnd = new Random(SEED);
        List<String> s = new ArrayList<>(Arrays.asList(
                "xab", "cyy", "a", "bc", "", null, "abc", "€a", "bc€", "日本", "語日本語", "a,b,c", ",,", "𝄞𝄞", "ABC",
                "aBc"));
        StringBuilder big = new StringBuilder();
        while (big.length() < 100_000) {
            big.append(PIECES[rnd.nextInt(PIECES.length)]);
        }
        s.add(big.toString());
        s.add(big + "abc");
        while (s.size() < 1000) {
            if (rnd.nextInt(8) == 0) {
                s.add(null);
                continue;
            }
            StringBuilder sb = new StringBuilder();
            int k = rnd.nextInt(rnd.nextInt(5) == 0 ? 40 : 8);
            for (int i = 0; i < k; i++) {
                sb.append(PIECES[rnd.nextInt(PIECES.length)]);
            }
            s.add(sb.toString());
        }
        rows = s.size();
        List<String> t = new ArrayList<>();
        List<Long> n = new ArrayList<>();
        List<String> p = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            t.add(rnd.nextInt(10) == 0 ? null : NEEDLES[rnd.nextInt(NEEDLES.length)]);
            n.add(rnd.nextInt(10) == 0 ? null : (long) rnd.nextInt(9) - 4);
            p.add(rnd.nextInt(10) == 0 ? null : PATTERNS[rnd.nextInt(PATTERNS.length)]);
        }
        schema = new Schema(List.of(
                DataType.UTF8.toField("s", true),
                DataType.UTF8.toField("t", true),
                DataType.LARGE_UTF8.toField("big", true),
                DataType.INT64.toField("n", true),
                DataType.UTF8.toField("p", true)));
        batch = VectorSchemaRoot.create(schema, allocator);
        fill(batch.getVector("s"), s, rnd);
        fill(batch.getVector("t"), t, rnd);
        fill(batch.getVector("big"), s, rnd);
        fill(batch.getVector("p"), p, rnd);
        BigIntVector nv = (BigIntVector) batch.getVector("n");
        nv.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            nv.set(i, n.get(i) == null ? 7 : n.get(i)); // garbage behind the nulls
            if (n.get(i) == null) {
                nv.setNull(i);
            }
        }
        nv.setValueCount(rows);
        batch.setRowCount(rows);

        duckDb = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = duckDb.createStatement()) {
            st.execute("CREATE TABLE t (id INTEGER, s VARCHAR, t VARCHAR, big VARCHAR, n BIGINT, p VARCHAR)");
        }
        try (PreparedStatement ps = duckDb.prepareStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < rows; i++) {
                ps.setInt(1, i);
                ps.setString(2, s.get(i));
                ps.setString(3, t.get(i));
                ps.setString(4, s.get(i));
                ps.setObject(5, n.get(i));
                ps.setString(6, p.get(i));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Strings into a Utf8 or LargeUtf8 vector; a null row holds garbage (invalid UTF-8 or a needle) behind it. */
    private void fill(FieldVector v, List<String> values, Random rnd) {
        byte[][] garbage = {
            {(byte) 0xFF, (byte) 0xC3},
            "abc".getBytes(StandardCharsets.UTF_8),
            ",b,".getBytes(StandardCharsets.UTF_8),
            {(byte) 0x80, 'a', 'b', 'c'}
        };
        v.allocateNew();
        for (int i = 0; i < values.size(); i++) {
            String x = values.get(i);
            byte[] b = x == null ? garbage[rnd.nextInt(garbage.length)] : x.getBytes(StandardCharsets.UTF_8);
            if (v instanceof LargeVarCharVector l) {
                l.setSafe(i, b);
            } else {
                ((VarCharVector) v).setSafe(i, b);
            }
        }
        v.setValueCount(values.size());
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                BitVectorHelper.unsetBit(v.getValidityBuffer(), i);
            }
        }
        if (v instanceof BaseLargeVariableWidthVector l) {
            l.setLastSet(values.size() - 1);
        } else {
            ((BaseVariableWidthVector) v).setLastSet(values.size() - 1);
        }
    }

    @AfterEach
    void closeAll() throws SQLException {
        if (duckDb != null) {
            duckDb.close();
        }
        if (batch != null) {
            batch.close();
        }
    }

    private List<Object> duckDb(String sql) throws SQLException {
        List<Object> out = new ArrayList<>();
        try (Statement st = duckDb.createStatement();
                ResultSet r = st.executeQuery("SELECT " + sql + " FROM t ORDER BY id")) {
            while (r.next()) {
                Object o = r.getObject(1);
                out.add(o instanceof Integer i ? Long.valueOf(i) : o);
            }
        }
        return out;
    }

    private List<Object> quiver(String sql) {
        CompiledExpression e = quiver.compile(schema, sql);
        try (FieldVector out = e.evaluate(batch, Placement.CPU)) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < out.getValueCount(); i++) {
                values.add(Values.get(out, i).value());
            }
            return values;
        }
    }

    private void same(String quiverSql, String duckSql) throws SQLException {
        List<Object> want = duckDb(duckSql);
        List<Object> got = quiver(quiverSql);
        assertEquals(rows, got.size(), quiverSql);
        for (int i = 0; i < rows; i++) {
            int row = i;
            assertEquals(want.get(i), got.get(i), () -> quiverSql + " at row " + row);
        }
    }

    private void same(String sql) throws SQLException {
        same(sql, sql);
    }

    @Test
    void searching() throws SQLException {
        for (String needle : NEEDLES) {
            String lit = "'" + needle + "'";
            same("contains(s, " + lit + ")");
            same("starts_with(s, " + lit + ")");
            same("ends_with(s, " + lit + ")");
            same("strpos(s, " + lit + ")");
            same("contains(big, " + lit + ")");
            same("strpos(big, " + lit + ")");
        }
        same("contains(s, t)");
        same("starts_with(s, t)");
        same("suffix(s, t)");
        same("strpos(s, t)");
        same("instr(s, t)");
        same("position(t IN s)");
        same("position('é' IN s)");
        same("instr(s, 'c')");
        same("contains('abcdef', t)");
    }

    @Test
    void like() throws SQLException {
        for (String pattern : new String[] {"%abc%", "ab%", "%c", "%é%", "a_c%", "%日本語%", "", "%", "abc"}) {
            same("s LIKE '" + pattern + "'");
            same("s NOT LIKE '" + pattern + "'");
            same("big LIKE '" + pattern + "'");
        }
        same("s ILIKE '%ABC%'");
        same("s ILIKE 'a%'");
    }

    @Test
    void composing() throws SQLException {
        same("replace(s, 'abc', 'X')");
        same("replace(s, 'a', '€€')");
        same("replace(s, '', 'x')");
        same("replace(s, t, '<>')");
        same("replace(big, 'abc', '')");
        same("concat(s, '-', t)");
        same("concat(s, CAST(NULL AS VARCHAR), t, big)");
        same("concat(t)");
        same("s || t");
        same("s || '-' || t");
        same("big || s");
        same("concat_ws(',', s, t)");
        same("concat_ws(t, s, 'x', s)");
        same("concat_ws('', s, t)");
        same("split_part(s, ',', n)");
        same("split_part(s, t, 2)");
        same("split_part(s, t, n)");
        same("split_part(s, '', n)");
        for (int k : new int[] {-3, -1, 0, 1, 2, 5}) {
            same("split_part(s, ',', " + k + ")");
            same("split_part(s, 'b', " + k + ")");
            same("split_part(s, '日本語', " + k + ")");
        }
    }

    @Test
    void regularExpressions() throws SQLException {
        for (String p : PATTERNS) {
            String lit = "'" + p + "'";
            same("regexp_matches(s, " + lit + ")");
            same("regexp_replace(s, " + lit + ", '<\\0>')");
            same("regexp_replace(s, " + lit + ", '-', 'g')");
            same("regexp_replace(s, " + lit + ", '$', 'g')");
        }
        // regexp_like is Quiver's alias of DuckDB's regexp_matches.
        same("regexp_like(s, 'B', 'i')", "regexp_matches(s, 'B', 'i')");
        same("regexp_matches(s, 'b', 'ci')");
        same("regexp_matches(s, '.', 'l')");
        same("regexp_replace(s, '(a)(b)', '\\2\\1', 'g')");
        same("regexp_replace(s, '(b)', '\\\\\\1')");
        same("regexp_replace(s, 'B+', 'x', 'gi')");
        same("regexp_matches(s, p)");
        same("regexp_replace(s, p, '#', 'g')");
        same("regexp_matches(big, 'a.c')");
        same("regexp_replace(big, 'b', 'B', 'g')");
    }

    @Test
    void aBadLiteralPatternFailsTheCompileNamingIt() {
        PlanningException e =
                assertThrows(PlanningException.class, () -> quiver.compile(schema, "regexp_matches(s, 'a(')"));
        assertTrue(e.getMessage().contains("'a('"), e.getMessage());
        assertThrows(PlanningException.class, () -> quiver.compile(schema, "regexp_replace(s, 'a', 'b', 'q')"));
    }
}
