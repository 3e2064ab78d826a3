package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * String kernels against the per-row Java a person would write, over {@link StringBatches}: 16M
 * rows of one Utf8 column {@code s}, ASCII strings of 5 to 20 characters, 10% of them containing
 * {@code "abc"} (at the start, in the middle or at the end; also split across two adjacent rows,
 * where it must not match), 1% nulls with bytes behind them, in 256 batches of 64K rows. One
 * operation evaluates every batch and closes each result. In the same run:
 * <ul>
 * <li>{@code likeQuiver}: {@value #LIKE_SQL}, compiled by Quiver and evaluated with
 *     {@code CompiledExpression.evaluate(batch, Placement.CPU, allocator)} (OpenCL off);</li>
 * <li>{@code containsQuiver}: {@value #CONTAINS_SQL}, the same way. Where this build registers no
 *     {@code contains} function its setup fails with a message that says so, JMH reports the error
 *     and goes on with the other benchmarks, and {@link BenchReport} prints "no result";</li>
 * <li>{@code upperQuiver}: {@value #UPPER_SQL}, the same way;</li>
 * <li>{@code containsPerRow}: {@link #containsPerRow}, per row {@code VarCharVector.get(i)},
 *     {@code new String(bytes, UTF_8)}, {@code String.contains("abc")}, into a {@link BitVector}
 *     with {@code set}/{@code setNull};</li>
 * <li>{@code upperPerRow}: {@link #upperPerRow}, per row {@code get(i)}, {@code new String},
 *     {@code toUpperCase(Locale.ROOT)}, {@code getBytes(UTF_8)}, {@code setSafe} into a
 *     {@link VarCharVector} (allocated with the input's byte size, so it never grows: the
 *     baseline at its best).</li>
 * </ul>
 * The setup checks, on the first batch, that every Quiver expression it could compile gives the
 * baseline's result (nulls included) and prints what it compared. The project's targets
 * ({@link BenchReport}, issue 8): {@code likeQuiver} and {@code containsQuiver} at least 5x the
 * speed of {@code containsPerRow}, {@code upperQuiver} at least 3x that of {@code upperPerRow}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class StringBenchmark {
    public static final long ROWS = 16L << 20;
    public static final int BATCH_ROWS = 64 << 10;
    public static final long SEED = 20241108L;
    public static final String LIKE_SQL = "s LIKE '%abc%'";
    public static final String CONTAINS_SQL = "contains(s, 'abc')";
    public static final String UPPER_SQL = "upper(s)";

    private BufferAllocator allocator;
    private Quiver quiver;
    private CompiledExpression like;
    private CompiledExpression contains;
    private CompiledExpression upper;
    private List<VectorSchemaRoot> batches = List.of();

    /**
     * Generates the batches, compiles the expressions and checks them against the baselines on
     * the first batch. Fails in {@code containsQuiver}'s fork when there is no {@code contains}.
     */
    @Setup(Level.Trial)
    public void load(BenchmarkParams params) {
        allocator = new RootAllocator();
        try {
            quiver = Quiver.builder().allocator(allocator).openCl(false).build();
            like = quiver.compile(StringBatches.schema(), LIKE_SQL);
            upper = quiver.compile(StringBatches.schema(), UPPER_SQL);
            contains = compileContains(quiver);
            if (contains == null && params.getBenchmark().endsWith(".containsQuiver")) {
                throw new IllegalStateException(whyNoContains());
            }
            batches = StringBatches.generate(allocator, SEED, ROWS, BATCH_ROWS);
            System.out.println(check(like, contains, upper, batches.getFirst(), allocator));
        } catch (RuntimeException | Error e) {
            free();
            throw e;
        }
    }

    /** {@value #CONTAINS_SQL} compiled, or null when {@code quiver} has no function {@code contains}. */
    static CompiledExpression compileContains(Quiver quiver) {
        if (quiver.functions().find("contains").isEmpty()) {
            return null;
        }
        return quiver.compile(StringBatches.schema(), CONTAINS_SQL);
    }

    static String whyNoContains() {
        return "no function 'contains' is registered in this build, so " + CONTAINS_SQL
                + " cannot be compiled and containsQuiver has no result (the other string benchmarks run)";
    }

    /**
     * Evaluates {@code batch} with each expression (those not null) and with the baselines, and
     * compares them row by row: {@code like} and {@code contains} with {@link #containsPerRow},
     * {@code upper} with {@link #upperPerRow}. Throws {@link IllegalStateException} on the first
     * difference; returns what was compared.
     */
    static String check(
            CompiledExpression like,
            CompiledExpression contains,
            CompiledExpression upper,
            VectorSchemaRoot batch,
            BufferAllocator allocator) {
        VarCharVector s = (VarCharVector) batch.getVector(0);
        List<String> compared = new ArrayList<>();
        try (BitVector expectedContains = containsPerRow(s, StringBatches.NEEDLE, allocator);
                VarCharVector expectedUpper = upperPerRow(s, allocator)) {
            compare(LIKE_SQL, expectedContains, () -> like.evaluate(batch, Placement.CPU, allocator), compared);
            if (contains != null) {
                compare(
                        CONTAINS_SQL,
                        expectedContains,
                        () -> contains.evaluate(batch, Placement.CPU, allocator),
                        compared);
            } else {
                compared.add(CONTAINS_SQL + ": not compared (no function 'contains' in this build)");
            }
            compare(UPPER_SQL, expectedUpper, () -> upper.evaluate(batch, Placement.CPU, allocator), compared);
        }
        return "strings, first batch (" + batch.getRowCount() + " rows), Quiver against the per-row baselines: "
                + String.join("; ", compared);
    }

    private static void compare(String sql, FieldVector expected, Supplier<FieldVector> run, List<String> compared) {
        try (FieldVector actual = run.get()) {
            if (actual.getClass() != expected.getClass() || actual.getValueCount() != expected.getValueCount()) {
                throw new IllegalStateException(sql + ": Quiver gives " + actual.getValueCount() + " rows of "
                        + actual.getField().getType() + ", the baseline " + expected.getValueCount() + " rows of "
                        + expected.getField().getType());
            }
            int matches = 0;
            for (int i = 0; i < expected.getValueCount(); i++) {
                Object e = expected.getObject(i);
                Object a = actual.getObject(i);
                if (!Objects.equals(e, a)) {
                    throw new IllegalStateException(
                            sql + ": row " + i + " is " + a + " in Quiver, " + e + " in the baseline");
                }
                if (Boolean.TRUE.equals(e)) {
                    matches++;
                }
            }
            compared.add(sql + " equal (" + expected.getNullCount() + " nulls"
                    + (expected instanceof BitVector ? ", " + matches + " true" : "") + ")");
        }
    }

    @TearDown(Level.Trial)
    public void free() {
        try {
            batches.forEach(VectorSchemaRoot::close);
            batches = List.of();
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
                    throw new IllegalStateException(leaked + " bytes still allocated after the string benchmark");
                }
            }
        }
    }

    /**
     * The per-row baseline of {@code s LIKE '%needle%'} and {@code contains(s, needle)}: a
     * {@link BitVector} from {@code allocator} (the caller closes it), null where {@code s} is.
     */
    public static BitVector containsPerRow(VarCharVector s, String needle, BufferAllocator allocator) {
        int n = s.getValueCount();
        BitVector out = new BitVector("contains", allocator);
        try {
            out.allocateNew(n);
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    out.setNull(i);
                } else {
                    out.set(i, new String(s.get(i), StandardCharsets.UTF_8).contains(needle) ? 1 : 0);
                }
            }
            out.setValueCount(n);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /**
     * The per-row baseline of {@code upper(s)}: a {@link VarCharVector} from {@code allocator}
     * (the caller closes it), null where {@code s} is.
     */
    public static VarCharVector upperPerRow(VarCharVector s, BufferAllocator allocator) {
        int n = s.getValueCount();
        VarCharVector out = new VarCharVector("upper", allocator);
        try {
            out.allocateNew(n == 0 ? 1 : Math.max(1, s.getEndOffset(n - 1)), n);
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    out.setNull(i);
                } else {
                    out.setSafe(
                            i,
                            new String(s.get(i), StandardCharsets.UTF_8)
                                    .toUpperCase(Locale.ROOT)
                                    .getBytes(StandardCharsets.UTF_8));
                }
            }
            out.setValueCount(n);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    @Benchmark
    public long likeQuiver() {
        return evaluate(like);
    }

    @Benchmark
    public long containsQuiver() {
        return evaluate(contains);
    }

    @Benchmark
    public long upperQuiver() {
        return evaluate(upper);
    }

    @Benchmark
    public long containsPerRow() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (BitVector v = containsPerRow((VarCharVector) batch.getVector(0), StringBatches.NEEDLE, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    @Benchmark
    public long upperPerRow() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (VarCharVector v = upperPerRow((VarCharVector) batch.getVector(0), allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    private long evaluate(CompiledExpression compiled) {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = compiled.evaluate(batch, Placement.CPU, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }
}
