package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.Placement;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Lists and structs compared as DataFusion compares them, against hand-computed rows: element by
 * element, a prefix first, a NULL element equal to a NULL and below every value (DuckDB puts it
 * above: the one place this differs from {@link ComparisonMatrixTest}'s reference), a NULL list or
 * struct giving NULL (never for DISTINCT FROM); in IN lists, CASE, BETWEEN, over columns and
 * literals, on every placement.
 */
class NestedComparisonTest extends QuiverTestBase {
    private static final DataType.ListType INT_LIST = new DataType.ListType(DataType.INT32, true);
    private static final DataType.Struct PAIR = new DataType.Struct(List.of(
            new DataType.StructField("a", DataType.INT32, true), new DataType.StructField("b", DataType.UTF8, true)));

    private static List<Object> rows(Object... v) {
        return Arrays.asList(v);
    }

    private static List<Object> list(Object... v) {
        return Arrays.asList(v);
    }

    private static Map<String, Object> pair(Integer a, String b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", a);
        m.put("b", b);
        return m;
    }

    // l: [1, 2], [1, NULL], NULL, [], [NULL], [1, 2, 3]; st: {1,'x'}, {1,NULL}, NULL, {NULL,'x'}, {2,''}, {1,'x'}
    private List<Object> eval(String sql, Placement placement) {
        List<FieldVector> columns = new ArrayList<>();
        columns.add(Values.of(
                INT_LIST,
                "l",
                rows(list(1, 2), list(1, null), null, list(), list((Object) null), list(1, 2, 3)),
                allocator));
        columns.add(Values.of(
                PAIR,
                "st",
                rows(pair(1, "x"), pair(1, null), null, pair(null, "x"), pair(2, ""), pair(1, "x")),
                allocator));
        columns.add(Values.of(DataType.INT32, "x", rows(1, 2, null, 0, 1, 3), allocator));
        try (VectorSchemaRoot batch = TestColumns.batch(6, columns.toArray(FieldVector[]::new))) {
            return TestColumns.valuesAndClose(
                    quiver.compile(batch.getSchema(), sql).evaluate(batch, placement, allocator));
        }
    }

    private void same(String sql, List<Object> expected) {
        for (Placement p : new Placement[] {Placement.CPU, Placement.AUTO}) {
            assertEquals(expected, eval(sql, p), sql + " on " + p);
        }
    }

    @Test
    void listsCompareElementByElementWithNullElementsFirst() {
        same("l = [1, 2]", rows(true, false, null, false, false, false));
        same("l < [1, 2]", rows(false, true, null, true, true, false));
        same("l > [1, 2]", rows(false, false, null, false, false, true));
        same("l <= [1, NULL]", rows(false, true, null, true, true, false));
        same("l = [1, NULL]", rows(false, true, null, false, false, false));
        same("l >= [CAST(NULL AS INT)]", rows(true, true, null, false, true, true));
        same("l IS DISTINCT FROM [1, NULL]", rows(true, false, true, true, true, true));
        same("l IS NOT DISTINCT FROM NULL", rows(false, false, true, false, false, false));
        same("[1, 2] < l", rows(false, false, null, false, false, true));
        same("l = l", rows(true, true, null, true, true, true));
        same("[x, 2] = [1, 2]", rows(true, false, false, false, true, false)); // a list row is never NULL: [NULL, 2]
        // Scalars fold at planning, through the same kernel.
        same("[1, NULL] < [1, 2]", rows(true, true, true, true, true, true));
        same("[[1], [2, NULL]] < [[1], [2, 3]]", rows(true, true, true, true, true, true));
        same("[1.5, -0.0] = [1.5, 0.0]", rows(true, true, true, true, true, true));
        same("['b'] > ['ab', 'c']", rows(true, true, true, true, true, true));
    }

    @Test
    void structsCompareFieldByField() {
        same("st = named_struct('a', 1, 'b', 'x')", rows(true, false, null, false, false, true));
        same("st < named_struct('a', 1, 'b', 'x')", rows(false, true, null, true, false, false));
        same("st > named_struct('a', 1, 'b', 'x')", rows(false, false, null, false, true, false));
        same(
                "st IS DISTINCT FROM named_struct('a', 1, 'b', CAST(NULL AS VARCHAR))",
                rows(true, false, true, true, true, true));
        same("struct(1, 2) = struct(1, 2)", rows(true, true, true, true, true, true));
    }

    @Test
    void inCaseAndBetweenTakeListsAndStructs() {
        same("l IN ([1, 2], [CAST(NULL AS INT)])", rows(true, false, null, false, true, false));
        same("l IN ([1, 2], NULL)", rows(true, null, null, null, null, null));
        same("l NOT IN ([1, 2], [1, 2, 3])", rows(false, true, null, true, true, false));
        same(
                "st IN (named_struct('a', 2, 'b', ''), named_struct('a', 1, 'b', 'x'))",
                rows(true, false, null, false, true, true));
        same("struct(1, 2) IN (struct(1, 2))", rows(true, true, true, true, true, true));
        same("[x] IN ([1], [x + 1])", rows(true, false, true, false, true, false)); // [NULL] = [NULL] within lists
        same(
                "CASE l WHEN [1, 2] THEN 'pair' WHEN [CAST(NULL AS INT)] THEN 'null element' ELSE 'other' END",
                rows("pair", "other", "other", "other", "null element", "other"));
        same("l BETWEEN [1] AND [1, 2]", rows(true, true, null, false, false, false));
    }
}
