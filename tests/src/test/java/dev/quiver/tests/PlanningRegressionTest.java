package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Cases an independent review of the planner found wrong; each failed before its fix. */
class PlanningRegressionTest extends QuiverTestBase {

    private VectorSchemaRoot yg(double[] y, float[] g) {
        Schema schema = new Schema(List.of(
                DataType.FLOAT64.toField("y", true),
                DataType.FLOAT32.toField("g", true),
                DataType.INT64.toField("l", true)));
        VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
        Float8Vector vy = (Float8Vector) b.getVector("y");
        Float4Vector vg = (Float4Vector) b.getVector("g");
        BigIntVector vl = (BigIntVector) b.getVector("l");
        vy.allocateNew(y.length);
        vg.allocateNew(y.length);
        vl.allocateNew(y.length);
        for (int i = 0; i < y.length; i++) {
            vy.set(i, y[i]);
            vg.set(i, g[i]);
            vl.set(i, 16_777_217L);
        }
        b.setRowCount(y.length);
        return b;
    }

    private static List<Object> values(FieldVector v) {
        try (v) {
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < v.getValueCount(); i++) {
                out.add(Values.get(v, i).value());
            }
            return out;
        }
    }

    @Test
    void hypotOfADoubleAndARealSquaresInDouble() {
        try (VectorSchemaRoot b = yg(new double[] {1.0, 2.0}, new float[] {3e19f, 1e20f})) {
            CompiledExpression e = quiver.compile(b.getSchema(), "hypot(y, g)");
            List<Object> got = values(e.evaluate(b, Placement.CPU));
            assertEquals(List.of(Math.hypot(1.0, 3e19f), Math.hypot(2.0, 1e20f)), got, e.explain());
        }
    }

    @Test
    void aBigintMeetsARealInDoubleNotInFloat() {
        try (VectorSchemaRoot b = yg(new double[] {1.0}, new float[] {1e10f})) {
            CompiledExpression e = quiver.compile(b.getSchema(), "min(l, g)");
            assertEquals(DataType.FLOAT64, e.plan().outputType());
            assertEquals(List.of(16_777_217.0), values(e.evaluate(b, Placement.CPU)));
        }
    }

    @Test
    void anArrayFunctionReturningItsInputLeavesTheBatchIntact() {
        quiver.functions()
                .register(ArrayFunctions.adapt(
                        "ident",
                        Signature.any(1, Volatility.IMMUTABLE),
                        t -> t.getFirst(),
                        (arrays, call) -> arrays.getFirst()));
        quiver.functions()
                .register(ArrayFunctions.adapt(
                        "second",
                        Signature.any(2, Volatility.IMMUTABLE),
                        t -> t.get(1),
                        (arrays, call) -> arrays.get(1)));
        try (VectorSchemaRoot b = yg(new double[] {1.5, 2.5}, new float[] {1f, 2f})) {
            CompiledExpression ident = quiver.compile(b.getSchema(), "ident(y)");
            for (int round = 0; round < 2; round++) {
                assertEquals(List.of(1.5, 2.5), values(ident.evaluate(b, Placement.CPU)));
                assertEquals(2, b.getVector("y").getValueCount());
            }
            // A padded scalar handed back becomes the result instead of being freed under it.
            CompiledExpression second = quiver.compile(b.getSchema(), "second(y, 7.5)");
            assertEquals(List.of(7.5, 7.5), values(second.evaluate(b, Placement.CPU)));
        }
    }

    @Test
    void explainNamesTheValueTypeOfDictionaryColumnsAndABatchWithoutTheDictionaryIsRefused() {
        try (VarCharVector dict = new VarCharVector("d", allocator);
                VarCharVector plain = new VarCharVector("dn", allocator)) {
            dict.allocateNew(2);
            dict.setSafe(0, "a".getBytes(StandardCharsets.UTF_8));
            dict.setSafe(1, "b".getBytes(StandardCharsets.UTF_8));
            dict.setValueCount(2);
            plain.allocateNew(2);
            plain.setSafe(0, "b".getBytes(StandardCharsets.UTF_8));
            plain.setSafe(1, "a".getBytes(StandardCharsets.UTF_8));
            plain.setValueCount(2);
            Dictionary d = new Dictionary(dict, new DictionaryEncoding(7L, false, new ArrowType.Int(32, true)));
            try (FieldVector enc = (FieldVector) DictionaryEncoder.encode(plain, d);
                    VectorSchemaRoot b = new VectorSchemaRoot(List.of(enc))) {
                b.setRowCount(2);
                CompiledExpression e = quiver.compile(
                        b.getSchema(), new DictionaryProvider.MapDictionaryProvider(d), Expr.parse("upper(dn)"));
                String explain = e.explain();
                assertTrue(explain.contains("#0 = column 0 'dn' Dictionary(Int32, Utf8)"), explain);
                assertEquals(List.of("B", "A"), values(e.evaluate(b, Placement.CPU)));
                // The same column as plain integers: its values are not indices of that dictionary.
                Schema ints =
                        new Schema(List.of(new Field("dn", FieldType.nullable(new ArrowType.Int(32, true)), null)));
                try (VectorSchemaRoot p = VectorSchemaRoot.create(ints, allocator)) {
                    ((IntVector) p.getVector(0)).allocateNew(1);
                    p.setRowCount(0);
                    QuiverException ex = assertThrows(QuiverException.class, () -> e.evaluate(p, Placement.CPU));
                    assertEquals(
                            "column 'dn' was planned dictionary-encoded with dictionary 7 but the batch's column is not "
                                    + "dictionary-encoded",
                            ex.getMessage());
                }
            }
        }
    }

    @Test
    void aNullColumnAloneEvaluatesToNulls() {
        try (NullVector n = new NullVector("n", 3);
                VectorSchemaRoot b = new VectorSchemaRoot(List.of((FieldVector) n))) {
            b.setRowCount(3);
            CompiledExpression e = quiver.compile(b.getSchema(), "n");
            try (FieldVector out = e.evaluate(b, Placement.CPU)) {
                assertEquals(3, out.getValueCount());
                assertEquals(3, out.getNullCount());
            }
        }
    }

    @Test
    void nullPlusNullIsTheLatticesInt64() {
        Schema none = new Schema(List.of());
        assertEquals(DataType.INT64, quiver.compile(none, "NULL + NULL").plan().outputType());
    }
}
