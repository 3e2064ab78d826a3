package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A badly written AND chain, an expensive string term first and a selective cheap number term
 * last, over {@link #ROWS} rows: {@link StringBatches}' {@code s} and a Float64 {@code x} uniform
 * in [0, 1) (1% nulls), in batches of 64K rows. {@code adaptive} runs the plan Quiver makes by
 * default (the terms reordered by measured cost and selectivity, docs/evaluation.md);
 * {@code writtenOrder} the plan made with {@code -Dquiver.conjuncts.adaptive=false}, in the same
 * run. One operation evaluates every batch on the CPU and closes each result. The setup checks
 * that both give the same values on the first batches. The third chain is already written in the
 * best order: there the two differ by what measuring and exploring cost. Run with
 * {@code bash bench/run.sh -f 1 -wi 4 -w 1s -i 10 -r 1s ConjunctOrderBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ConjunctOrderBenchmark {
    public static final long ROWS = 4L << 20;
    public static final int BATCH_ROWS = 64 << 10;
    public static final long SEED = 20261202L;

    /**
     * The chain: a general LIKE (a per-row matcher) or a contains LIKE (a vector search), then
     * {@code x < 0.05}; and the general one written well, to show what measuring costs.
     */
    @Param({"s LIKE '%a%b%c%' AND x < 0.05", "s LIKE '%abc%' AND x < 0.05", "x < 0.05 AND s LIKE '%a%b%c%'"})
    public String sql;

    private BufferAllocator allocator;
    private Quiver quiver;
    private CompiledExpression adaptive;
    private CompiledExpression written;
    private List<VectorSchemaRoot> batches = List.of();

    @Setup(Level.Trial)
    public void load() {
        allocator = new RootAllocator();
        try {
            quiver = Quiver.builder().allocator(allocator).openCl(false).build();
            batches = generate(allocator);
            Schema schema = batches.getFirst().getSchema();
            adaptive = quiver.compile(schema, sql);
            String before = System.getProperty("quiver.conjuncts.adaptive");
            System.setProperty("quiver.conjuncts.adaptive", "false");
            try {
                written = quiver.compile(schema, sql);
            } finally {
                if (before == null) {
                    System.clearProperty("quiver.conjuncts.adaptive");
                } else {
                    System.setProperty("quiver.conjuncts.adaptive", before);
                }
            }
            for (int b = 0; b < 8; b++) {
                check(batches.get(b));
            }
        } catch (RuntimeException | Error e) {
            free();
            throw e;
        }
    }

    private void check(VectorSchemaRoot batch) {
        try (FieldVector a = adaptive.evaluate(batch, Placement.CPU, allocator);
                FieldVector w = written.evaluate(batch, Placement.CPU, allocator)) {
            for (int i = 0; i < batch.getRowCount(); i++) {
                if (!Objects.equals(a.getObject(i), w.getObject(i))) {
                    throw new IllegalStateException(sql + ": row " + i + " is " + a.getObject(i) + " adaptive, "
                            + w.getObject(i) + " in written order");
                }
            }
        }
    }

    /** {@link StringBatches}' batches with a Float64 column x beside s. */
    static List<VectorSchemaRoot> generate(BufferAllocator allocator) {
        List<VectorSchemaRoot> strings = StringBatches.generate(allocator, SEED, ROWS, BATCH_ROWS);
        List<VectorSchemaRoot> out = new ArrayList<>(strings.size());
        SplittableRandom random = new SplittableRandom(SEED + 1);
        Field xField =
                new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);
        try {
            for (VectorSchemaRoot s : strings) {
                int rows = s.getRowCount();
                Float8Vector x = new Float8Vector(xField, allocator);
                x.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    x.set(i, random.nextDouble());
                    if (random.nextDouble() < 0.01) {
                        x.setNull(i); // with a value behind it
                    }
                }
                x.setValueCount(rows);
                FieldVector sv = s.getVector(0);
                out.add(new VectorSchemaRoot(List.of(sv.getField(), xField), List.of(sv, x), rows));
            }
        } catch (RuntimeException | Error e) {
            out.forEach(VectorSchemaRoot::close);
            throw e;
        }
        return out;
    }

    @Benchmark
    public long adaptive() {
        return run(adaptive);
    }

    @Benchmark
    public long writtenOrder() {
        return run(written);
    }

    private long run(CompiledExpression e) {
        long n = 0;
        for (VectorSchemaRoot b : batches) {
            try (FieldVector v = e.evaluate(b, Placement.CPU, allocator)) {
                n += v.getNullCount();
            }
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void free() {
        try {
            if (adaptive != null) {
                System.out.println();
                System.out.println(adaptive.explain(true)
                        .lines()
                        .dropWhile(l -> !l.startsWith("Adaptive AND/OR order"))
                        .reduce("", (a, l) -> a + l + "\n"));
            }
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
                    throw new IllegalStateException(leaked + " bytes still allocated after the conjunct benchmark");
                }
            }
        }
    }
}
