package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.Placement;
import dev.quiver.functions.PlanningException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.Test;

/**
 * The text forms of {@code compile} and {@code compileProjection}: SQL text against a schema with
 * dictionary-encoded columns, a projection without a filter (no {@code (String) null} to write),
 * with dictionaries, and a projection's EXPLAIN with and without what has run.
 */
class CompileOverloadsTest extends QuiverTestBase {
    private static final String[] CITIES = {"oslo", "Lima", null, "oslo", "kyiv", "Lima"};
    private static final double[] TEMPS = {-3.5, 19.0, 7.25, 0.0, 12.5, -0.5};

    /** A batch of {@code city} (dictionary-encoded, id 1) and {@code temp}; the provider holds the dictionary. */
    private record Encoded(VectorSchemaRoot batch, DictionaryProvider provider, List<AutoCloseable> owned)
            implements AutoCloseable {
        @Override
        public void close() throws Exception {
            batch.close();
            for (AutoCloseable c : owned) {
                c.close();
            }
        }
    }

    private Encoded encoded() {
        VarCharVector dict = strings("city_dict", "oslo", "Lima", "kyiv");
        VarCharVector cities = strings("city", CITIES);
        Float8Vector temps = new Float8Vector("temp", allocator);
        temps.allocateNew(TEMPS.length);
        for (int i = 0; i < TEMPS.length; i++) {
            temps.set(i, TEMPS[i]);
        }
        temps.setValueCount(TEMPS.length);
        Dictionary d = new Dictionary(dict, new DictionaryEncoding(1L, false, new ArrowType.Int(32, true)));
        FieldVector encodedCities = (FieldVector) DictionaryEncoder.encode(cities, d);
        cities.close();
        VectorSchemaRoot batch = new VectorSchemaRoot(List.of(encodedCities, temps));
        batch.setRowCount(CITIES.length);
        return new Encoded(batch, new DictionaryProvider.MapDictionaryProvider(d), List.of(dict));
    }

    @Test
    void sqlTextCompilesAgainstDictionaryEncodedColumns() throws Exception {
        try (Encoded e = encoded()) {
            CompiledExpression upper = quiver.compile(e.batch().getSchema(), e.provider(), "upper(city) || '!'");
            CompiledExpression hot = quiver.compile(e.batch().getSchema(), e.provider(), "city = 'Lima' AND temp > 10");
            for (Placement p : List.of(Placement.CPU, Placement.AUTO)) {
                assertEquals(
                        Arrays.asList("OSLO!", "LIMA!", null, "OSLO!", "KYIV!", "LIMA!"),
                        values(upper.evaluate(e.batch(), p)),
                        p.name());
                assertEquals(
                        Arrays.asList(false, true, false, false, false, false),
                        values(hot.evaluate(e.batch(), p)),
                        p.name()); // NULL AND FALSE is FALSE
            }
            // Without dictionaries (none needed) the three-argument text form is the two-argument one.
            CompiledExpression plain = quiver.compile(e.batch().getSchema(), null, "temp * 2");
            assertEquals(
                    Arrays.asList(-7.0, 38.0, 14.5, 0.0, 25.0, -1.0), values(plain.evaluate(e.batch(), Placement.CPU)));
            assertThrows(
                    PlanningException.class, () -> quiver.compile(e.batch().getSchema(), e.provider(), "upper(city"));
        }
    }

    @Test
    void aProjectionWithoutAFilterNeedsNoNull() throws Exception {
        try (Encoded e = encoded()) {
            CompiledProjection p = quiver.compileProjection(
                    e.batch().getSchema(), e.provider(), null, List.of("upper(city) AS c", "temp + 1 AS t"));
            assertTrue(p.filter().isEmpty());
            check(
                    p.project(e.batch(), Placement.CPU, allocator),
                    Arrays.asList("OSLO", "LIMA", null, "OSLO", "KYIV", "LIMA"),
                    Arrays.asList(-2.5, 20.0, 8.25, 1.0, 13.5, 0.5));

            CompiledProjection filtered = quiver.compileProjection(
                    e.batch().getSchema(), e.provider(), "temp >= 0", List.of("upper(city) AS c", "temp + 1 AS t"));
            check(
                    filtered.project(e.batch(), Placement.CPU, allocator),
                    Arrays.asList("LIMA", null, "OSLO", "KYIV"),
                    Arrays.asList(20.0, 8.25, 1.0, 13.5));
        }
        try (Float8Vector x = new Float8Vector("x", allocator);
                VectorSchemaRoot batch = new VectorSchemaRoot(List.<FieldVector>of(x))) {
            x.allocateNew(3);
            x.set(0, 4.0);
            x.setNull(1);
            x.set(2, 9.0);
            x.setValueCount(3);
            batch.setRowCount(3);
            CompiledProjection p = quiver.compileProjection(batch.getSchema(), List.of("sqrt(x) AS r", "x * x"));
            assertEquals(
                    List.of("r", "(x * x)"),
                    p.outputSchema().getFields().stream().map(Field::getName).toList());
            try (VectorSchemaRoot out = p.project(batch, Placement.CPU, allocator)) {
                assertEquals(3, out.getRowCount());
                assertEquals(Arrays.asList(2.0, null, 3.0), column(out.getVector("r")));
                assertEquals(Arrays.asList(16.0, null, 81.0), column(out.getVector("(x * x)")));
            }
            assertThrows(
                    IllegalArgumentException.class,
                    () -> quiver.compileProjection(batch.getSchema(), List.of()),
                    "no expressions: a misuse of the API");
            assertThrows(
                    PlanningException.class, () -> quiver.compileProjection(batch.getSchema(), List.of("nope + 1")));
        }
    }

    @Test
    void aProjectionExplainsItselfWithOrWithoutWhatHasRunAndForAnyBatchSize() {
        try (Float8Vector x = new Float8Vector("x", allocator);
                VectorSchemaRoot batch = new VectorSchemaRoot(List.<FieldVector>of(x))) {
            x.allocateNew(5);
            for (int i = 0; i < 5; i++) {
                x.set(i, i);
            }
            x.setValueCount(5);
            batch.setRowCount(5);
            CompiledProjection p = quiver.compileProjection(batch.getSchema(), "x > 1", List.of("sqrt(x) * 2 AS y"));
            try (VectorSchemaRoot out = p.project(batch, Placement.CPU, allocator)) {
                assertEquals(3, out.getRowCount());
            }
            CompiledExpression filter = p.filter().orElseThrow();
            CompiledExpression y = p.columns().getFirst();
            assertEquals(
                    "Filter:\n" + filter.explain(false).indent(2) + "Column 'y':\n"
                            + y.explain(false).indent(2),
                    p.explain(false));
            assertEquals(
                    "Filter:\n" + filter.explain(true).indent(2) + "Column 'y':\n"
                            + y.explain(true).indent(2),
                    p.explain(true));
            assertEquals(p.explain(true), p.explain());
            String at1024 = p.explain(true, 1024);
            assertEquals(
                    "Filter:\n" + filter.explain(true, 1024).indent(2) + "Column 'y':\n"
                            + y.explain(true, 1024).indent(2),
                    at1024);
            assertTrue(at1024.contains("at 1024 rows per batch"), at1024);
            assertTrue(p.explain(true).contains("ran on cpu: 1 batches, 3 rows"), p.explain(true));
            assertTrue(!p.explain(false).contains("ran on cpu"), p.explain(false));
            assertThrows(IllegalArgumentException.class, () -> p.explain(true, 0));
        }
    }

    private static void check(VectorSchemaRoot out, List<String> c, List<Double> t) {
        try (out) {
            assertEquals(c.size(), out.getRowCount());
            assertEquals(c, column(out.getVector("c")));
            assertEquals(t, column(out.getVector("t")));
        }
    }

    private VarCharVector strings(String name, String... values) {
        VarCharVector v = new VarCharVector(name, allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    private static List<Object> values(FieldVector v) {
        try (v) {
            return column(v);
        }
    }

    private static List<Object> column(FieldVector v) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < v.getValueCount(); i++) {
            Object o = v.getObject(i);
            out.add(o instanceof Text t ? t.toString() : o);
        }
        return out;
    }
}
