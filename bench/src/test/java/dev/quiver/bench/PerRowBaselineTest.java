package dev.quiver.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.kernels.ArithmeticMode;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PerRowBaseline} computes what Quiver computes: the same type, the same nulls and equal
 * values (floats bit for bit), on each benchmark's expression over random batches with nulls and
 * on hostile inputs. Every test ends with its allocator at zero bytes.
 */
class PerRowBaselineTest {
    private static final List<Workload> BENCHMARKS =
            List.of(BooleanLogicBenchmark.WORKLOAD, CaseBenchmark.WORKLOAD, DispatchBenchmark.workload(8192));

    private BufferAllocator allocator;
    private Quiver quiver;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        // The interpreter wraps integers as Java does; Quiver does too in WRAPPING mode.
        quiver = Quiver.builder()
                .allocator(allocator)
                .openCl(false)
                .arithmetic(ArithmeticMode.WRAPPING)
                .build();
    }

    @AfterEach
    void close() {
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    /** Each benchmark's expression on 1000 rows in batches of 300 (a short last one), at its 1% of nulls and at 20%. */
    @ParameterizedTest
    @ValueSource(doubles = {0.01, 0.2})
    void givesQuiversResultsOnEveryBenchmarkExpression(double nullFraction) {
        for (Workload benchmark : BENCHMARKS) {
            long seed = 7;
            Workload small = new Workload(benchmark.sql(), benchmark.columns(), 1000, 300, nullFraction, seed);
            List<VectorSchemaRoot> batches = UniformBatches.generate(
                    small.schema(), allocator, seed, small.rows(), small.batchRows(), nullFraction);
            try {
                assertSameAsQuiver(small.schema(), batches, small.sql(), "seed " + seed);
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    /** NaN, ±0, ±infinity, 0.5, 1 and NULL (with garbage behind it) for x and for y, every pair. */
    @Test
    void agreesWithQuiverOnSpecialFloats() {
        double[] specials = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.5, 1.0, 0.25};
        int n = (specials.length + 1) * (specials.length + 1);
        Schema schema = UniformBatches.float64Schema(List.of("x", "y"));
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
            Float8Vector x = (Float8Vector) batch.getVector("x");
            Float8Vector y = (Float8Vector) batch.getVector("y");
            x.allocateNew(n);
            y.allocateNew(n);
            int row = 0;
            for (int i = 0; i <= specials.length; i++) {
                for (int j = 0; j <= specials.length; j++, row++) {
                    setOrNull(x, row, i < specials.length ? specials[i] : null);
                    setOrNull(y, row, j < specials.length ? specials[j] : null);
                }
            }
            batch.setRowCount(n);
            for (String sql : List.of(
                    BooleanLogicBenchmark.WORKLOAD.sql(),
                    CaseBenchmark.WORKLOAD.sql(),
                    "x = y",
                    "x <> y",
                    "x <= y OR x >= y",
                    "NOT (x < y) AND y IS NOT NULL",
                    "x * 2 + y / 3 - x > y",
                    "x / y",
                    "CASE WHEN x > y THEN x - y WHEN x IS NULL THEN 1 END")) {
                assertSameAsQuiver(schema, List.of(batch), sql, "special floats");
            }
        }
    }

    /** Int32, Int64 and Boolean columns: wrapping arithmetic, mixed widths, Kleene logic, CASE over mixed types. */
    @Test
    void agreesWithQuiverOnIntegersAndBooleans() {
        long seed = 11;
        SplittableRandom random = new SplittableRandom(seed);
        int[] ints = {Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0, 1};
        long[] longs = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1};
        Schema schema = new Schema(List.of(
                Field.nullable("i", new ArrowType.Int(32, true)),
                Field.nullable("l", new ArrowType.Int(64, true)),
                Field.nullable("b", ArrowType.Bool.INSTANCE),
                Field.nullable("c", ArrowType.Bool.INSTANCE)));
        int n = 500;
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
            IntVector i = (IntVector) batch.getVector("i");
            BigIntVector l = (BigIntVector) batch.getVector("l");
            BitVector b = (BitVector) batch.getVector("b");
            BitVector c = (BitVector) batch.getVector("c");
            batch.getFieldVectors().forEach(v -> ((BaseFixedWidthVector) v).allocateNew(n));
            for (int row = 0; row < n; row++) {
                i.set(row, random.nextInt(10) == 0 ? ints[random.nextInt(ints.length)] : random.nextInt(-5, 6));
                l.set(row, random.nextInt(10) == 0 ? longs[random.nextInt(longs.length)] : random.nextLong(-5, 6));
                b.set(row, random.nextInt(2));
                c.set(row, random.nextInt(2));
                for (FieldVector v : batch.getFieldVectors()) {
                    if (random.nextInt(8) == 0) {
                        v.setNull(row);
                    }
                }
            }
            batch.setRowCount(n);
            for (String sql : List.of(
                    "i + 1 > l",
                    "i * 3 - i",
                    "l * 2 + i",
                    "i / 3 + l / -2",
                    "b AND i < 3",
                    "b OR NOT c",
                    "(b AND c) OR (i IS NULL)",
                    "b = c",
                    "b <> (i >= l)",
                    "CASE WHEN b THEN i ELSE l END",
                    "CASE WHEN c THEN i * 2 WHEN b THEN 0.5 END",
                    "CASE i WHEN 1 THEN l WHEN 2 THEN 7 ELSE i END",
                    "i = 2.0 OR l < 0.5")) {
                assertSameAsQuiver(schema, List.of(batch), sql, "seed " + seed);
            }
        }
    }

    @Test
    void theDispatchTreeHasTwentyNodes() {
        try (LoadedWorkload w = LoadedWorkload.load(DispatchBenchmark.workload(8))) {
            assertEquals(
                    DispatchBenchmark.NODES,
                    w.physicalNodes(),
                    w.compiled().plan().explain());
        }
    }

    @Test
    void refusesWhatItDoesNotSupportByName() {
        Schema schema = new Schema(List.of(
                Field.nullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("s", ArrowType.Utf8.INSTANCE)));
        for (String[] sqlAndName : new String[][] {
            {"sqrt(x)", "Call"},
            {"x % 2.0", "%"},
            {"x BETWEEN 0.1 AND 0.2", "Between"},
            {"s IS NULL", "Utf8"},
            {"x IN (0.1, 0.2)", "InList"},
            {"CAST(x AS INTEGER)", "Cast"},
            {"x > 0.5 AND NULL", "Null"},
            {"x > (SELECT rate FROM rates)", "does not support scalar subqueries"}
        }) {
            UnsupportedOperationException e = assertThrows(
                    UnsupportedOperationException.class,
                    () -> PerRowBaseline.compile(schema, sqlAndName[0]),
                    sqlAndName[0]);
            assertTrue(e.getMessage().contains(sqlAndName[1]), e.getMessage());
        }
    }

    private static void setOrNull(Float8Vector v, int row, Double value) {
        if (value == null) {
            v.set(row, 12345.678); // garbage behind the null
            v.setNull(row);
        } else {
            v.set(row, value);
        }
    }

    private void assertSameAsQuiver(Schema schema, List<VectorSchemaRoot> batches, String sql, String context) {
        CompiledExpression compiled = quiver.compile(schema, sql);
        PerRowBaseline interpreter = PerRowBaseline.compile(schema, sql);
        for (int k = 0; k < batches.size(); k++) {
            VectorSchemaRoot batch = batches.get(k);
            try (FieldVector expected = compiled.evaluate(batch, Placement.CPU, allocator);
                    FieldVector actual = interpreter.evaluate(batch, allocator)) {
                String where = sql + ", batch " + k + ", " + context;
                assertEquals(expected.getField().getType(), actual.getField().getType(), where);
                assertEquals(batch.getRowCount(), actual.getValueCount(), where);
                for (int row = 0; row < batch.getRowCount(); row++) {
                    assertEquals(expected.getObject(row), actual.getObject(row), where + ", row " + row);
                }
            }
        }
    }
}
