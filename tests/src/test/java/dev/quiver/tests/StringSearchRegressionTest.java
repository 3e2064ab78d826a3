package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.errors.EvaluationException;
import dev.quiver.expr.Expr;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Edge cases of the searching and composing string functions against the embedded DuckDB, from
 * their review: regular expressions where Java and RE2 differ by default (line terminators,
 * {@code \s}, negated POSIX classes, RE2 group syntax only at a group, whitespace in options),
 * and probes of concat, split_part, strpos, replace, LIKE and threads that held from the start.
 */
class StringSearchRegressionTest extends QuiverTestBase {

    private VectorSchemaRoot batch(List<String> values) {
        Schema schema = new Schema(List.of(DataType.UTF8.toField("s", true)));
        VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
        VarCharVector v = (VarCharVector) b.getVector("s");
        v.allocateNew();
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values.get(i).getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(values.size());
        b.setRowCount(values.size());
        return b;
    }

    private List<Object> quiver(List<String> values, String sql) {
        try (VectorSchemaRoot b = batch(values)) {
            CompiledExpression e = quiver.compile(b.getSchema(), sql);
            try (FieldVector out = e.evaluate(b, Placement.CPU)) {
                List<Object> r = new ArrayList<>();
                for (int i = 0; i < out.getValueCount(); i++) {
                    Object o = Values.get(out, i).value();
                    r.add(o instanceof Integer x ? Long.valueOf(x) : o);
                }
                return r;
            }
        }
    }

    private static List<Object> duck(List<String> values, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE t (id INTEGER, s VARCHAR)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
                for (int i = 0; i < values.size(); i++) {
                    ps.setInt(1, i);
                    ps.setString(2, values.get(i));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            List<Object> out = new ArrayList<>();
            try (Statement st = c.createStatement();
                    ResultSet r = st.executeQuery("SELECT " + sql + " FROM t ORDER BY id")) {
                while (r.next()) {
                    Object o = r.getObject(1);
                    out.add(o instanceof Integer i ? Long.valueOf(i) : o);
                }
            }
            return out;
        }
    }

    private void same(List<String> values, String sql) throws SQLException {
        same(values, sql, sql);
    }

    private void same(List<String> values, String quiverSql, String duckSql) throws SQLException {
        assertEquals(duck(values, duckSql), quiver(values, quiverSql), quiverSql);
    }

    // ---- probes

    /** Was wrong (java.util.regex): Java's '.' and '$' treat \r, \u0085, \u2028, \u2029 as line terminators; RE2 only \n. Now RE2/J. */
    @Test
    void regexDotMatchesCarriageReturnLikeRe2() throws SQLException {
        List<String> rows = Arrays.asList("a\rb", "a\u0085b", "a\u2028b", "a\nb", "ab\r");
        same(rows, "regexp_matches(s, 'a.b')");
        same(rows, "regexp_replace(s, '.', 'x', 'g')");
        same(rows, "regexp_matches(s, 'b$')");
    }

    /** Was wrong (java.util.regex): Java's \s includes \x0B (VT), RE2's is [\t\n\f\r ]. Now RE2/J. */
    @Test
    void regexBackslashSIsRe2Whitespace() throws SQLException {
        same(Arrays.asList("a\u000Bb", "a b"), "regexp_matches(s, 'a\\sb')");
    }

    /** Was wrong (Regex.options): DuckDB ignores ' ', \t, \n in the options string; Quiver fails the compile. */
    @Test
    void regexOptionsWhitespaceIgnoredLikeDuckDb() throws SQLException {
        same(Arrays.asList("ABC", "x"), "regexp_matches(s, 'b', 'i ')");
    }

    @Test
    void regexAsciiAndDecodePathsAgree() throws SQLException {
        for (String p : new String[] {"", "x*", "b*", "\\b", "$", "^", "b|", "|b", "(b)?"}) {
            same(Arrays.asList("abxc", "", "bb", "a"), "regexp_replace(s, '" + p + "', '-', 'g')");
            same(Arrays.asList("abxc", "", "bb", "a", "é"), "regexp_replace(s, '" + p + "', '-', 'g')");
            same(Arrays.asList("ab𝄞c", "𝄞𝄞"), "regexp_replace(s, '" + p + "', '-', 'g')");
        }
        same(Arrays.asList("a$b", "a\\b"), "regexp_replace(s, '(a)', '[$1\\\\\\1\\0]')");
        same(Arrays.asList("a$b", "é"), "regexp_replace(s, '(a)', '[$1\\\\\\1\\0]')");
        same(Arrays.asList("abc", "é"), "regexp_replace(s, 'b', '\\2')");
        same(Arrays.asList("abc", "é"), "regexp_replace(s, 'b', '\\x')");
    }

    @Test
    void regexEmptyWidthAssertionsLikeDuckDb() throws SQLException {
        List<String> ascii = Arrays.asList("abxc", "", "bb", "a", "ab\nb");
        List<String> mixed = new ArrayList<>(ascii);
        mixed.add("é");
        for (String sql : new String[] {
            "regexp_replace(s, '\\b', '|', 'g')",
            "regexp_replace(s, '\\B', '.', 'g')",
            "regexp_matches(s, '(?m)^b$')",
            "regexp_replace(s, '(?m)^', '>', 'g')",
            "regexp_replace(s, '(?m)$', '<', 'g')",
            "regexp_replace(s, '\\Ab|b\\z', '#', 'g')"
        }) {
            same(ascii, sql);
            same(mixed, sql);
        }
    }

    /** Was rejected by DuckDB and run by java.util.regex (backreferences, lookaround): RE2/J rejects them too, at planning. */
    @Test
    void regexJavaOnlyConstructsAreRejectedLikeDuckDb() {
        for (String sql : new String[] {
            "regexp_replace(s, '(?=b)', '-', 'g')",
            "regexp_replace(s, '(?<=b)', '-', 'g')",
            "regexp_replace(s, '(a)\\1*', '\\1\\1', 'g')",
            "regexp_matches(s, 'a++')",
            "regexp_matches(s, '(?>a)')"
        }) {
            Schema schema = new Schema(List.of(DataType.UTF8.toField("s", true)));
            Assertions.assertThrows(PlanningException.class, () -> quiver.compile(schema, sql), sql);
            Assertions.assertThrows(SQLException.class, () -> duck(List.of("ab"), sql), sql);
        }
    }

    /** Was wrong (java.util.regex, then a translation to it): RE2's negated POSIX class [[:^alpha:]] is not translated; Java reads it as a nested set of letters. */
    @Test
    void regexPosixClassesLikeRe2() throws SQLException {
        List<String> rows = Arrays.asList("1", "a", "A", " ", "P<");
        same(rows, "regexp_matches(s, '[[:^alpha:]]')");
    }

    @Test
    void regexPosixClassUnderCaseInsensitiveLikeRe2() throws SQLException {
        same(Arrays.asList("1", "a", "A"), "regexp_matches(s, '[[:lower:]]', 'i')");
    }

    /** Was wrong (a translation to java.util.regex): plain String.replace of "(?P<" also rewrites an escaped \( followed by ?P< (and text inside classes), changing the pattern. */
    @Test
    void regexTranslateOfPNameOnlyAtAGroup() throws SQLException {
        same(Arrays.asList("P<", "<"), "regexp_replace(s, '\\(?P<', 'x')");
    }

    @Test
    void zeroRowBatchesAndLargeMixes() {
        List<String> none = new ArrayList<>();
        for (String sql : new String[] {
            "concat(s, 1)",
            "s || 'x'",
            "concat_ws(',', s, 2)",
            "replace(s, 'a', 'b')",
            "contains(s, 'a')",
            "strpos(s, 'a')",
            "split_part(s, ',', 2)",
            "regexp_matches(s, 'a')",
            "regexp_replace(s, 'a', 'b', 'g')",
            "s LIKE '%ab%'",
            "starts_with(s, 'a')",
            "regexp_matches(s, s)"
        }) {
            assertEquals(List.of(), quiver(none, sql), sql);
        }
        assertEquals(
                Arrays.asList("a1", "1", "日本1"),
                quiver(Arrays.asList("a", null, "日本"), "concat(CAST(s AS large_utf8), 1)"));
    }

    @Test
    void likeWithEscapeOverColumn() throws SQLException {
        List<String> rows = Arrays.asList("a%b", "ab", "xa%bx", null, "a_b", "%");
        same(rows, "s LIKE '%a!%b%' ESCAPE '!'");
        same(rows, "s NOT LIKE '%a!%b%' ESCAPE '!'");
        same(rows, "s LIKE '%!%%' ESCAPE '!'");
        same(rows, "s NOT LIKE '%!_%' ESCAPE '!'");
    }

    @Test
    void aBadPatternInAPatternColumnLeaksNothing() {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rows.add(i == 70 ? "a(" : "b");
        }
        try (VectorSchemaRoot b = batch(rows)) {
            for (String sql : new String[] {
                "regexp_matches('abc', s)",
                "regexp_replace('abc', s, 'x')",
                "regexp_replace(s || 'q', s, 'x', 'g')",
                "regexp_matches(concat(s, s), s)"
            }) {
                CompiledExpression e = quiver.compile(b.getSchema(), sql);
                EvaluationException x = Assertions.assertThrows(
                        EvaluationException.class,
                        () -> e.evaluate(b, Placement.CPU).close(),
                        sql);
                assertEquals(70, x.row(), sql);
            }
        }
        // QuiverTestBase asserts the allocator is back to 0 bytes
    }

    @Test
    void splitPartEdgesLikeDuckDb() throws SQLException {
        List<String> rows = Arrays.asList("", "a", "a,b,,c", ",", "日本語", "aaa", null);
        for (String d : new String[] {"','", "''", "'aa'", "'日本'"}) {
            for (long n : new long[] {Long.MIN_VALUE + 1, -5, -2, -1, 0, 1, 2, 3, 100, Long.MAX_VALUE}) {
                same(rows, "split_part(s, " + d + ", " + n + ")");
            }
        }
    }

    @Test
    void strposAndContainsLikeDuckDb() throws SQLException {
        List<String> rows = Arrays.asList("", "a", "日本語abc", "abcabc", null, "xab", "cyy", "𝄞abc");
        for (String n : new String[] {"'abc'", "''", "'c'", "'語a'", "'𝄞'", "'abcabcabc'"}) {
            same(rows, "strpos(s, " + n + ")");
            same(rows, "contains(s, " + n + ")");
            same(rows, "starts_with(s, " + n + ")");
            same(rows, "ends_with(s, " + n + ")");
            same(rows, "s LIKE '%' || " + n + " || '%'");
            same(rows, "s NOT LIKE '%' || " + n + " || '%'");
        }
        same(rows, "strpos(s, s)");
        same(rows, "POSITION('b' IN s)", "position('b' IN s)");
    }

    @Test
    void concatLikeDuckDb() throws SQLException {
        List<String> rows = Arrays.asList("a", null, "", "日本");
        same(rows, "concat(s, 1, s)");
        same(rows, "s || 1");
        same(rows, "concat(s, 2.5)");
        same(rows, "concat(s, true)");
        same(rows, "concat_ws(s, 'x', NULL, 'y')");
        same(rows, "concat_ws(',', NULL, s)");
        same(rows, "concat_ws(',', s, s, NULL)");
        same(rows, "s || NULL");
        same(rows, "concat(NULL, s)");
        same(rows, "replace(s, '', 'x')");
        same(rows, "replace(s, 'a', s)");
    }

    @Test
    void containsOverDictionaryColumn() {
        // replace/regexp_replace return argTypes.getFirst(): a Dictionary type for a dictionary-encoded s.
        try (VarCharVector dict = new VarCharVector("d", allocator);
                VarCharVector names = new VarCharVector("name", allocator)) {
            dict.allocateNew();
            dict.setSafe(0, "abc".getBytes(StandardCharsets.UTF_8));
            dict.setSafe(1, "xyz".getBytes(StandardCharsets.UTF_8));
            dict.setValueCount(2);
            names.allocateNew();
            names.setSafe(0, "abc".getBytes(StandardCharsets.UTF_8));
            names.setSafe(1, "xyz".getBytes(StandardCharsets.UTF_8));
            names.setSafe(2, "abc".getBytes(StandardCharsets.UTF_8));
            names.setValueCount(3);
            Dictionary nd = new Dictionary(dict, new DictionaryEncoding(1L, false, new ArrowType.Int(32, true)));
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(nd);
            try (FieldVector enc = (FieldVector) DictionaryEncoder.encode(names, nd);
                    VectorSchemaRoot b = new VectorSchemaRoot(List.of(enc))) {
                b.setRowCount(3);
                for (String[] c : new String[][] {
                    {"replace(name, 'b', 'B')", "[aBc, xyz, aBc]"},
                    {"regexp_replace(name, 'b', 'B')", "[aBc, xyz, aBc]"},
                    {"contains(name, 'b')", "[true, false, true]"},
                    {"strpos(name, 'c')", "[3, 0, 3]"},
                    {"name || 'x'", "[abcx, xyzx, abcx]"},
                    {"concat_ws(',', name, name)", "[abc,abc, xyz,xyz, abc,abc]"},
                    {"split_part(name, 'b', 2)", "[c, , c]"},
                    {"regexp_matches(name, 'b')", "[true, false, true]"}
                }) {
                    CompiledExpression e = quiver.compile(b.getSchema(), provider, Expr.parse(c[0]));
                    assertEquals(
                            c[1],
                            TestColumns.valuesAndClose(e.evaluate(b, Placement.CPU))
                                    .toString(),
                            c[0]);
                }
            }
        }
    }

    @Test
    void regexFromFourThreads() throws Exception {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            rows.add(i % 7 == 0 ? null : "row" + i + (i % 3 == 0 ? "abc" : "x"));
        }
        try (VectorSchemaRoot b = batch(rows)) {
            CompiledExpression m = quiver.compile(b.getSchema(), "regexp_matches(s, 'b.c')");
            CompiledExpression r = quiver.compile(b.getSchema(), "regexp_replace(s, '(\\d+)', '<\\1>', 'g')");
            List<Object> m0 = TestColumns.valuesAndClose(m.evaluate(b, Placement.CPU));
            List<Object> r0 = TestColumns.valuesAndClose(r.evaluate(b, Placement.CPU));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Boolean>> fs = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    fs.add(pool.submit(() -> {
                        for (int k = 0; k < 50; k++) {
                            if (!m0.equals(TestColumns.valuesAndClose(m.evaluate(b, Placement.CPU)))
                                    || !r0.equals(TestColumns.valuesAndClose(r.evaluate(b, Placement.CPU)))) {
                                return false;
                            }
                        }
                        return true;
                    }));
                }
                for (Future<Boolean> f : fs) {
                    assertEquals(true, f.get());
                }
            } finally {
                pool.shutdown();
            }
        }
    }

    @Test
    void moreRegexAndComposingEdgesLikeDuckDb() throws SQLException {
        List<String> rows = Arrays.asList("Éa.b", "éA.B", "a.b", "ab", null, "𝄞x");
        same(rows, "regexp_matches(s, 'é', 'i')");
        same(rows, "regexp_replace(s, 'A', '$', 'gi')");
        same(rows, "regexp_matches(s, '.', 'l')");
        same(rows, "regexp_replace(s, '.', '\\\\', 'gl')");
        same(rows, "regexp_replace(s, '[^x]', '', 'g')");
        same(rows, "split_part(s, '.', -1)");
        same(rows, "instr(s, 'x')");
    }
}
