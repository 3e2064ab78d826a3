package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.PlanningException;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.StringRowFn;
import dev.quiver.strings.InvalidUtf8Exception;
import dev.quiver.strings.Utf8View;
import dev.quiver.types.DataType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * String RowFns (per-row bodies over {@link Utf8View}s): the guide's functions compiled from
 * docs/rowfn.md and checked against plain-Java references on generated text (ASCII and
 * multi-byte, empty, nulls with garbage behind them, long values), on every placement; nulls,
 * constants, failures, null results and broken output.
 */
class StringRowFnGuideTest extends QuiverTestBase {
    private static final String[] PIECES = {"a", "b", "z", ".", " ", "é", "€", "日本", "𝄞", "@", "x y"};

    /** The reference for mask_email, on Java strings. */
    static String maskEmail(String s) {
        int at = s.indexOf('@');
        if (at <= 0) {
            return s;
        }
        int first = s.offsetByCodePoints(0, 1);
        int chars = s.codePointCount(first, at);
        return s.substring(0, first) + "*".repeat(chars) + s.substring(at);
    }

    static long wordCount(String s) {
        long n = 0;
        boolean in = false;
        for (int i = 0; i < s.length(); i++) {
            boolean space = s.charAt(i) == ' ';
            if (!space && !in) {
                n++;
            }
            in = !space;
        }
        return n;
    }

    private static List<String> strings(Random r, int rows) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            if (r.nextInt(7) == 0) {
                out.add(null);
                continue;
            }
            StringBuilder sb = new StringBuilder();
            int n = r.nextInt(10) == 0 ? 5_000 : r.nextInt(12);
            for (int k = 0; k < n; k++) {
                sb.append(PIECES[r.nextInt(PIECES.length)]);
            }
            out.add(sb.toString());
        }
        return out;
    }

    /** A batch with one string column; null rows carry garbage bytes behind them. */
    private VectorSchemaRoot batch(List<String> values, boolean large) {
        Schema schema = new Schema(List.of((large ? DataType.LARGE_UTF8 : DataType.UTF8).toField("s", true)));
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FieldVector v = root.getVector(0);
        v.allocateNew();
        for (int i = 0; i < values.size(); i++) {
            String s = values.get(i);
            byte[] b = (s == null ? "garbage\u00ff" : s).getBytes(StandardCharsets.UTF_8);
            if (large) {
                ((LargeVarCharVector) v).setSafe(i, b);
            } else {
                ((VarCharVector) v).setSafe(i, b);
            }
        }
        root.setRowCount(values.size());
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                if (large) {
                    ((LargeVarCharVector) v).setNull(i);
                } else {
                    ((VarCharVector) v).setNull(i);
                }
            }
        }
        return root;
    }

    private List<Placement> placements() {
        List<Placement> p = new ArrayList<>(List.of(Placement.CPU, Placement.AUTO));
        if (!quiver.openClDevices().isEmpty()) {
            p.add(Placement.OPENCL);
        }
        return p;
    }

    @Test
    void theGuidesFunctionsCompileFromTheDocAndMatchTheReference(@TempDir Path work) throws Exception {
        Class<?> guide = RowFnGuideTest.guideClass(work, "StringGuideFunctions");
        StringRowFn mask = (StringRowFn) guide.getMethod("maskEmail").invoke(null);
        StringRowFn words = (StringRowFn) guide.getMethod("wordCount").invoke(null);
        quiver.functions().register(mask);
        quiver.functions().register(words);
        Random r = new Random(42);
        for (int rows : new int[] {0, 1, 63, 64, 65, 2_000}) {
            List<String> values = strings(r, rows);
            for (boolean large : new boolean[] {false, true}) {
                try (VectorSchemaRoot b = batch(values, large)) {
                    Schema schema = b.getSchema();
                    CompiledExpression masked = quiver.compile(schema, "mask_email(s)");
                    CompiledExpression counted = quiver.compile(schema, "word_count(s) + 1");
                    assertTrue(
                            masked.explain().contains("call mask_email (immutable) [per-row RowFn, runs on the CPU]"),
                            masked.explain());
                    for (Placement p : placements()) {
                        try (FieldVector m = masked.evaluate(b, p);
                                FieldVector c = counted.evaluate(b, p)) {
                            assertTrue(m instanceof VarCharVector, m.getField().toString());
                            for (int i = 0; i < rows; i++) {
                                String s = values.get(i);
                                String where = p + " large=" + large + " rows=" + rows + " row " + i;
                                if (s == null) {
                                    assertTrue(m.isNull(i) && c.isNull(i), where);
                                    continue;
                                }
                                assertEquals(
                                        maskEmail(s),
                                        new String(((VarCharVector) m).get(i), StandardCharsets.UTF_8),
                                        where);
                                assertEquals(wordCount(s) + 1, ((BigIntVector) c).get(i), where);
                            }
                        }
                    }
                }
            }
        }
        assertTrue(mask.rowsComputed() > 0 && mask.batches() > 0);
    }

    @Test
    void literalsFoldAndMixedArgumentsCoerce() {
        StringRowFn repeatTo = RowFn.declare("repeat_to")
                .arg("s", RowType.UTF8)
                .arg("n", RowType.INT32)
                .returns(RowType.UTF8)
                .fallible()
                .optionalOutput()
                .perRow((row, out) -> {
                    Utf8View s = row.utf8(0);
                    int n = row.int32(1);
                    if (n < 0) {
                        out.fail("negative count " + n);
                    }
                    if (n == 0) {
                        out.setNull();
                        return;
                    }
                    for (int k = 0; k < n; k++) {
                        out.append(s);
                    }
                });
        quiver.functions().register(repeatTo);
        List<String> values = List.of("ab", "é", "", "x");
        try (VectorSchemaRoot b = batch(values, false)) {
            Schema schema = b.getSchema();
            // An Int8 literal coerces to the declared INT32; all-literal calls fold at planning.
            CompiledExpression folded = quiver.compile(schema, "repeat_to('xy', CAST(2 AS TINYINT))");
            assertTrue(folded.explain().contains("'xyxy'"), folded.explain());
            try (FieldVector v = quiver.compile(schema, "repeat_to(s, 3)").evaluate(b)) {
                for (int i = 0; i < values.size(); i++) {
                    assertEquals(
                            values.get(i).repeat(3), new String(((VarCharVector) v).get(i), StandardCharsets.UTF_8));
                }
            }
            try (FieldVector v = quiver.compile(schema, "repeat_to(s, 0)").evaluate(b)) {
                assertEquals(values.size(), v.getNullCount());
            }
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> quiver.compile(schema, "repeat_to(s, CASE WHEN s = 'é' THEN -1 ELSE 1 END)")
                            .evaluate(b)
                            .close());
            assertTrue(
                    e.getMessage().contains("repeat_to: negative count -1")
                            && e.getMessage().contains("at row 1"),
                    e.getMessage());
            PlanningException bad =
                    assertThrows(PlanningException.class, () -> quiver.compile(schema, "repeat_to(s, 'x')"));
            assertTrue(bad.getMessage().contains("repeat_to"), bad.getMessage());
        }
    }

    @Test
    void brokenOutputAndMisdeclaredBodiesFailLoudly() {
        quiver.functions()
                .register(RowFn.declare("broken")
                        .arg("s", RowType.UTF8)
                        .returns(RowType.UTF8)
                        .perRow((row, out) -> {
                            out.append(row.utf8(0));
                            out.append((byte) 0xC3);
                        }));
        quiver.functions()
                .register(RowFn.declare("no_null")
                        .arg("s", RowType.UTF8)
                        .returns(RowType.UTF8)
                        .perRow((row, out) -> out.setNull()));
        quiver.functions()
                .register(RowFn.declare("throws")
                        .arg("s", RowType.UTF8)
                        .returns(RowType.INT64)
                        .perRow((row, out) -> out.set(row.utf8(0).byteAt(100))));
        try (VectorSchemaRoot b = batch(List.of("ok", "fine"), false)) {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> quiver.compile(b.getSchema(), "broken(s)").evaluate(b).close());
            assertTrue(e.getMessage().contains("broken: the body wrote invalid UTF-8 at row 0"), e.getMessage());
            e = assertThrows(
                    IllegalStateException.class,
                    () -> quiver.compile(b.getSchema(), "no_null(s)")
                            .evaluate(b)
                            .close());
            assertTrue(e.getMessage().contains("optionalOutput"), e.getMessage());
            e = assertThrows(
                    IllegalStateException.class,
                    () -> quiver.compile(b.getSchema(), "throws(s)").evaluate(b).close());
            assertTrue(
                    e.getMessage().contains("throws: the body threw")
                            && e.getMessage().contains("at row 0"),
                    e.getMessage());
        }
        IllegalArgumentException ir = assertThrows(
                IllegalArgumentException.class,
                () -> RowFn.declare("ir")
                        .arg("s", RowType.UTF8)
                        .returns(RowType.INT64)
                        .body(s -> s));
        assertTrue(ir.getMessage().contains("perRow"), ir.getMessage());
    }

    @Test
    void invalidUtf8InAColumnIsReportedWithItsRow() {
        Schema schema = new Schema(List.of(DataType.UTF8.toField("s", true)));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            VarCharVector v = (VarCharVector) root.getVector(0);
            v.allocateNew();
            v.setSafe(0, "fine".getBytes(StandardCharsets.UTF_8));
            v.setSafe(1, "日本".getBytes(StandardCharsets.UTF_8));
            v.setSafe(2, new byte[] {'o', 'k', (byte) 0xE6, (byte) 0x97});
            root.setRowCount(3);
            InvalidUtf8Exception e = assertThrows(
                    InvalidUtf8Exception.class,
                    () -> quiver.compile(schema, "s = 'x'").evaluate(root).close());
            assertEquals(2, e.row());
            assertTrue(e.getMessage().contains("column 's' at row 2"), e.getMessage());
        }
    }
}
