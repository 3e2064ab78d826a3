package dev.quiver.tests;

import static dev.quiver.tests.TestColumns.and;
import static dev.quiver.tests.TestColumns.lt;
import static dev.quiver.tests.TestColumns.or;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.Placement;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.Selection;
import dev.quiver.types.DataType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.IntFunction;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CompiledExpression#filter} and {@link CompiledProjection#project} against per-row
 * references computed here from the input values: every column of every supported kind
 * (Int32, Float64, Utf8, Boolean, Decimal, Date32, List&lt;Int32&gt;, a dictionary-encoded
 * column), NULLs throughout (with garbage behind the fixed-width ones), keeps its field and
 * exactly the rows where the predicate is TRUE. Errors free everything.
 *
 * <p>Random data is seeded; replay with {@code -Dquiver.seed=<seed>} (printed).
 */
class FilterProjectTest extends QuiverTestBase {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20261202L);
    private static final List<String> WORDS = List.of("a", "b", "", "abc", "é");
    private static final List<String> CATEGORIES = List.of("apple", "Banana", "cherry");
    private static final DictionaryEncoding ENCODING = new DictionaryEncoding(1L, false, new ArrowType.Int(32, true));

    private Random random;
    private VarCharVector categoryValues;
    private DictionaryProvider.MapDictionaryProvider dictionaries;

    @BeforeEach
    void seed() {
        random = new Random(SEED);
        System.out.println("FilterProjectTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        categoryValues = new VarCharVector("cat_values", allocator);
        categoryValues.allocateNew(CATEGORIES.size());
        for (int k = 0; k < CATEGORIES.size(); k++) {
            categoryValues.setSafe(k, CATEGORIES.get(k).getBytes(StandardCharsets.UTF_8));
        }
        categoryValues.setValueCount(CATEGORIES.size());
        dictionaries = new DictionaryProvider.MapDictionaryProvider(new Dictionary(categoryValues, ENCODING));
    }

    @AfterEach
    void closeDictionary() {
        categoryValues.close();
    }

    /** The input values per column (null: NULL); {@code cat} holds dictionary indices. */
    record Data(
            Integer[] i,
            Double[] f,
            String[] s,
            Boolean[] b,
            BigDecimal[] dec,
            Integer[] d,
            List<?>[] l,
            Integer[] cat,
            Integer[] k,
            VectorSchemaRoot batch)
            implements AutoCloseable {
        int rows() {
            return i.length;
        }

        /** Row {@code r} of column {@code c} (batch order) as Java reads it. */
        Object value(int c, int r) {
            return switch (c) {
                case 0 -> i[r];
                case 1 -> f[r];
                case 2 -> s[r];
                case 3 -> b[r];
                case 4 -> dec[r];
                case 5 -> d[r];
                case 6 -> l[r];
                case 7 -> cat[r];
                case 8 -> k[r];
                default -> throw new IndexOutOfBoundsException(c);
            };
        }

        @Override
        public void close() {
            batch.close();
        }
    }

    private <T> T maybeNull(T value) {
        return random.nextInt(7) == 0 ? null : value;
    }

    private Data data(int n) {
        Integer[] i = new Integer[n];
        Double[] f = new Double[n];
        String[] s = new String[n];
        Boolean[] b = new Boolean[n];
        BigDecimal[] dec = new BigDecimal[n];
        Integer[] d = new Integer[n];
        List<?>[] l = new List<?>[n];
        Integer[] cat = new Integer[n];
        Integer[] k = new Integer[n];
        for (int r = 0; r < n; r++) {
            i[r] = maybeNull(random.nextInt(2001) - 1000);
            f[r] = maybeNull(random.nextInt(30) == 0 ? Double.NaN : random.nextDouble());
            s[r] = maybeNull(WORDS.get(random.nextInt(WORDS.size())));
            b[r] = maybeNull(random.nextBoolean());
            dec[r] = maybeNull(BigDecimal.valueOf(random.nextInt(20001) - 10000, 2));
            d[r] = maybeNull(random.nextInt(20000));
            List<Integer> items = new ArrayList<>();
            for (int e = random.nextInt(4); e > 0; e--) {
                items.add(random.nextInt(5) == 0 ? null : random.nextInt(100));
            }
            l[r] = maybeNull(items);
            cat[r] = maybeNull(random.nextInt(CATEGORIES.size()));
            k[r] = maybeNull(random.nextInt(7) - 3);
        }
        FieldVector category = new Field("cat", new FieldType(true, new ArrowType.Int(32, true), ENCODING), null)
                .createVector(allocator);
        try {
            IntVector indices = (IntVector) category;
            indices.allocateNew(n);
            for (int r = 0; r < n; r++) {
                if (cat[r] == null) {
                    indices.set(r, 2); // garbage behind the null
                    indices.setNull(r);
                } else {
                    indices.set(r, cat[r]);
                }
            }
            indices.setValueCount(n);
        } catch (RuntimeException e) {
            category.close();
            throw e;
        }
        return new Data(
                i,
                f,
                s,
                b,
                dec,
                d,
                l,
                cat,
                k,
                TestColumns.batch(
                        n,
                        TestColumns.of(allocator, "i", DataType.INT32, Arrays.asList(i), random::nextInt),
                        TestColumns.of(allocator, "f", DataType.FLOAT64, Arrays.asList(f), random::nextGaussian),
                        TestColumns.of(allocator, "s", DataType.UTF8, Arrays.asList(s), null),
                        TestColumns.of(allocator, "b", DataType.BOOLEAN, Arrays.asList(b), random::nextBoolean),
                        TestColumns.of(
                                allocator,
                                "dec",
                                new DataType.Decimal(10, 2),
                                Arrays.asList(dec),
                                () -> new BigDecimal("12.34")),
                        TestColumns.of(allocator, "d", DataType.DATE32, Arrays.asList(d), random::nextInt),
                        TestColumns.of(
                                allocator, "l", new DataType.ListType(DataType.INT32, true), Arrays.asList(l), null),
                        category,
                        TestColumns.of(allocator, "k", DataType.INT32, Arrays.asList(k), () -> 0)));
    }

    /** Arrow's own reading of a row (no Quiver code involved), with strings as Strings. */
    private static Object arrowValue(FieldVector v, int row) {
        Object o = v.getObject(row);
        return o instanceof Text t ? t.toString() : o;
    }

    private static Boolean gt(Integer l, int r) {
        return l == null ? null : l > r;
    }

    private record Predicate(String sql, IntFunction<Boolean> reference) {}

    private static List<Predicate> predicates(Data x) {
        int y2000 = (int) LocalDate.of(2000, 1, 1).toEpochDay();
        return List.of(
                new Predicate("i > 0 AND f < 0.5", r -> and(gt(x.i()[r], 0), lt(x.f()[r], 0.5))),
                new Predicate("b OR s = 'a'", r -> or(x.b()[r], x.s()[r] == null ? null : x.s()[r].equals("a"))),
                new Predicate("b", r -> x.b()[r]),
                new Predicate(
                        "dec > 0 OR d >= '2000-01-01'",
                        r -> or(
                                x.dec()[r] == null ? null : x.dec()[r].signum() > 0,
                                x.d()[r] == null ? null : x.d()[r] >= y2000)),
                new Predicate(
                        "cat = 'apple' OR upper(cat) = 'BANANA'",
                        r -> x.cat()[r] == null ? null : x.cat()[r] == 0 || x.cat()[r] == 1),
                // A CASE over the dictionary's values: a lookup table, then one with a column THEN.
                new Predicate(
                        "CASE cat WHEN 'apple' THEN TRUE WHEN 'cherry' THEN FALSE END",
                        r -> x.cat()[r] == null
                                ? null
                                : x.cat()[r] == 0 ? Boolean.TRUE : x.cat()[r] == 2 ? Boolean.FALSE : null),
                new Predicate(
                        "CASE cat WHEN 'Banana' THEN b WHEN 'apple' THEN i > 0 END",
                        r -> x.cat()[r] == null
                                ? null
                                : x.cat()[r] == 1 ? x.b()[r] : x.cat()[r] == 0 ? gt(x.i()[r], 0) : null),
                new Predicate(
                        "CASE WHEN i > 0 THEN b ELSE s = '' END",
                        r -> Boolean.TRUE.equals(gt(x.i()[r], 0))
                                ? x.b()[r]
                                : x.s()[r] == null ? null : x.s()[r].isEmpty()),
                new Predicate(
                        "k <> 0 AND i / k > 10",
                        r -> x.k()[r] != null && x.k()[r] == 0
                                ? Boolean.FALSE
                                : and(
                                        x.k()[r] == null ? null : true,
                                        x.i()[r] == null || x.k()[r] == null ? null : x.i()[r] / x.k()[r] > 10)),
                // No row: i is within ±1000; NULL rows are dropped too.
                new Predicate("i > 5000", r -> x.i()[r] == null ? null : false),
                new Predicate("CAST(NULL AS BOOLEAN)", r -> null),
                // Every row: a literal TRUE (a scalar), and an array that is TRUE everywhere.
                new Predicate("TRUE", r -> true),
                new Predicate("i IS NULL OR i IS NOT NULL", r -> true));
    }

    @Test
    void filterKeepsEveryColumnsFieldAndExactlyTheRowsWhereThePredicateIsTrue() {
        for (int n : new int[] {0, 1, 65, 1000}) {
            try (Data x = data(n)) {
                VectorSchemaRoot batch = x.batch();
                for (Predicate p : predicates(x)) {
                    CompiledExpression e = quiver.compile(batch.getSchema(), dictionaries, Expr.parse(p.sql()));
                    List<Integer> keep = new ArrayList<>();
                    for (int r = 0; r < n; r++) {
                        if (Boolean.TRUE.equals(p.reference().apply(r))) {
                            keep.add(r);
                        }
                    }
                    String what = p.sql() + ", " + n + " rows, seed " + SEED;
                    assertEquals(
                            Selection.ofRows(
                                    n, keep.stream().mapToInt(Integer::intValue).toArray()),
                            e.select(batch, Placement.CPU, allocator),
                            what);
                    for (Placement placement : new Placement[] {Placement.CPU, Placement.AUTO}) {
                        try (VectorSchemaRoot out = e.filter(batch, placement, allocator)) {
                            assertEquals(batch.getSchema(), out.getSchema(), what);
                            assertEquals(keep.size(), out.getRowCount(), what);
                            for (int c = 0; c < batch.getFieldVectors().size(); c++) {
                                FieldVector in = batch.getVector(c);
                                FieldVector v = out.getVector(c);
                                assertEquals(in.getField(), v.getField(), what);
                                assertEquals(keep.size(), v.getValueCount(), what);
                                List<Object> expected = new ArrayList<>();
                                List<Object> got = new ArrayList<>();
                                for (int j = 0; j < keep.size(); j++) {
                                    expected.add(x.value(c, keep.get(j)));
                                    got.add(arrowValue(v, j));
                                }
                                assertEquals(expected, got, in.getName() + " of " + what);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void aFilterAloneNeedsABooleanExpression() {
        try (Data x = data(10)) {
            CompiledExpression e = quiver.compile(x.batch().getSchema(), "i + 1");
            IllegalStateException thrown =
                    assertThrows(IllegalStateException.class, () -> e.filter(x.batch(), Placement.CPU, allocator));
            assertTrue(thrown.getMessage().contains("a filter needs a Boolean expression"), thrown.getMessage());
        }
    }

    @Test
    void aProjectionWithoutFilterComputesEveryRowUnderItsAliasOrText() {
        try (Data x = data(1000)) {
            CompiledProjection q = quiver.compileProjection(
                    x.batch().getSchema(),
                    null,
                    List.of("i + 1 AS j", "upper(s) AS u", "f", "l", "CASE WHEN b THEN dec END AS maybe", "i * 2"));
            assertTrue(q.filter().isEmpty());
            assertEquals(
                    List.of("j", "u", "f", "l", "maybe", "(i * 2)"),
                    q.outputSchema().getFields().stream().map(Field::getName).toList());
            List<IntFunction<Object>> references = List.of(
                    r -> x.i()[r] == null ? null : x.i()[r] + 1,
                    r -> x.s()[r] == null ? null : x.s()[r].toUpperCase(Locale.ROOT),
                    r -> x.f()[r],
                    r -> x.l()[r],
                    r -> Boolean.TRUE.equals(x.b()[r]) ? x.dec()[r] : null,
                    r -> x.i()[r] == null ? null : x.i()[r] * 2);
            try (VectorSchemaRoot out = q.project(x.batch(), Placement.CPU, allocator)) {
                assertSameTypes(q, out);
                checkRows(out, references, rowsOf(1000), "projection without filter");
            }
            // The Quiver's placement and allocator.
            try (VectorSchemaRoot out = q.project(x.batch())) {
                checkRows(out, references, rowsOf(1000), "projection without filter, defaults");
            }
        }
    }

    /**
     * The projected batch has the names and types of {@link CompiledProjection#outputSchema()}. (Not
     * the same {@link Field}s: Arrow Java names the child of every list vector it creates
     * {@code $data$}, where the schema says {@code item}.)
     */
    private static void assertSameTypes(CompiledProjection q, VectorSchemaRoot out) {
        assertEquals(
                q.outputSchema().getFields().stream()
                        .map(f -> f.getName() + " " + DataType.fromField(f))
                        .toList(),
                out.getSchema().getFields().stream()
                        .map(f -> f.getName() + " " + DataType.fromField(f))
                        .toList());
    }

    private static List<Integer> rowsOf(int n) {
        List<Integer> all = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            all.add(r);
        }
        return all;
    }

    private static void checkRows(
            VectorSchemaRoot out, List<IntFunction<Object>> references, List<Integer> rows, String what) {
        assertEquals(rows.size(), out.getRowCount(), what);
        for (int c = 0; c < references.size(); c++) {
            FieldVector v = out.getVector(c);
            assertEquals(rows.size(), v.getValueCount(), what);
            List<Object> expected = new ArrayList<>();
            List<Object> got = new ArrayList<>();
            for (int j = 0; j < rows.size(); j++) {
                expected.add(references.get(c).apply(rows.get(j)));
                got.add(arrowValue(v, j));
            }
            assertEquals(expected, got, v.getName() + " of " + what + ", seed " + SEED);
        }
    }

    @Test
    void aProjectionBehindAFilterComputesOnlyTheKeptRows() {
        for (int n : new int[] {0, 1, 1000}) {
            try (Data x = data(n)) {
                // k is zero on some rows: the filter drops them before the division runs.
                CompiledProjection q = quiver.compileProjection(
                        x.batch().getSchema(),
                        "k <> 0 AND f < 0.5",
                        List.of(
                                "i / k AS q",
                                "s",
                                "f + 1 AS f1",
                                "l",
                                "CASE WHEN k > 0 THEN 'pos' ELSE 'neg' END AS sign"));
                assertTrue(q.filter().isPresent());
                assertEquals(
                        List.of("q", "s", "f1", "l", "sign"),
                        q.outputSchema().getFields().stream()
                                .map(Field::getName)
                                .toList());
                List<Integer> kept = new ArrayList<>();
                for (int r = 0; r < n; r++) {
                    if (x.k()[r] != null && x.k()[r] != 0 && Boolean.TRUE.equals(lt(x.f()[r], 0.5))) {
                        kept.add(r);
                    }
                }
                List<IntFunction<Object>> references = List.of(
                        r -> x.i()[r] == null ? null : x.i()[r] / x.k()[r],
                        r -> x.s()[r],
                        r -> x.f()[r] + 1,
                        r -> x.l()[r],
                        r -> x.k()[r] > 0 ? "pos" : "neg");
                for (Placement placement : new Placement[] {Placement.CPU, Placement.AUTO}) {
                    try (VectorSchemaRoot out = q.project(x.batch(), placement, allocator)) {
                        assertSameTypes(q, out);
                        checkRows(
                                out,
                                references,
                                kept,
                                "projection behind k <> 0 AND f < 0.5, " + n + " rows, " + placement);
                    }
                }
            }
        }
    }

    @Test
    void namesMustDifferAndTheFilterMustBeBoolean() {
        try (Data x = data(10)) {
            var schema = x.batch().getSchema();
            long before = allocator.getAllocatedMemory();
            IllegalArgumentException dup = assertThrows(
                    IllegalArgumentException.class,
                    () -> quiver.compileProjection(schema, null, List.of("i AS a", "f AS a")));
            assertEquals("two projected columns are named 'a': give one an alias (AS ...)", dup.getMessage());
            IllegalArgumentException dupColumn = assertThrows(
                    IllegalArgumentException.class,
                    () -> quiver.compileProjection(schema, "b", List.of("i", "f", "i")));
            assertTrue(dupColumn.getMessage().contains("two projected columns are named 'i'"), dupColumn.getMessage());
            assertThrows(
                    IllegalArgumentException.class, () -> quiver.compileProjection(schema, null, List.<String>of()));

            PlanningException notBool = assertThrows(
                    PlanningException.class, () -> quiver.compileProjection(schema, "i + 1", List.of("i")));
            assertTrue(notBool.getMessage().contains("not Boolean"), notBool.getMessage());
            assertThrows(PlanningException.class, () -> quiver.compileProjection(schema, "s", List.of("i")));
            assertThrows(
                    PlanningException.class,
                    () -> quiver.compileProjection(schema, "no_such_column > 0", List.of("i")));
            assertThrows(
                    PlanningException.class,
                    () -> quiver.compileProjection(schema, null, List.of("i", "no_such_column")));
            assertEquals(before, allocator.getAllocatedMemory(), "planning allocated nothing that stayed");
        }
    }

    @Test
    void errorsFreeEverythingAllocatedForTheBatch() {
        try (Data x = data(1000)) {
            assertTrue(Arrays.stream(x.k()).anyMatch(v -> v != null && v == 0), "k has zeros, seed " + SEED);
            var schema = x.batch().getSchema();
            long before = allocator.getAllocatedMemory();
            // The first column is computed, the second fails: the first is freed.
            CompiledProjection failingColumn =
                    quiver.compileProjection(schema, "i IS NOT NULL", List.of("upper(s) AS u", "i / k AS q"));
            KernelArithmeticException e1 = assertThrows(
                    KernelArithmeticException.class, () -> failingColumn.project(x.batch(), Placement.CPU, allocator));
            assertTrue(e1.getMessage().contains("by zero"), e1.getMessage());
            assertEquals(before, allocator.getAllocatedMemory(), "after a failing column");
            // The filter itself fails.
            CompiledProjection failingFilter = quiver.compileProjection(schema, "i / k > 0", List.of("s"));
            assertThrows(
                    KernelArithmeticException.class, () -> failingFilter.project(x.batch(), Placement.CPU, allocator));
            assertEquals(before, allocator.getAllocatedMemory(), "after a failing filter");
            CompiledExpression failingPredicate = quiver.compile(schema, "i / k > 0 OR b");
            assertThrows(
                    KernelArithmeticException.class,
                    () -> failingPredicate.filter(x.batch(), Placement.CPU, allocator));
            assertEquals(before, allocator.getAllocatedMemory(), "after a failing CompiledExpression.filter");
            // A cast that fails in a column behind a filter.
            CompiledProjection failingCast =
                    quiver.compileProjection(schema, "s <> ''", List.of("i AS ok", "CAST(s AS INTEGER) AS bad"));
            assertThrows(QuiverException.class, () -> failingCast.project(x.batch(), Placement.CPU, allocator));
            assertEquals(before, allocator.getAllocatedMemory(), "after a failing cast");
        }
    }
}
