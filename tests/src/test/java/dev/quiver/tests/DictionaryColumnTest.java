package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.errors.InputException;
import dev.quiver.expr.Expr;
import dev.quiver.value.Values;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.junit.jupiter.api.Test;

/** Dictionary-encoded columns compute as their values, decoded once per batch, never as their indices. */
class DictionaryColumnTest extends QuiverTestBase {
    private static final String[] NAMES = {"apple", "Banana", null, "avocado", "apple", "cherry", null, "Avocado"};
    private static final Double[] PRICES = {1.5, 2.0, null, 4.25, 1.5, -3.0, 7.0, 4.25};

    @Test
    void stringAndNumberDictionariesEvaluateAsTheirValuesOnEveryDevice() {
        try (VarCharVector nameDict = new VarCharVector("name_dict", allocator);
                Float8Vector priceDict = new Float8Vector("price_dict", allocator);
                VarCharVector names = new VarCharVector("name", allocator);
                Float8Vector prices = new Float8Vector("price", allocator)) {
            fill(nameDict, "apple", "Banana", "avocado", "cherry", "Avocado");
            priceDict.allocateNew(4);
            double[] pd = {1.5, 2.0, 4.25, -3.0};
            for (int i = 0; i < pd.length; i++) {
                priceDict.set(i, pd[i]);
            }
            priceDict.setValueCount(pd.length);
            fill(names, NAMES);
            prices.allocateNew(NAMES.length);
            for (int i = 0; i < PRICES.length; i++) {
                if (PRICES[i] == null) {
                    prices.setNull(i);
                } else {
                    prices.set(i, PRICES[i]);
                }
            }
            prices.setValueCount(PRICES.length);
            // 7.0 is not in the price dictionary: encode the others, leave row 6 null in the encoded column.
            prices.setNull(6);
            Dictionary nd = new Dictionary(nameDict, new DictionaryEncoding(1L, false, new ArrowType.Int(32, true)));
            Dictionary pdict =
                    new Dictionary(priceDict, new DictionaryEncoding(2L, false, new ArrowType.Int(16, true)));
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(nd, pdict);
            try (FieldVector encNames = (FieldVector) DictionaryEncoder.encode(names, nd);
                    FieldVector encPrices = (FieldVector) DictionaryEncoder.encode(prices, pdict);
                    VectorSchemaRoot batch = new VectorSchemaRoot(List.of(encNames, encPrices))) {
                batch.setRowCount(NAMES.length);
                CompiledExpression upper = quiver.compile(batch.getSchema(), provider, Expr.parse("upper(name)"));
                CompiledExpression like =
                        quiver.compile(batch.getSchema(), provider, Expr.parse("name ILIKE 'a%' AND price > 2"));
                CompiledExpression arith = quiver.compile(batch.getSchema(), provider, Expr.parse("price * 2 + 1"));
                for (Placement p : Placement.values()) {
                    if (p == Placement.OPENCL && quiver.openClDevices().isEmpty()) {
                        continue;
                    }
                    List<Object> u = values(upper.evaluate(batch, p));
                    assertEquals(
                            Arrays.asList("APPLE", "BANANA", null, "AVOCADO", "APPLE", "CHERRY", null, "AVOCADO"),
                            u,
                            p.name());
                    List<Object> l = values(like.evaluate(batch, p));
                    assertEquals(Arrays.asList(false, false, null, true, false, false, null, true), l, p.name());
                    List<Object> a = values(arith.evaluate(batch, p));
                    assertEquals(Arrays.asList(4.0, 5.0, null, 9.5, 4.0, -5.0, null, 9.5), a, p.name());
                }
            }
        }
    }

    @Test
    void aDictionaryOfAnotherTypeThanPlannedIsAnErrorNotAWrongAnswer() {
        try (VarCharVector nameDict = new VarCharVector("d", allocator);
                IntVector intDict = new IntVector("d2", allocator);
                VarCharVector names = new VarCharVector("name", allocator)) {
            fill(nameDict, "a", "b");
            intDict.allocateNew(2);
            intDict.set(0, 1);
            intDict.set(1, 2);
            intDict.setValueCount(2);
            fill(names, "a", "b", "a");
            DictionaryEncoding enc = new DictionaryEncoding(1L, false, new ArrowType.Int(32, true));
            Dictionary nd = new Dictionary(nameDict, enc);
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(nd);
            try (FieldVector encNames = (FieldVector) DictionaryEncoder.encode(names, nd);
                    VectorSchemaRoot batch = new VectorSchemaRoot(List.of(encNames))) {
                batch.setRowCount(3);
                CompiledExpression e = quiver.compile(batch.getSchema(), provider, Expr.parse("upper(name)"));
                // The reader replaced dictionary 1 with one of Int32 values.
                provider.put(new Dictionary(intDict, enc));
                InputException ex = assertThrows(InputException.class, () -> e.evaluate(batch, Placement.CPU));
                assertEquals("dictionary 1 holds Int32 values, but #0 name was planned with Utf8", ex.getMessage());
            }
        }
    }

    private static void fill(VarCharVector v, String... values) {
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(values.length);
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
}
