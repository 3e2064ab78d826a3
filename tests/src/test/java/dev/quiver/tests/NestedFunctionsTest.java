package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.functions.PlanningException;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.junit.jupiter.api.Test;

/**
 * Lists and structs: make_array against a per-row reference, the zero copy of named_struct,
 * struct and get_field proven by buffer addresses, element access, lengths, containment, the
 * {@code x[i]} / {@code s['a']} syntax and the planning errors. Every test ends with the
 * allocator at zero bytes (QuiverTestBase).
 */
class NestedFunctionsTest extends QuiverTestBase {
    private static final DataType.ListType INT_LIST = new DataType.ListType(DataType.INT32, true);
    private static final DataType.Struct AB = new DataType.Struct(List.of(
            new DataType.StructField("a", DataType.INT32, true),
            new DataType.StructField("b", DataType.UTF8, true),
            new DataType.StructField("flag", DataType.BOOLEAN, true)));

    private List<Object> eval(VectorSchemaRoot b, String sql) {
        CompiledExpression e = quiver.compile(b.getSchema(), sql);
        return TestColumns.valuesAndClose(e.evaluate(b, Placement.CPU, allocator));
    }

    private FieldVector column(String name, DataType type, List<?> values) {
        Object garbage = type.equals(DataType.INT32)
                ? (Object) 99
                : type.equals(DataType.INT64) ? (Object) 99L : type.equals(DataType.FLOAT64) ? (Object) 99.0 : null;
        return TestColumns.of(allocator, name, type, values, garbage == null ? null : () -> garbage);
    }

    /** {@code rows} values: all NULL, none NULL, or every third NULL. */
    private static List<Object> values(int rows, String nulls, IntFunction<Object> value) {
        List<Object> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            boolean isNull = switch (nulls) {
                case "all" -> true;
                case "none" -> false;
                default -> i % 3 == 1;
            };
            out.add(isNull ? null : value.apply(i));
        }
        return out;
    }

    @Test
    void makeArrayMatchesAPerRowReference() {
        record Kind(DataType type, IntFunction<Object> value) {}
        List<Kind> kinds = List.of(
                new Kind(DataType.INT32, i -> i * 7 - 100),
                new Kind(DataType.FLOAT64, i -> i / 4.0 - 3),
                new Kind(DataType.UTF8, i -> i % 5 == 0 ? "" : "s" + i + "é"),
                new Kind(DataType.BOOLEAN, i -> i % 2 == 0),
                new Kind(DataType.INT64, i -> (long) i << 33));
        for (int rows : new int[] {0, 1, 63, 64, 65, 1000}) {
            for (Kind k : kinds) {
                for (String nulls : List.of("all", "none", "mixed")) {
                    List<Object> a = values(rows, nulls, k.value());
                    List<Object> b = values(rows, "mixed", i -> k.value().apply(i + 1));
                    List<Object> c = values(rows, "none", i -> k.value().apply(i * 3));
                    try (VectorSchemaRoot batch = TestColumns.batch(
                            rows, column("a", k.type(), a), column("b", k.type(), b), column("c", k.type(), c))) {
                        List<Object> expected = new ArrayList<>();
                        for (int i = 0; i < rows; i++) {
                            expected.add(Arrays.asList(a.get(i), b.get(i), c.get(i)));
                        }
                        String where = k.type() + " rows " + rows + " nulls " + nulls;
                        assertEquals(expected, eval(batch, "make_array(a, b, c)"), where);
                        List<Object> one = new ArrayList<>();
                        for (int i = 0; i < rows; i++) {
                            one.add(Arrays.asList(a.get(i)));
                        }
                        assertEquals(one, eval(batch, "make_array(a)"), where);
                    }
                }
            }
        }
    }

    @Test
    void makeArrayBroadcastsScalarsAndCoercesToACommonType() {
        try (VectorSchemaRoot b = TestColumns.batch(
                3,
                column("x", DataType.INT32, Arrays.asList(1, null, 3)),
                column("d", DataType.FLOAT64, Arrays.asList(0.5, 1.5, null)))) {
            assertEquals(
                    List.of(Arrays.asList(1, 7, null), Arrays.asList(null, 7, null), Arrays.asList(3, 7, null)),
                    eval(b, "make_array(x, 7, CAST(NULL AS INT))"));
            assertEquals(
                    List.of(Arrays.asList(1.0, 0.5), Arrays.asList(null, 1.5), Arrays.asList(3.0, null)),
                    eval(b, "make_array(x, d)"));
            assertEquals(List.of(List.of(1, 2), List.of(1, 2), List.of(1, 2)), eval(b, "make_array(1, 2)"));
            assertEquals(List.of(List.of(1, 2), List.of(1, 2), List.of(1, 2)), eval(b, "[1, 2]"));
            assertEquals(List.of(List.of(1, 2), List.of(1, 2), List.of(1, 2)), eval(b, "ARRAY[1, 2]"));
            // Lists of lists go through the per-element copy.
            assertEquals(
                    List.of(
                            List.of(Arrays.asList(1, 1), List.of(2)),
                            List.of(Arrays.asList(null, null), List.of(2)),
                            List.of(Arrays.asList(3, 3), List.of(2))),
                    eval(b, "make_array(make_array(x, x), make_array(2))"));
        }
    }

    @Test
    void namedStructWrapsItsArgumentsWithoutCopying() {
        for (boolean argumentsFirst : new boolean[] {true, false}) {
            VectorSchemaRoot b = TestColumns.batch(
                    4,
                    column("x", DataType.INT32, Arrays.asList(1, null, 3, 4)),
                    column("s", DataType.UTF8, Arrays.asList("p", "q", null, "rr")));
            FieldVector out;
            try {
                out = quiver.compile(b.getSchema(), "named_struct('a', x, 'b', s, 'k', 5)")
                        .evaluate(b, Placement.CPU, allocator);
            } catch (RuntimeException e) {
                b.close();
                throw e;
            }
            StructVector sv = (StructVector) out;
            FieldVector x = b.getVector("x");
            FieldVector s = b.getVector("s");
            FieldVector a = (FieldVector) sv.getChild("a");
            FieldVector bs = (FieldVector) sv.getChild("b");
            assertEquals(
                    x.getDataBuffer().memoryAddress(), a.getDataBuffer().memoryAddress(), "child a shares x's values");
            assertEquals(
                    x.getValidityBuffer().memoryAddress(),
                    a.getValidityBuffer().memoryAddress(),
                    "child a shares x's validity");
            assertEquals(
                    s.getOffsetBuffer().memoryAddress(),
                    bs.getOffsetBuffer().memoryAddress(),
                    "child b shares s's offsets");
            assertEquals(
                    s.getDataBuffer().memoryAddress(), bs.getDataBuffer().memoryAddress(), "child b shares s's bytes");
            assertEquals(0, sv.getNullCount());
            assertEquals(
                    List.of(
                            map("a", 1, "b", "p", "k", 5),
                            map("a", null, "b", "q", "k", 5),
                            map("a", 3, "b", null, "k", 5),
                            map("a", 4, "b", "rr", "k", 5)),
                    TestColumns.values(out));
            if (argumentsFirst) {
                b.close();
                // The values are still there after the batch is gone.
                assertEquals(map("a", 4, "b", "rr", "k", 5), Values.get(out, 3).value());
                out.close();
            } else {
                out.close();
                assertEquals(Arrays.asList(1, null, 3, 4), TestColumns.values(x));
                b.close();
            }
            assertEquals(
                    0,
                    allocator.getAllocatedMemory(),
                    "freed exactly once, batch " + (argumentsFirst ? "first" : "last"));
        }
    }

    @Test
    void structNamesItsFieldsC0C1() {
        try (VectorSchemaRoot b = TestColumns.batch(2, column("x", DataType.INT32, Arrays.asList(1, null)))) {
            assertEquals(List.of(map("c0", 1, "c1", "k"), map("c0", null, "c1", "k")), eval(b, "struct(x, 'k')"));
            assertEquals(Arrays.asList(1, null), eval(b, "struct(x, 'k')['c0']"));
            assertEquals(List.of(map("c0", 2), map("c0", 2)), eval(b, "struct(2)"));
        }
    }

    private VectorSchemaRoot structBatch() {
        List<Object> rows = new ArrayList<>();
        rows.add(map("a", 1, "b", "one", "flag", true));
        rows.add(null);
        rows.add(map("a", null, "b", "three", "flag", false));
        rows.add(map("a", 4, "b", null, "flag", null));
        rows.add(null);
        rows.add(map("a", 6, "b", "six", "flag", true));
        return TestColumns.batch(rows.size(), Values.of(AB, "st", rows, allocator));
    }

    @Test
    void getFieldSharesTheChildAndIsNullWhereTheStructIs() {
        try (VectorSchemaRoot b = structBatch()) {
            assertEquals(Arrays.asList(1, null, null, 4, null, 6), eval(b, "get_field(st, 'a')"));
            assertEquals(Arrays.asList("one", null, "three", null, null, "six"), eval(b, "st['b']"));
            assertEquals(Arrays.asList(true, null, false, null, null, true), eval(b, "st['flag']"));
            assertEquals(Arrays.asList(false, null, true, null, null, false), eval(b, "NOT st['flag']"));
            // The batch's Boolean child was not written over by NOT.
            assertEquals(Arrays.asList(true, null, false, null, null, true), eval(b, "st['flag']"));
            assertEquals(Arrays.asList(2, null, null, 5, null, 7), eval(b, "st['a'] + 1"));
            StructVector st = (StructVector) b.getVector("st");
            try (FieldVector out = quiver.compile(b.getSchema(), "st['b']").evaluate(b, Placement.CPU, allocator)) {
                FieldVector child = (FieldVector) st.getChild("b");
                assertEquals(
                        child.getDataBuffer().memoryAddress(),
                        out.getDataBuffer().memoryAddress());
                assertEquals(
                        child.getOffsetBuffer().memoryAddress(),
                        out.getOffsetBuffer().memoryAddress());
            }
            // Without NULL structs, the validity is shared too.
            try (FieldVector out = quiver.compile(b.getSchema(), "named_struct('z', st['a'])['z']")
                    .evaluate(b, Placement.CPU, allocator)) {
                assertEquals(Arrays.asList(1, null, null, 4, null, 6), TestColumns.values(out));
            }
        }
        try (VectorSchemaRoot b = TestColumns.batch(3, column("x", DataType.INT32, Arrays.asList(1, null, 3)))) {
            try (FieldVector out =
                    quiver.compile(b.getSchema(), "named_struct('a', x)['a']").evaluate(b, Placement.CPU, allocator)) {
                assertEquals(
                        b.getVector("x").getDataBuffer().memoryAddress(),
                        out.getDataBuffer().memoryAddress());
                assertEquals(
                        b.getVector("x").getValidityBuffer().memoryAddress(),
                        out.getValidityBuffer().memoryAddress());
                assertEquals(Arrays.asList(1, null, 3), TestColumns.values(out));
            }
        }
    }

    private VectorSchemaRoot listBatch() {
        List<Object> lists = Arrays.asList(List.of(1, 2, 3), null, List.of(), Arrays.asList(null, 5), List.of(7));
        return TestColumns.batch(
                lists.size(),
                Values.of(INT_LIST, "l", lists, allocator),
                column("i", DataType.INT32, Arrays.asList(1, 2, null, -2, 0)));
    }

    @Test
    void arrayElementCountsFromOneAndFromTheEnd() {
        try (VectorSchemaRoot b = listBatch()) {
            assertEquals(Arrays.asList(1, null, null, null, 7), eval(b, "l[1]"));
            assertEquals(Arrays.asList(2, null, null, 5, null), eval(b, "array_element(l, 2)"));
            assertEquals(Arrays.asList(3, null, null, 5, 7), eval(b, "list_extract(l, -1)"));
            assertEquals(Arrays.asList(1, null, null, null, null), eval(b, "l[-3]"));
            assertEquals(Arrays.asList(null, null, null, null, null), eval(b, "l[0]"));
            assertEquals(Arrays.asList(null, null, null, null, null), eval(b, "l[4]"));
            assertEquals(Arrays.asList(null, null, null, null, null), eval(b, "l[-4]"));
            assertEquals(Arrays.asList(1, null, null, null, null), eval(b, "l[i]"));
            assertEquals(Arrays.asList(null, null, null, null, null), eval(b, "l[CAST(NULL AS BIGINT)]"));
            assertEquals(Arrays.asList(20, 30, null, 30, 10), eval(b, "[10, 20, 30][i + 1]"));
            assertEquals(Arrays.asList(3, 3, 3, 3, 3), eval(b, "make_array(1, 2, 3)[-1]"));
        }
    }

    @Test
    void lengthsAndContainment() {
        try (VectorSchemaRoot b = listBatch()) {
            assertEquals(Arrays.asList(3L, null, 0L, 2L, 1L), eval(b, "array_length(l)"));
            assertEquals(Arrays.asList(3L, null, 0L, 2L, 1L), eval(b, "cardinality(l)"));
            assertEquals(Arrays.asList(true, null, false, false, false), eval(b, "array_contains(l, 2)"));
            assertEquals(Arrays.asList(false, null, false, true, false), eval(b, "list_contains(l, 5)"));
            assertEquals(Arrays.asList(null, null, null, null, null), eval(b, "array_has(l, CAST(NULL AS INT))"));
            assertEquals(Arrays.asList(true, null, null, false, false), eval(b, "array_contains(l, i)"));
            assertEquals(Arrays.asList(false, null, false, false, false), eval(b, "array_contains(l, 2.5)"));
            assertEquals(Arrays.asList(true, null, false, false, false), eval(b, "array_contains(l, 2.0)"));
            assertEquals(Arrays.asList(true, true, null, false, false), eval(b, "array_contains([1, 2, NULL], i)"));
            assertEquals(Arrays.asList(2L, 2L, 2L, 2L, 2L), eval(b, "array_length(['a', NULL])"));
            assertEquals(Arrays.asList(true, true, true, true, true), eval(b, "array_contains(['a', 'bc'], 'bc')"));
        }
    }

    @Test
    void planningErrorsNameTheArgument() {
        try (VectorSchemaRoot b = structBatch();
                VectorSchemaRoot l = listBatch()) {
            assertError(l, "named_struct(CAST(i AS VARCHAR), i)", "argument 1 of named_struct must be a literal");
            assertError(
                    l,
                    "named_struct('a', i, 'a', l)",
                    "field name 'a' of named_struct is given twice (arguments 1 and 3)");
            assertError(l, "named_struct('a', i, 'b')", "named_struct takes pairs");
            assertError(l, "named_struct('a', i, 1, l)", "argument 3 of named_struct is a field name");
            assertError(l, "named_struct(CAST(NULL AS VARCHAR), i)", "(a field name) is NULL");
            assertError(b, "get_field(st, 'zz')", "the struct has no field 'zz' (fields: a, b, flag)");
            assertError(b, "st['A']", "no field 'A'");
            assertError(b, "get_field(st, st['b'])", "argument 2 (name) of get_field must be a literal");
            assertError(l, "get_field(l, 'a')", "argument 1 of get_field must be a struct");
            assertError(l, "array_element(l, 'x')", "must be an integer");
            assertError(l, "array_element(i, 1)", "argument 1 of array_element must be a list");
            assertError(l, "array_length(i)", "array_length takes one list");
            assertError(l, "make_array(i, l)", "no common type");
        }
    }

    @Test
    void allScalarCallsFold() {
        try (VectorSchemaRoot b = TestColumns.batch(2, column("x", DataType.INT32, Arrays.asList(1, 2)))) {
            assertEquals(
                    List.of(map("a", 1, "b", List.of(1, 2)), map("a", 1, "b", List.of(1, 2))),
                    eval(b, "named_struct('a', 1, 'b', [1, 2])"));
            assertEquals(Arrays.asList(2, 2), eval(b, "named_struct('a', 1, 'b', [1, 2])['b'][-1]"));
            assertEquals(Arrays.asList(null, null), eval(b, "[1, 2][3]"));
            assertEquals(Arrays.asList(false, false), eval(b, "array_contains([1, NULL], 3)"));
            assertEquals(Arrays.asList(3L, 3L), eval(b, "cardinality([1, NULL, 3])"));
            assertEquals(Arrays.asList(List.of(1, 1), List.of(2, 2)), eval(b, "make_array(x, x)"));
            String plan = quiver.compile(b.getSchema(), "[1, 2][2] + x").explain();
            assertTrue(plan.contains("2"), plan);
        }
    }

    private void assertError(VectorSchemaRoot b, String sql, String fragment) {
        PlanningException e = assertThrows(PlanningException.class, () -> quiver.compile(b.getSchema(), sql), sql);
        assertTrue(e.getMessage().contains(fragment), () -> sql + ": " + e.getMessage());
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
