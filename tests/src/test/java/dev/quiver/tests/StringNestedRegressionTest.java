package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.strings.InvalidUtf8Exception;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.junit.jupiter.api.Test;

/**
 * Regression tests from the review of the string, nested-value and string-RowFn work: each says
 * what was wrong (dictionary and nested strings that escaped the UTF-8 check, an index overflow,
 * the ASCII case map over bytes before the first offset, a zero-argument string RowFn, the
 * wording of the UTF-8 error), plus probes of ownership and leaks that passed from the start.
 */
class StringNestedRegressionTest extends QuiverTestBase {

    private List<Object> eval(VectorSchemaRoot b, String sql) {
        CompiledExpression e = quiver.compile(b.getSchema(), sql);
        return TestColumns.valuesAndClose(e.evaluate(b, Placement.CPU, allocator));
    }

    private VarCharVector strings(String name, byte[]... values) {
        VarCharVector v = new VarCharVector(name, allocator);
        v.allocateNew();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values[i]);
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------------------------------
    // Regression, was: ArrayElement.position(): for i == Long.MIN_VALUE, -i overflows to Long.MIN_VALUE, so
    // "-i <= length" holds and the position is end + (int) Long.MIN_VALUE == end: the first element
    // of the NEXT list (wrong answer) or, on the last row, past the child (IndexOutOfBounds).
    @Test
    void arrayElementWithLongMinIndexReadsTheNextList() {
        DataType.ListType ints = new DataType.ListType(DataType.INT32, true);
        List<Object> lists = Arrays.asList(List.of(1, 2, 3), List.of(4, 5));
        try (VectorSchemaRoot b = TestColumns.batch(
                2,
                Values.of(ints, "l", lists, allocator),
                TestColumns.of(allocator, "i", DataType.INT64, Arrays.asList(Long.MIN_VALUE, 1L), null))) {
            assertEquals(Arrays.asList(null, 4), eval(b, "l[i]"), "array_element(l, -2^63) must be NULL");
        }
    }

    @Test
    void arrayElementWithLongMinIndexOnTheLastRowFails() {
        DataType.ListType ints = new DataType.ListType(DataType.INT32, true);
        List<Object> lists = Arrays.asList(List.of(1, 2, 3), List.of(4, 5));
        try (VectorSchemaRoot b = TestColumns.batch(
                2,
                Values.of(ints, "l", lists, allocator),
                TestColumns.of(allocator, "i", DataType.INT64, Arrays.asList(1L, Long.MIN_VALUE), null))) {
            assertEquals(Arrays.asList(1, null), eval(b, "array_element(l, i)"));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Regression, was: EvalContext checks only plain Utf8/LargeUtf8 batch columns. A dictionary-encoded string
    // column is decoded by DictionaryDecodeExpr into a fresh VarCharVector that is never checked,
    // so the string kernels run on invalid UTF-8 (documented contract: "Quiver checks every string
    // column an expression reads"). reverse() then reads past the row / writes before the row.
    @Test
    void dictionaryEncodedStringsAreNotCheckedForUtf8() {
        try (VarCharVector dict = strings("d", new byte[] {'a', (byte) 0xF0}, utf8("bcd"));
                VarCharVector plain = strings("name", new byte[] {'a', (byte) 0xF0}, utf8("bcd"))) {
            Dictionary d = new Dictionary(dict, new DictionaryEncoding(1L, false, new ArrowType.Int(32, true)));
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(d);
            try (FieldVector enc = (FieldVector) DictionaryEncoder.encode(plain, d);
                    VectorSchemaRoot batch = new VectorSchemaRoot(List.of(enc))) {
                batch.setRowCount(2);
                List<String> outcomes = new ArrayList<>();
                for (String sql : List.of("length(name)", "upper(name)", "reverse(name)")) {
                    CompiledExpression e = quiver.compile(batch.getSchema(), provider, Expr.parse(sql));
                    try (FieldVector out = e.evaluate(batch, Placement.CPU)) {
                        outcomes.add(sql + " -> no error, " + TestColumns.values(out));
                    } catch (InvalidUtf8Exception ok) {
                        // the documented behaviour
                    } catch (RuntimeException other) {
                        outcomes.add(sql + " -> " + other);
                    }
                }
                assertEquals(List.of(), outcomes, "expected InvalidUtf8Exception for each");
            }
        }
    }

    // Regression, was: same hole for strings reached through nested values: get_field / array_element results
    // are never UTF-8 checked, so length() silently counts garbage and reverse() misbehaves.
    @Test
    void stringsInsideStructsAreNotCheckedForUtf8() {
        {
            DataType.Struct st = new DataType.Struct(List.of(new DataType.StructField("b", DataType.UTF8, true)));
            List<Object> rows = new ArrayList<>();
            rows.add(map("b", "placeholder"));
            rows.add(map("b", "bcd"));
            try (VectorSchemaRoot b = TestColumns.batch(2, Values.of(st, "st", rows, allocator))) {
                // Overwrite the child with invalid UTF-8 bytes (as a reader of a malformed file would give).
                StructVector sv = (StructVector) b.getVector("st");
                VarCharVector child = (VarCharVector) sv.getChild("b");
                child.setSafe(0, new byte[] {'a', (byte) 0xF0});
                child.setSafe(1, utf8("bcd"));
                child.setValueCount(2);
                List<String> outcomes = new ArrayList<>();
                for (String sql :
                        List.of("length(st['b'])", "upper(st['b'])", "reverse(st['b'])", "length([st['b']][1])")) {
                    try {
                        outcomes.add(sql + " -> no error, " + eval(b, sql));
                    } catch (InvalidUtf8Exception ok) {
                        // the documented behaviour
                    } catch (RuntimeException other) {
                        outcomes.add(sql + " -> " + other);
                    }
                }
                assertEquals(List.of(), outcomes, "expected InvalidUtf8Exception for each");
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Regression, was: StringShapeKernels.caseMap ASCII fast path maps the data buffer from byte 0 in 8-byte
    // SWAR words, but isAllAscii() only checked [offset[0], offset[rows]). When offset[0] > 0
    // (legal Arrow: a slice imported from another implementation) and the skipped prefix holds
    // bytes >= 0x80, the SWAR additions carry across bytes into the real data: upper('`') = '@'.
    @Test
    void upperAsciiFastPathCarriesFromBytesBeforeTheFirstOffset() {
        byte[] data = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, '`', 'z', 'a', 'b', 'c'};
        int[] offsets = {3, 4, 5, 8};
        VarCharVector v = new VarCharVector("s", allocator);
        try (ArrowBuf validity = allocator.buffer(8);
                ArrowBuf off = allocator.buffer(16);
                ArrowBuf bytes = allocator.buffer(8)) {
            validity.setZero(0, 8);
            validity.setByte(0, 0b111);
            for (int i = 0; i < offsets.length; i++) {
                off.setInt(i * 4L, offsets[i]);
            }
            bytes.setBytes(0, data);
            v.loadFieldBuffers(new ArrowFieldNode(3, 0), List.of(validity, off, bytes));
        }
        try (VectorSchemaRoot b = TestColumns.batch(3, v)) {
            assertEquals(Arrays.asList("`", "z", "abc"), TestColumns.values(v), "Arrow reads the vector as intended");
            assertEquals(Arrays.asList("`", "Z", "ABC"), eval(b, "upper(s)"));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Regression, was: StringRowFn.invoke treats a call with no arguments as "all scalar" (allMatch on an empty
    // list is true) and returns ONE row; ScalarFunctionExpr only turns a one-row result into a
    // scalar when there are arguments, so a zero-argument volatile string RowFn fails on every
    // batch of != 1 rows ("returned 1 rows for a batch of 3 rows"). RowFn returns a Scalar here.
    @Test
    void zeroArgumentVolatileStringRowFnFailsOnMultiRowBatches() {
        quiver.functions()
                .register(RowFn.declare("tag")
                        .returns(RowType.UTF8)
                        .volatility(Volatility.VOLATILE)
                        .perRow((row, out) -> out.append("t")));
        try (VectorSchemaRoot b =
                TestColumns.batch(3, TestColumns.of(allocator, "x", DataType.INT64, Arrays.asList(1L, 2L, 3L), null))) {
            assertEquals(Arrays.asList("t", "t", "t"), eval(b, "tag()"));
        }
    }

    // ------------------------------------------------------------------------------------------
    // ------------------------------------------------------------------------------------------
    // Memory: results of get_field / named_struct outlive the batch AND its (child) allocator.
    @Test
    void sharedResultsOutliveTheBatchAllocator() {
        try (BufferAllocator root = new RootAllocator();
                Quiver q = Quiver.builder().allocator(root).build()) {
            BufferAllocator batchAlloc = root.newChildAllocator("batch", 0, Long.MAX_VALUE);
            DataType.Struct st = new DataType.Struct(List.of(
                    new DataType.StructField("a", DataType.INT32, true),
                    new DataType.StructField("b", DataType.UTF8, true)));
            List<Object> rows = new ArrayList<>();
            rows.add(map("a", 1, "b", "x"));
            rows.add(null);
            rows.add(map("a", null, "b", null));
            VectorSchemaRoot b = TestColumns.batch(
                    3,
                    Values.of(st, "st", rows, batchAlloc),
                    TestColumns.of(batchAlloc, "x", DataType.INT64, Arrays.asList(1L, null, 3L), null));
            List<FieldVector> outs = new ArrayList<>();
            for (String sql : List.of("st['a']", "st['b']", "named_struct('k', x, 'j', st)", "struct(x)")) {
                outs.add(q.compile(b.getSchema(), sql).evaluate(b, Placement.CPU, root));
            }
            b.close();
            batchAlloc.close(); // must not report a leak: the results hold their own references
            assertEquals(Arrays.asList(1, null, null), TestColumns.values(outs.get(0)));
            assertEquals(Arrays.asList("x", null, null), TestColumns.values(outs.get(1)));
            outs.forEach(FieldVector::close);
            assertEquals(0, root.getAllocatedMemory());
        }
    }

    // ------------------------------------------------------------------------------------------
    // Parser probes: chained subscripts, and slices on a bare column.
    @Test
    void chainedSubscriptsParse() {
        DataType.ListType ints = new DataType.ListType(DataType.INT32, true);
        DataType.ListType nested = new DataType.ListType(ints, true);
        List<Object> lists = Arrays.asList(List.of(List.of(1, 2), List.of(3)));
        try (VectorSchemaRoot b = TestColumns.batch(1, Values.of(nested, "l", lists, allocator))) {
            assertEquals(List.of(2), eval(b, "l[1][2]"));
        }
    }

    @Test
    void sliceOnABareColumnIsRejectedAsASlice() {
        DataType.ListType ints = new DataType.ListType(DataType.INT32, true);
        try (VectorSchemaRoot b = TestColumns.batch(1, Values.of(ints, "l", List.of(List.of(1, 2)), allocator))) {
            PlanningException e = assertThrows(PlanningException.class, () -> quiver.compile(b.getSchema(), "l[1:2]"));
            assertTrue(e.getMessage().contains("slice"), e.getMessage());
        }
    }

    // ------------------------------------------------------------------------------------------
    // StringRowFn: a body that throws mid-batch (string and numeric results) leaks nothing
    // (QuiverTestBase asserts the allocator is back at zero).
    @Test
    void throwingStringRowFnBodiesLeakNothing() {
        quiver.functions()
                .register(RowFn.declare("boom_s")
                        .variadic("s", RowType.UTF8, 1)
                        .returns(RowType.UTF8)
                        .perRow((row, out) -> {
                            out.append(row.utf8(0));
                            if (row.rowIndex() == 71) {
                                throw new IllegalArgumentException("boom");
                            }
                        }));
        quiver.functions()
                .register(RowFn.declare("boom_n")
                        .arg("s", RowType.UTF8)
                        .returns(RowType.INT64)
                        .perRow((row, out) -> {
                            if (row.rowIndex() == 71) {
                                throw new IllegalArgumentException("boom");
                            }
                            out.set(row.utf8(0).length());
                        }));
        List<Object> vals = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            vals.add(i % 5 == 0 ? null : "v" + i + "é");
        }
        try (VectorSchemaRoot b = TestColumns.batch(100, TestColumns.of(allocator, "s", DataType.UTF8, vals, null))) {
            for (String sql : List.of("boom_s(s, 'k', s)", "boom_n(s)", "boom_s('k', s)")) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> eval(b, sql), sql);
                assertTrue(e.getMessage().contains("at row 71"), e.getMessage());
            }
        }
    }

    // Regression (message), was: InvalidUtf8Exception blames the LEAD byte of a sequence whose continuation
    // byte is wrong: for 'a' C3 41 it says "byte 1 ... (0xC3) does not continue a valid sequence",
    // but 0xC3 is a valid lead; the offending byte is 0x41 at byte 2.
    @Test
    void invalidUtf8MessageNamesTheOffendingByte() {
        try (VarCharVector s = strings("s", new byte[] {'a', (byte) 0xC3, 'A'});
                VectorSchemaRoot b = new VectorSchemaRoot(List.of(s))) {
            b.setRowCount(1);
            InvalidUtf8Exception e = assertThrows(InvalidUtf8Exception.class, () -> eval(b, "length(s)"));
            assertTrue(
                    e.getMessage()
                            .contains("the sequence that starts at byte 1 of the value (0xC3) is not valid UTF-8"),
                    e.getMessage());
        }
    }

    // make_array over structs with NULL rows, decimals; array_contains across string widths.
    @Test
    void makeArrayOfStructsAndMixedContains() {
        DataType.Struct st = new DataType.Struct(List.of(
                new DataType.StructField("a", DataType.INT32, true),
                new DataType.StructField("b", DataType.UTF8, true)));
        List<Object> rows = new ArrayList<>();
        rows.add(map("a", 1, "b", "x"));
        rows.add(null);
        rows.add(map("a", null, "b", "zé"));
        try (VectorSchemaRoot b = TestColumns.batch(
                3,
                Values.of(st, "st", rows, allocator),
                TestColumns.of(allocator, "w", DataType.LARGE_UTF8, Arrays.asList("x", null, "zé"), null))) {
            List<Object> expected = new ArrayList<>();
            for (Object r : rows) {
                expected.add(Arrays.asList(r, r));
            }
            assertEquals(expected, eval(b, "make_array(st, st)"));
            assertEquals(Arrays.asList(true, null, true), eval(b, "array_contains(make_array(st['b'], 'q'), w)"));
            assertEquals(Arrays.asList(true, null, true), eval(b, "array_contains(make_array(w, 'q'), st['b'])"));
        }
    }

    // named_struct with an untyped NULL value, then get_field through a struct with NULL rows.
    @Test
    void namedStructWithNullValueAndNestedMasking() {
        DataType.Struct inner = new DataType.Struct(List.of(new DataType.StructField("x", DataType.INT32, true)));
        DataType.Struct outer = new DataType.Struct(List.of(new DataType.StructField("in", inner, true)));
        List<Object> rows = new ArrayList<>();
        rows.add(map("in", map("x", 1)));
        rows.add(null);
        rows.add(map("in", null));
        try (VectorSchemaRoot b = TestColumns.batch(
                3,
                Values.of(outer, "o", rows, allocator),
                TestColumns.of(allocator, "x", DataType.INT64, Arrays.asList(1L, null, 3L), null))) {
            assertEquals(
                    Arrays.asList(map("a", null, "b", 1L), map("a", null, "b", null), map("a", null, "b", 3L)),
                    eval(b, "named_struct('a', CAST(NULL AS INT), 'b', x)"));
            assertEquals(Arrays.asList(null, null, null), eval(b, "named_struct('a', CAST(NULL AS INT), 'b', x)['a']"));
            assertEquals(Arrays.asList(1, null, null), eval(b, "o['in']['x']"));
            assertEquals(Arrays.asList(map("x", 1), null, null), eval(b, "o['in']"));
        }
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
