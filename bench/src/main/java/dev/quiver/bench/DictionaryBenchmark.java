package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.functions.ExecutionConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
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
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A dictionary-encoded string column against the same rows as plain Utf8: {@value #ROWS} rows of
 * {@code payment_type}, drawn from {@link #VALUES} (Int32 indices, 1% null with garbage behind
 * them), in batches of {@value #BATCH_ROWS} rows sharing one dictionary. One operation evaluates
 * every batch with {@code evaluate(batch, Placement.CPU, allocator)} (OpenCL off) and closes each
 * result. In the same run:
 * <ul>
 * <li>{@code eqPlain}: {@value #EQ_SQL} over the plain Utf8 column;</li>
 * <li>{@code eqDecoded}: the same over the encoded column, planned with
 *     {@code -Dquiver.dictionaryMapping=off}: each batch decodes the column, then compares (the plan
 *     before dictionary mapping);</li>
 * <li>{@code eqMapped}: the same, planned as a {@code DictionaryMap}: the comparison runs once on
 *     the dictionary's values and each batch gathers one Boolean per row by its index;</li>
 * <li>{@code eqPerRow}: the loop a person would write over the encoded column: the dictionary
 *     decoded into a {@code String[]} once, then per row {@code get(i)} and
 *     {@code "card".equals(values[index])} into a {@link BitVector};</li>
 * <li>{@code inDecoded}, {@code inMapped}: {@value #IN_SQL}, decoded and mapped;</li>
 * <li>{@code upperDecoded}, {@code upperMapped}: {@value #UPPER_SQL}, a string result (gathered with
 *     a take of the dictionary's uppercased values).</li>
 * </ul>
 * The setup checks on the first batch that every Quiver variant gives the per-row loop's result
 * ({@code upper} against the plain column's) and prints what it compared. Run with
 * {@code bash bench/run.sh -f 1 -wi 3 -w 1s -i 5 -r 1s DictionaryBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class DictionaryBenchmark {
    public static final int ROWS = 5_000_000;
    public static final int BATCH_ROWS = 64 << 10;
    public static final double NULL_FRACTION = 0.01;
    public static final String[] VALUES = {"card", "cash", "no charge", "dispute", "unknown", "voided trip"};
    public static final String EQ_SQL = "payment_type = 'card'";
    public static final String IN_SQL = "payment_type IN ('cash', 'dispute')";
    public static final String UPPER_SQL = "upper(payment_type)";
    private static final long SEED = 20261202L;

    private BufferAllocator allocator;
    private Quiver quiver;
    private VarCharVector dictionary;
    private List<VectorSchemaRoot> encoded = List.of();
    private List<VectorSchemaRoot> plain = List.of();
    private CompiledExpression eqPlain, eqDecoded, eqMapped, inDecoded, inMapped, upperDecoded, upperMapped;
    private String[] decodedValues;

    @Setup(Level.Trial)
    public void load() {
        allocator = new RootAllocator();
        try {
            quiver = Quiver.builder().allocator(allocator).openCl(false).build();
            dictionary = new VarCharVector("payment_type_values", allocator);
            dictionary.allocateNew(VALUES.length);
            for (int i = 0; i < VALUES.length; i++) {
                dictionary.setSafe(i, VALUES[i].getBytes(StandardCharsets.UTF_8));
            }
            dictionary.setValueCount(VALUES.length);
            decodedValues = VALUES.clone();
            DictionaryEncoding enc = new DictionaryEncoding(1L, false, new ArrowType.Int(32, true));
            DictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(new Dictionary(dictionary, enc));
            generate(enc);
            var encodedSchema = encoded.getFirst().getSchema();
            var plainSchema = plain.getFirst().getSchema();
            eqPlain = quiver.compile(plainSchema, EQ_SQL);
            eqMapped = quiver.compile(encodedSchema, provider, EQ_SQL);
            inMapped = quiver.compile(encodedSchema, provider, IN_SQL);
            upperMapped = quiver.compile(encodedSchema, provider, UPPER_SQL);
            String before = System.getProperty(ExecutionConfig.DICTIONARY_MAPPING_PROPERTY);
            System.setProperty(ExecutionConfig.DICTIONARY_MAPPING_PROPERTY, "off");
            try {
                eqDecoded = quiver.compile(encodedSchema, provider, EQ_SQL);
                inDecoded = quiver.compile(encodedSchema, provider, IN_SQL);
                upperDecoded = quiver.compile(encodedSchema, provider, UPPER_SQL);
            } finally {
                if (before == null) {
                    System.clearProperty(ExecutionConfig.DICTIONARY_MAPPING_PROPERTY);
                } else {
                    System.setProperty(ExecutionConfig.DICTIONARY_MAPPING_PROPERTY, before);
                }
            }
            if (!eqMapped.explain().contains("DictionaryMap[")
                    || eqDecoded.explain().contains("DictionaryMap[")) {
                throw new IllegalStateException(
                        "the plans are not the ones compared:\n" + eqMapped.explain() + "\n" + eqDecoded.explain());
            }
            System.out.println(check());
        } catch (RuntimeException | Error e) {
            free();
            throw e;
        }
    }

    private void generate(DictionaryEncoding enc) {
        SplittableRandom random = new SplittableRandom(SEED);
        List<VectorSchemaRoot> e = new ArrayList<>();
        List<VectorSchemaRoot> p = new ArrayList<>();
        Field indexField = new Field("payment_type", new FieldType(true, enc.getIndexType(), enc), null);
        for (int start = 0; start < ROWS; start += BATCH_ROWS) {
            int n = Math.min(BATCH_ROWS, ROWS - start);
            IntVector idx = (IntVector) indexField.createVector(allocator);
            VarCharVector values = new VarCharVector("payment_type", allocator);
            idx.allocateNew(n);
            values.allocateNew((long) n * 8, n);
            for (int i = 0; i < n; i++) {
                int k = random.nextInt(VALUES.length);
                if (random.nextDouble() < NULL_FRACTION) {
                    idx.set(i, 1_000_000 + k); // garbage behind the null
                    idx.setNull(i);
                    values.setNull(i);
                } else {
                    idx.set(i, k);
                    values.setSafe(i, VALUES[k].getBytes(StandardCharsets.UTF_8));
                }
            }
            idx.setValueCount(n);
            values.setValueCount(n);
            VectorSchemaRoot er = new VectorSchemaRoot(List.<FieldVector>of(idx));
            er.setRowCount(n);
            e.add(er);
            VectorSchemaRoot pr = new VectorSchemaRoot(List.<FieldVector>of(values));
            pr.setRowCount(n);
            p.add(pr);
        }
        encoded = e;
        plain = p;
    }

    /** Every variant on the first batch against the per-row loop (upper against the plain column's upper). */
    private String check() {
        VectorSchemaRoot e = encoded.getFirst();
        VectorSchemaRoot p = plain.getFirst();
        try (BitVector expected = eqPerRow((IntVector) e.getVector(0), decodedValues, allocator);
                FieldVector in = inDecoded.evaluate(e, Placement.CPU, allocator);
                FieldVector upper = upperDecoded.evaluate(e, Placement.CPU, allocator)) {
            compare(EQ_SQL + " plain", expected, eqPlain.evaluate(p, Placement.CPU, allocator));
            compare(EQ_SQL + " decoded", expected, eqDecoded.evaluate(e, Placement.CPU, allocator));
            compare(EQ_SQL + " mapped", expected, eqMapped.evaluate(e, Placement.CPU, allocator));
            compare(IN_SQL + " mapped", in, inMapped.evaluate(e, Placement.CPU, allocator));
            compare(UPPER_SQL + " mapped", upper, upperMapped.evaluate(e, Placement.CPU, allocator));
        }
        return "dictionaries, first batch (" + e.getRowCount() + " rows): plain, decoded and mapped plans agree with"
                + " the per-row loop (" + EQ_SQL + ") and with each other (" + IN_SQL + ", " + UPPER_SQL + ")";
    }

    private static void compare(String what, FieldVector expected, FieldVector actual) {
        try (actual) {
            for (int i = 0; i < expected.getValueCount(); i++) {
                if (!Objects.equals(expected.getObject(i), actual.getObject(i))) {
                    throw new IllegalStateException(
                            what + ": row " + i + " is " + actual.getObject(i) + ", expected " + expected.getObject(i));
                }
            }
        }
    }

    /** The per-row loop over the encoded column: {@code "card".equals(values[index])}, null where the index is. */
    public static BitVector eqPerRow(IntVector indices, String[] values, BufferAllocator allocator) {
        int n = indices.getValueCount();
        BitVector out = new BitVector("eq", allocator);
        try {
            out.allocateNew(n);
            for (int i = 0; i < n; i++) {
                if (indices.isNull(i)) {
                    out.setNull(i);
                } else {
                    out.set(i, "card".equals(values[indices.get(i)]) ? 1 : 0);
                }
            }
            out.setValueCount(n);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    @TearDown(Level.Trial)
    public void free() {
        try {
            encoded.forEach(VectorSchemaRoot::close);
            plain.forEach(VectorSchemaRoot::close);
            encoded = List.of();
            plain = List.of();
            if (dictionary != null) {
                dictionary.close();
                dictionary = null;
            }
            if (quiver != null) {
                quiver.close();
                quiver = null;
            }
        } finally {
            if (allocator != null) {
                long leaked = allocator.getAllocatedMemory();
                allocator.close();
                allocator = null;
                if (leaked != 0) {
                    throw new IllegalStateException(leaked + " bytes still allocated after the dictionary benchmark");
                }
            }
        }
    }

    @Benchmark
    public long eqPlain() {
        return evaluate(eqPlain, plain);
    }

    @Benchmark
    public long eqDecoded() {
        return evaluate(eqDecoded, encoded);
    }

    @Benchmark
    public long eqMapped() {
        return evaluate(eqMapped, encoded);
    }

    @Benchmark
    public long eqPerRow() {
        long rows = 0;
        for (VectorSchemaRoot batch : encoded) {
            try (BitVector v = eqPerRow((IntVector) batch.getVector(0), decodedValues, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    @Benchmark
    public long inDecoded() {
        return evaluate(inDecoded, encoded);
    }

    @Benchmark
    public long inMapped() {
        return evaluate(inMapped, encoded);
    }

    @Benchmark
    public long upperDecoded() {
        return evaluate(upperDecoded, encoded);
    }

    @Benchmark
    public long upperMapped() {
        return evaluate(upperMapped, encoded);
    }

    private long evaluate(CompiledExpression compiled, List<VectorSchemaRoot> batches) {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = compiled.evaluate(batch, Placement.CPU, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }
}
