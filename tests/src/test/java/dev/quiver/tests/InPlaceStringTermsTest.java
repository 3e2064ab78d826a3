package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.function.IntFunction;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * String equalities and IN lists that follow a selective term in an AND/OR chain are combined
 * straight into the chain's running result, reading only the rows still undecided (no selection
 * of the batch is gathered for them), and nested chains then see only the rows their enclosing
 * chain left undecided (docs/evaluation.md, "Lazy evaluation"). Their values must be SQL's on
 * every row, whatever the share undecided: checked against a per-row Kleene reference over
 * strings of every length class (empty, up to 8 bytes, up to 16, longer), non-ASCII, NULLs,
 * Utf8 and LargeUtf8, at batch sizes around the 64-row words.
 *
 * <p>Random data is seeded; replay with {@code -Dquiver.seed=<seed>}.
 */
class InPlaceStringTermsTest extends QuiverTestBase {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20261203L);

    private static final String LONG = "a string of more than sixteen bytes";
    private static final String[] WORDS = {
        "",
        "abc",
        "abd",
        "de",
        "x",
        "AIR",
        "AIR REG",
        "REG AIR",
        "Brand#12",
        "ünï",
        "p",
        "qq",
        LONG,
        LONG + "!",
        "exactly 8",
        "sixteen bytes ok",
        "sixteen bytes ok?"
    };

    /** The batch's columns as Java values (null for NULL). */
    record Rows(Integer[] a, String[] s, String[] t, String[] ls, VectorSchemaRoot batch) implements AutoCloseable {
        @Override
        public void close() {
            batch.close();
        }
    }

    private Rows rows(int n, Random random) {
        Schema schema = new Schema(List.of(
                new Field("a", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("t", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("ls", FieldType.nullable(ArrowType.LargeUtf8.INSTANCE), null)));
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        Integer[] a = new Integer[n];
        String[] s = new String[n];
        String[] t = new String[n];
        String[] ls = new String[n];
        IntVector av = (IntVector) root.getVector("a");
        VarCharVector sv = (VarCharVector) root.getVector("s");
        VarCharVector tv = (VarCharVector) root.getVector("t");
        LargeVarCharVector lv = (LargeVarCharVector) root.getVector("ls");
        root.allocateNew();
        for (int i = 0; i < n; i++) {
            a[i] = random.nextInt(20) == 0 ? null : random.nextInt(100);
            s[i] = word(random);
            t[i] = word(random);
            ls[i] = word(random);
            if (a[i] != null) {
                av.setSafe(i, a[i]);
            }
            set(sv, lv, i, s[i], false);
            set(tv, lv, i, t[i], false);
            set(sv, lv, i, ls[i], true);
        }
        root.setRowCount(n);
        return new Rows(a, s, t, ls, root);
    }

    private static String word(Random random) {
        return random.nextInt(12) == 0 ? null : WORDS[random.nextInt(WORDS.length)];
    }

    private static void set(VarCharVector v, LargeVarCharVector large, int i, String value, boolean toLarge) {
        if (value == null) {
            return; // allocateNew leaves the row NULL
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (toLarge) {
            large.setSafe(i, bytes);
        } else {
            v.setSafe(i, bytes);
        }
    }

    record Case(String sql, IntFunction<Boolean> reference) {}

    @Test
    void stringTermsAfterASelectiveTermGiveSqlsValuesAtEveryShareUndecided() {
        Random random = new Random(SEED);
        for (int n : new int[] {1, 63, 64, 65, 1000, 4097}) {
            try (Rows d = rows(n, random)) {
                for (int k : new int[] {1, 5, 19, 50, 100}) { // a < k leaves about k% undecided
                    IntFunction<Boolean> first = i -> d.a()[i] == null ? null : d.a()[i] < k;
                    IntFunction<Boolean> notFirst = i -> not(first.apply(i));
                    for (Case c : cases(d, k, first, notFirst)) {
                        CompiledExpression e = quiver.compile(d.batch().getSchema(), c.sql());
                        List<Object> expected = new ArrayList<>(n);
                        for (int i = 0; i < n; i++) {
                            expected.add(c.reference().apply(i));
                        }
                        for (int pass = 0; pass < 3; pass++) { // adaptive order may change between batches
                            assertEquals(
                                    expected,
                                    TestColumns.valuesAndClose(e.evaluate(d.batch(), Placement.CPU, allocator)),
                                    c.sql() + " over " + n + " rows, pass " + pass + ", seed " + SEED);
                        }
                    }
                }
            }
        }
    }

    private static List<Case> cases(Rows d, int k, IntFunction<Boolean> first, IntFunction<Boolean> notFirst) {
        String a = "a < " + k;
        String notA = "a >= " + k;
        return List.of(
                new Case(a + " AND s = 'abc'", i -> and(first.apply(i), eq(d.s()[i], "abc"))),
                new Case(a + " AND s <> 'abc'", i -> and(first.apply(i), not(eq(d.s()[i], "abc")))),
                new Case(a + " AND s = ''", i -> and(first.apply(i), eq(d.s()[i], ""))),
                new Case(a + " AND s = '" + LONG + "'", i -> and(first.apply(i), eq(d.s()[i], LONG))),
                new Case(notA + " OR s = 'x'", i -> or(notFirst.apply(i), eq(d.s()[i], "x"))),
                new Case(a + " AND s = t", i -> and(first.apply(i), eq(d.s()[i], d.t()[i]))),
                new Case(a + " AND ls = 'AIR REG'", i -> and(first.apply(i), eq(d.ls()[i], "AIR REG"))),
                new Case(
                        a + " AND s IN ('abc', 'de', '', 'ünï')",
                        i -> and(first.apply(i), in(d.s()[i], false, "abc", "de", "", "ünï"))),
                new Case(
                        a + " AND s NOT IN ('abc', 'AIR')",
                        i -> and(first.apply(i), not(in(d.s()[i], false, "abc", "AIR")))),
                new Case(a + " AND s IN ('abc', NULL)", i -> and(first.apply(i), in(d.s()[i], true, "abc"))),
                new Case(
                        a + " AND s IN ('sixteen bytes ok', '" + LONG + "', 'exactly 8')",
                        i -> and(first.apply(i), in(d.s()[i], false, "sixteen bytes ok", LONG, "exactly 8"))),
                new Case(
                        notA + " OR ls IN ('p', 'qq', 'Brand#12')",
                        i -> or(notFirst.apply(i), in(d.ls()[i], false, "p", "qq", "Brand#12"))),
                new Case(
                        a + " AND (s = 'abc' OR t IN ('p', 'qq') OR a > 3)",
                        i -> and(
                                first.apply(i),
                                or(
                                        or(eq(d.s()[i], "abc"), in(d.t()[i], false, "p", "qq")),
                                        d.a()[i] == null ? null : d.a()[i] > 3))),
                new Case(
                        a + " AND (s = '" + LONG + "' OR (t = 'p' AND s IN ('abc', 'de')))",
                        i -> and(
                                first.apply(i),
                                or(eq(d.s()[i], LONG), and(eq(d.t()[i], "p"), in(d.s()[i], false, "abc", "de"))))),
                new Case(
                        notA + " OR (s = 'x' AND t <> 'p')",
                        i -> or(notFirst.apply(i), and(eq(d.s()[i], "x"), not(eq(d.t()[i], "p"))))),
                new Case(a + " AND s LIKE '%b%'", i -> and(first.apply(i), like(d.s()[i], "b", false))),
                new Case(a + " AND s NOT LIKE '%AIR%'", i -> and(first.apply(i), not(like(d.s()[i], "AIR", false)))),
                new Case(notA + " OR ls LIKE '%bytes%'", i -> or(notFirst.apply(i), like(d.ls()[i], "bytes", false))),
                new Case(a + " AND t ILIKE '%air%'", i -> and(first.apply(i), like(d.t()[i], "air", true))),
                new Case(
                        "s LIKE '%e%' AND " + a + " AND t LIKE '%A%'",
                        i -> and(and(like(d.s()[i], "e", false), first.apply(i)), like(d.t()[i], "A", false))),
                new Case(
                        a + " AND (s LIKE '%teen%' OR t NOT LIKE '%R%')",
                        i -> and(first.apply(i), or(like(d.s()[i], "teen", false), not(like(d.t()[i], "R", false))))),
                new Case(
                        a + " AND t IN ('AIR', 'AIR REG') AND s = 'Brand#12'",
                        i -> and(
                                and(first.apply(i), in(d.t()[i], false, "AIR", "AIR REG")), eq(d.s()[i], "Brand#12"))));
    }

    private static Boolean eq(String x, String y) {
        return x == null || y == null ? null : x.equals(y);
    }

    /** SQL's IN: TRUE if found; else NULL if {@code x} is NULL or the list holds a NULL; else FALSE. */
    private static Boolean in(String x, boolean listHasNull, String... list) {
        if (x == null) {
            return null;
        }
        if (Arrays.asList(list).contains(x)) {
            return true;
        }
        return listHasNull ? null : false;
    }

    /** {@code x LIKE '%part%'} (ILIKE: {@code ignoreCase}; the words' letters fold as Java's lower case does). */
    private static Boolean like(String x, String part, boolean ignoreCase) {
        if (x == null) {
            return null;
        }
        return ignoreCase ? x.toLowerCase(Locale.ROOT).contains(part.toLowerCase(Locale.ROOT)) : x.contains(part);
    }

    private static Boolean not(Boolean b) {
        return b == null ? null : !b;
    }

    private static Boolean and(Boolean x, Boolean y) {
        if (Objects.equals(x, false) || Objects.equals(y, false)) {
            return false;
        }
        return x == null || y == null ? null : true;
    }

    private static Boolean or(Boolean x, Boolean y) {
        if (Objects.equals(x, true) || Objects.equals(y, true)) {
            return true;
        }
        return x == null || y == null ? null : false;
    }
}
