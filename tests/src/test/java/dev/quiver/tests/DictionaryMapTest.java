package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.errors.InputException;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.Volatility;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.DictionaryMapExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.planning.PhysicalPlan;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.strings.InvalidUtf8Exception;
import dev.quiver.types.DataType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deterministic subtrees over one dictionary-encoded column are computed once per distinct
 * dictionary and gathered by the indices (DictionaryMapExpr). Every result is held to the same
 * expression over the decoded rows as a plain Utf8 column (the row-wise plan), and every error to
 * the same expression planned without the mapping; the allocator ends at zero after each test.
 */
class DictionaryMapTest extends QuiverTestBase {
    private static final long ID = 1L;
    private static final String[] DICT_A = {"AIR", "MAIL", "SHIP", null, "card", "cash", "air rail", "éclair", "TRUCK"};
    private static final String[] DICT_B = {"cash", "card", "SHIP", "REG AIR", null, "AIR", "mail"};
    private static final String[] DICT_C = {"card", "AIR", null, "cash", "FOB", "Ärger", "SHIP"};

    /** Comparisons, IN, LIKE, string functions, CASE, IS NULL, and a fused segment inside a CASE. */
    private static final List<String> MAPPED = List.of(
            "m = 'card'",
            "m <> 'cash'",
            "m IN ('MAIL', 'SHIP')",
            "m NOT IN ('MAIL', 'SHIP', 'card')",
            "m LIKE 'A%'",
            "upper(m) LIKE 'A%'",
            "m ILIKE '%ai%'",
            "m BETWEEN 'B' AND 'N'",
            "NOT (m = 'card') OR m = 'cash'",
            "m IS NULL",
            "starts_with(m, 'ca')",
            "upper(m)",
            "concat(m, '!')",
            "substring(m, 2, 3)",
            "length(m) * 2",
            "CASE WHEN m = 'AIR' THEN 1 ELSE 0 END",
            "CASE m WHEN 'AIR' THEN 'a' WHEN 'MAIL' THEN 'm' END",
            "CASE WHEN m IS NULL THEN 'none' ELSE lower(m) END",
            "CASE WHEN CAST(length(m) AS DOUBLE) / 2 > 1.5 THEN 'long' ELSE 'short' END");

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 32, 64})
    void mappedExpressionsGiveTheRowWiseResultsAsDictionariesAreReplaced(int bits) {
        Random random = new Random(7_000 + bits);
        for (String sql : MAPPED) {
            try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", DICT_A);
                    VarCharVector b = EncodedStrings.dictionary(allocator, "b", DICT_B)) {
                DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(
                        new Dictionary(a, EncodedStrings.encoding(ID, bits)));
                CompiledExpression e = null;
                // Batches 1 and 2 share dictionary A; 3 has B; 4 has B's vector overwritten in place (C).
                String[][] dictionaries = {DICT_A, DICT_A, DICT_B, DICT_C};
                for (int batch = 0; batch < 4; batch++) {
                    if (batch == 2) {
                        provider.put(new Dictionary(b, EncodedStrings.encoding(ID, bits)));
                    } else if (batch == 3) {
                        EncodedStrings.fill(b, DICT_C);
                    }
                    String[] dict = dictionaries[batch];
                    Integer[] rows = EncodedStrings.randomRows(random, 300 + batch * 17, dict.length, 0.12);
                    try (VectorSchemaRoot encoded = TestColumns.batch(
                                    rows.length, EncodedStrings.indices(allocator, "m", ID, bits, rows, 99));
                            VectorSchemaRoot plain = TestColumns.batch(
                                    rows.length, EncodedStrings.decoded(allocator, "m", dict, rows))) {
                        if (e == null) {
                            e = quiver.compile(encoded.getSchema(), provider, sql);
                            assertTrue(e.explain().contains("DictionaryMap["), sql + "\n" + e.explain());
                        }
                        List<Object> expected = TestColumns.valuesAndClose(
                                quiver.compile(plain.getSchema(), sql).evaluate(plain));
                        assertEquals(
                                expected, TestColumns.valuesAndClose(e.evaluate(encoded)), sql + ", batch " + batch);
                    }
                }
                for (DictionaryMapExpr m : maps(e)) {
                    assertEquals(3, m.dictionariesComputed(), sql + ": " + m.describe());
                    assertEquals(4, m.batchesGathered(), sql + ": " + m.describe());
                    assertEquals(0, m.batchesOnRows(), sql + ": " + m.describe());
                }
            }
        }
    }

    @Test
    void aPredicateIsComparedOncePerValueAndExplainShowsIt() {
        Integer[] rows = {4, 0, null, 4, 5, 3, 4, 1, null, 2, 4, 8};
        try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", DICT_A);
                VectorSchemaRoot batch = TestColumns.batch(
                        rows.length, EncodedStrings.indices(allocator, "payment_type", ID, 16, rows, -3))) {
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 16)));
            CompiledExpression e = quiver.compile(batch.getSchema(), provider, "payment_type = 'card'");
            assertTrue(
                    e.explain()
                            .contains(
                                    "DictionaryMap[(payment_type = 'card')] on the values of dictionary 1 (payment_type)"),
                    e.explain());
            // Rows 0, 3, 6 and 10 are 'card'; index 3 is a null entry, and a null index is NULL.
            assertEquals(
                    Arrays.asList(true, false, null, true, false, null, true, false, null, false, true, false),
                    TestColumns.valuesAndClose(e.evaluate(batch)));
            try (VectorSchemaRoot kept = e.filter(batch)) {
                assertEquals(4, kept.getRowCount());
            }
            assertEquals(1, maps(e).getFirst().dictionariesComputed());
            assertEquals(2, maps(e).getFirst().batchesGathered());
        }
    }

    @Test
    void aSubtreeThatReadsAnotherColumnIsNotMappedAndStaysCorrect() {
        Random random = new Random(11);
        Integer[] rows = EncodedStrings.randomRows(random, 200, DICT_A.length, 0.1);
        String[] sv = strings(random, rows.length);
        List<Integer> xv = ints(random, rows.length);
        List<String> sqls = List.of(
                "concat(m, s)",
                "m = s",
                "m = 'card' AND x > 3",
                "CASE WHEN x > 3 THEN m ELSE 'none' END",
                "x > 5 OR m LIKE 'c%'");
        try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", DICT_A);
                VectorSchemaRoot encoded = TestColumns.batch(
                        rows.length,
                        EncodedStrings.indices(allocator, "m", ID, 32, rows, 1 << 20),
                        EncodedStrings.dictionary(allocator, "s", sv),
                        TestColumns.of(allocator, "x", DataType.INT32, xv, () -> 42));
                VectorSchemaRoot plain = TestColumns.batch(
                        rows.length,
                        EncodedStrings.decoded(allocator, "m", DICT_A, rows),
                        EncodedStrings.dictionary(allocator, "s", sv),
                        TestColumns.of(allocator, "x", DataType.INT32, xv, () -> 42))) {
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 32)));
            for (String sql : sqls) {
                CompiledExpression e = quiver.compile(encoded.getSchema(), provider, sql);
                for (DictionaryMapExpr m : maps(e)) {
                    int column = m.decode().indices() instanceof ColumnExpr c ? c.index() : -1;
                    for (PhysicalExpr x : PhysicalPlan.preOrder(m.body())) {
                        if (x instanceof ColumnExpr c) {
                            assertEquals(column, c.index(), sql + ": a map reads another column\n" + e.explain());
                        }
                    }
                }
                List<Object> expected = TestColumns.valuesAndClose(
                        quiver.compile(plain.getSchema(), sql).evaluate(plain));
                assertEquals(expected, TestColumns.valuesAndClose(e.evaluate(encoded)), sql);
            }
            assertTrue(maps(quiver.compile(encoded.getSchema(), provider, "concat(m, s)"))
                    .isEmpty());
            List<DictionaryMapExpr> one = maps(quiver.compile(encoded.getSchema(), provider, "m = 'card' AND x > 3"));
            assertEquals(1, one.size());
            assertTrue(
                    one.getFirst().describe().startsWith("DictionaryMap[(m = 'card')]"),
                    one.getFirst().describe());
        }
    }

    @Test
    void aVolatileFunctionIsNeverMapped() {
        quiver.functions()
                .register(RowFn.declare("noisy")
                        .arg("s", RowType.UTF8)
                        .returns(RowType.UTF8)
                        .volatility(Volatility.VOLATILE)
                        .perRow((row, out) -> out.append(row.utf8(0))));
        Integer[] rows = EncodedStrings.randomRows(new Random(3), 100, DICT_A.length, 0.1);
        try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", DICT_A);
                VectorSchemaRoot encoded =
                        TestColumns.batch(rows.length, EncodedStrings.indices(allocator, "m", ID, 8, rows, 100));
                VectorSchemaRoot plain =
                        TestColumns.batch(rows.length, EncodedStrings.decoded(allocator, "m", DICT_A, rows))) {
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 8)));
            for (String sql :
                    List.of("noisy(m) = 'card'", "upper(noisy(m))", "CASE WHEN m = 'AIR' THEN noisy(m) END")) {
                CompiledExpression e = quiver.compile(encoded.getSchema(), provider, sql);
                for (DictionaryMapExpr m : maps(e)) {
                    assertFalse(m.describe().contains("noisy"), sql + ": " + e.explain());
                }
                assertEquals(
                        TestColumns.valuesAndClose(
                                quiver.compile(plain.getSchema(), sql).evaluate(plain)),
                        TestColumns.valuesAndClose(e.evaluate(encoded)),
                        sql);
            }
            assertTrue(maps(quiver.compile(encoded.getSchema(), provider, "noisy(m) = 'card'"))
                    .isEmpty());
        }
    }

    @Test
    void aValueNoRowReferencesNeverRaisesAndAReferencedOneRaisesAsWithoutMapping() {
        String[] dict = {"12", "x", "7", null, "40"};
        Integer[] unused = {0, 2, null, 3, 4, 0, 2, 2, 4, 0};
        Integer[] used = {0, 2, null, 3, 4, 1, 2, 2, 4, 0};
        String sql = "CAST(m AS INT) + 1";
        try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", dict)) {
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 32)));
            CompiledExpression e = null;
            for (int round = 0; round < 2; round++) {
                try (VectorSchemaRoot encoded = TestColumns.batch(
                                unused.length, EncodedStrings.indices(allocator, "m", ID, 32, unused, 77));
                        VectorSchemaRoot plain = TestColumns.batch(
                                unused.length, EncodedStrings.decoded(allocator, "m", dict, unused))) {
                    if (e == null) {
                        e = quiver.compile(encoded.getSchema(), provider, sql);
                    }
                    assertEquals(
                            Arrays.asList(13, 8, null, null, 41, 13, 8, 8, 41, 13),
                            TestColumns.valuesAndClose(
                                    quiver.compile(plain.getSchema(), sql).evaluate(plain)));
                    assertEquals(
                            Arrays.asList(13, 8, null, null, 41, 13, 8, 8, 41, 13),
                            TestColumns.valuesAndClose(e.evaluate(encoded)));
                }
            }
            DictionaryMapExpr m = maps(e).getFirst();
            assertEquals(1, m.dictionariesComputed(), "the failure is remembered for this dictionary");
            assertEquals(2, m.batchesOnRows());
            try (VectorSchemaRoot encoded =
                    TestColumns.batch(used.length, EncodedStrings.indices(allocator, "m", ID, 32, used, 77))) {
                CompiledExpression mapped = e;
                RuntimeException withMap = assertThrows(
                        RuntimeException.class, () -> mapped.evaluate(encoded).close());
                CompiledExpression plan = unmapped(encoded.getSchema(), provider, sql);
                assertTrue(maps(plan).isEmpty());
                RuntimeException without = assertThrows(
                        RuntimeException.class, () -> plan.evaluate(encoded).close());
                assertEquals(without.getClass(), withMap.getClass());
                assertEquals(without.getMessage(), withMap.getMessage());
                assertTrue(withMap.getMessage().contains("row 5"), withMap.getMessage());
            }
        }
    }

    @Test
    void invalidUtf8InADictionaryValueIsAnErrorOnlyWhereARowReadsIt() {
        try (VarCharVector a = new VarCharVector("a", allocator)) {
            a.allocateNew(4);
            a.setSafe(0, "ok".getBytes(StandardCharsets.UTF_8));
            a.setSafe(1, new byte[] {'b', (byte) 0xF0});
            a.setSafe(2, "fine".getBytes(StandardCharsets.UTF_8));
            a.setNull(3);
            a.setValueCount(4);
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 8)));
            Integer[] unused = {0, 2, 3, null, 0, 2, 0, 2};
            Integer[] used = {0, 2, 3, null, 1, 2, 0, 2};
            try (VectorSchemaRoot encoded =
                    TestColumns.batch(unused.length, EncodedStrings.indices(allocator, "m", ID, 8, unused, 5))) {
                CompiledExpression e = quiver.compile(encoded.getSchema(), provider, "upper(m)");
                assertEquals(
                        Arrays.asList("OK", "FINE", null, null, "OK", "FINE", "OK", "FINE"),
                        TestColumns.valuesAndClose(e.evaluate(encoded)));
            }
            try (VectorSchemaRoot encoded =
                    TestColumns.batch(used.length, EncodedStrings.indices(allocator, "m", ID, 8, used, 5))) {
                CompiledExpression e = quiver.compile(encoded.getSchema(), provider, "upper(m)");
                InvalidUtf8Exception withMap = assertThrows(
                        InvalidUtf8Exception.class, () -> e.evaluate(encoded).close());
                CompiledExpression plan = unmapped(encoded.getSchema(), provider, "upper(m)");
                InvalidUtf8Exception without = assertThrows(
                        InvalidUtf8Exception.class, () -> plan.evaluate(encoded).close());
                assertEquals(without.getMessage(), withMap.getMessage());
            }
        }
    }

    @Test
    void anIndexOutsideTheDictionaryIsTheValidationError() {
        Integer[] rows = {0, 1, 9, null, 2, 0, 1, 2, 0, 1, 2, 0};
        try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", DICT_A);
                VectorSchemaRoot encoded =
                        TestColumns.batch(rows.length, EncodedStrings.indices(allocator, "m", ID, 16, rows, 1000))) {
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 16)));
            CompiledExpression e = quiver.compile(encoded.getSchema(), provider, "m = 'card'");
            InputException withMap =
                    assertThrows(InputException.class, () -> e.evaluate(encoded).close());
            CompiledExpression plan = unmapped(encoded.getSchema(), provider, "m = 'card'");
            InputException without = assertThrows(
                    InputException.class, () -> plan.evaluate(encoded).close());
            assertEquals(without.getMessage(), withMap.getMessage());
            assertTrue(
                    withMap.getMessage().contains("dictionary index 9 at row 2 is outside its dictionary of 9 values"),
                    withMap.getMessage());
        }
    }

    @Test
    void aDictionaryAsLargeAsTheBatchRunsOnTheRows() {
        Integer[] rows = {4, null, 0, 8, 4};
        try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", DICT_A);
                VectorSchemaRoot encoded =
                        TestColumns.batch(rows.length, EncodedStrings.indices(allocator, "m", ID, 32, rows, 12))) {
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 32)));
            CompiledExpression e = quiver.compile(encoded.getSchema(), provider, "m IN ('card', 'TRUCK')");
            assertEquals(Arrays.asList(true, null, false, true, true), TestColumns.valuesAndClose(e.evaluate(encoded)));
            DictionaryMapExpr m = maps(e).getFirst();
            assertEquals(1, m.batchesOnRows());
            assertEquals(0, m.dictionariesComputed());
        }
    }

    @Test
    void concurrentBatchesShareTheCacheAndAgree() throws Exception {
        Integer[] rows = EncodedStrings.randomRows(new Random(5), 4_000, DICT_A.length, 0.05);
        try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", DICT_A);
                VectorSchemaRoot encoded =
                        TestColumns.batch(rows.length, EncodedStrings.indices(allocator, "m", ID, 32, rows, -7));
                VectorSchemaRoot plain =
                        TestColumns.batch(rows.length, EncodedStrings.decoded(allocator, "m", DICT_A, rows))) {
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 32)));
            String sql = "CASE WHEN m IN ('AIR', 'MAIL') THEN upper(m) ELSE m END";
            CompiledExpression e = quiver.compile(encoded.getSchema(), provider, sql);
            List<Object> expected = TestColumns.valuesAndClose(
                    quiver.compile(plain.getSchema(), sql).evaluate(plain));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<List<Object>>> runs = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    runs.add(pool.submit(() -> TestColumns.valuesAndClose(e.evaluate(encoded))));
                }
                for (Future<List<Object>> f : runs) {
                    assertEquals(expected, f.get());
                }
            } finally {
                pool.shutdown();
            }
            DictionaryMapExpr m = maps(e).getFirst();
            assertEquals(40, m.batchesGathered());
            assertTrue(m.dictionariesComputed() >= 1 && m.dictionariesComputed() <= 4, m.describe());
        }
    }

    @Test
    void turnedOffThePlanDecodesAndGivesTheSameResults() {
        Integer[] rows = EncodedStrings.randomRows(new Random(9), 500, DICT_A.length, 0.1);
        try (VarCharVector a = EncodedStrings.dictionary(allocator, "a", DICT_A);
                VectorSchemaRoot encoded =
                        TestColumns.batch(rows.length, EncodedStrings.indices(allocator, "m", ID, 8, rows, 127))) {
            var provider =
                    new DictionaryProvider.MapDictionaryProvider(new Dictionary(a, EncodedStrings.encoding(ID, 8)));
            for (String sql : MAPPED) {
                CompiledExpression off = unmapped(encoded.getSchema(), provider, sql);
                assertFalse(off.explain().contains("DictionaryMap["), off.explain());
                assertEquals(
                        TestColumns.valuesAndClose(off.evaluate(encoded)),
                        TestColumns.valuesAndClose(quiver.compile(encoded.getSchema(), provider, sql)
                                .evaluate(encoded)),
                        sql);
            }
        }
    }

    // ------------------------------------------------------------------------------------------

    private static List<DictionaryMapExpr> maps(CompiledExpression e) {
        List<DictionaryMapExpr> out = new ArrayList<>();
        for (PhysicalExpr x : PhysicalPlan.preOrder(e.plan().root())) {
            if (x instanceof DictionaryMapExpr m) {
                out.add(m);
            }
        }
        return out;
    }

    /** {@code sql} planned with the mapping off (the plan as it was before it existed). */
    private CompiledExpression unmapped(Schema schema, DictionaryProvider provider, String sql) {
        String before = System.getProperty(ExecutionConfig.DICTIONARY_MAPPING_PROPERTY);
        System.setProperty(ExecutionConfig.DICTIONARY_MAPPING_PROPERTY, "off");
        try {
            return quiver.compile(schema, provider, sql);
        } finally {
            if (before == null) {
                System.clearProperty(ExecutionConfig.DICTIONARY_MAPPING_PROPERTY);
            } else {
                System.setProperty(ExecutionConfig.DICTIONARY_MAPPING_PROPERTY, before);
            }
        }
    }

    private static String[] strings(Random random, int n) {
        String[] values = new String[n];
        String[] pool = {"card", "x", "", "SHIP", null, "é"};
        for (int i = 0; i < n; i++) {
            values[i] = pool[random.nextInt(pool.length)];
        }
        return values;
    }

    private static List<Integer> ints(Random random, int n) {
        List<Integer> values = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            values.add(random.nextInt(10) == 0 ? null : random.nextInt(10));
        }
        return values;
    }
}
