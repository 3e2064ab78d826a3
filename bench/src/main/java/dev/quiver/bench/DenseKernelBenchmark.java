package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * A fused CASE and a fused conjunction against the loops a person would write by hand
 * ({@link HandWrittenLoops}), in the same run: {@code CASE WHEN x > 0.5 THEN x * y ELSE z END}
 * ({@code expression = case}) and {@code x > 0.5 AND y < 0.25} ({@code and}) over 16M rows of
 * Float64 columns uniform in [0, 1), in 256 batches of 64K rows, without nulls or with 1%
 * ({@code nulls}). One operation evaluates every batch and closes each result. {@code quiver}:
 * {@code CompiledExpression.evaluate(batch, Placement.CPU, allocator)} of a Quiver without OpenCL
 * on one CPU thread (the loops are memory-bound, which Quiver does not split between cores);
 * {@code vectorApi}: the hand-written loop. The setup checks that both give the same values and
 * nulls on the first batch. The project's target: quiver at least 0.9x the speed of vectorApi.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class DenseKernelBenchmark {
    public static final long ROWS = 16L << 20;
    public static final int BATCH_ROWS = 64 << 10;
    public static final long SEED = 1L;

    @Param({"case", "and"})
    public String expression;

    @Param({"0", "0.01"})
    public double nulls;

    private BufferAllocator allocator;
    private Quiver quiver;
    private CompiledExpression compiled;
    private BiFunction<VectorSchemaRoot, BufferAllocator, FieldVector> handWritten;
    private List<VectorSchemaRoot> batches = List.of();

    @Setup(Level.Trial)
    public void load() {
        allocator = new RootAllocator();
        try {
            String sql;
            List<String> columns;
            if (expression.equals("case")) {
                sql = "CASE WHEN x > 0.5 THEN x * y ELSE z END";
                columns = List.of("x", "y", "z");
                handWritten = HandWrittenLoops::caseBlend;
            } else {
                sql = "x > 0.5 AND y < 0.25";
                columns = List.of("x", "y");
                handWritten = HandWrittenLoops::conjunction;
            }
            quiver = Quiver.builder()
                    .allocator(allocator)
                    .openCl(false)
                    .cpuThreads(1)
                    .build();
            compiled = quiver.compile(UniformBatches.float64Schema(columns), sql);
            batches = UniformBatches.generate(
                    UniformBatches.float64Schema(columns), allocator, SEED, ROWS, BATCH_ROWS, nulls);
            check(batches.getFirst());
            System.out.println(compiled.explain());
        } catch (RuntimeException | Error e) {
            free();
            throw e;
        }
    }

    /** Quiver and the hand-written loop give the same values and nulls on {@code batch}. */
    private void check(VectorSchemaRoot batch) {
        try (FieldVector q = compiled.evaluate(batch, Placement.CPU, allocator);
                FieldVector h = handWritten.apply(batch, allocator)) {
            for (int r = 0; r < batch.getRowCount(); r++) {
                ScalarValue a = Values.get(q, r);
                ScalarValue b = Values.get(h, r);
                if (!Objects.equals(a.value(), b.value())) {
                    throw new IllegalStateException(
                            expression + ": row " + r + " is " + a.value() + " in Quiver, " + b.value() + " by hand");
                }
            }
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
                    throw new IllegalStateException(leaked + " bytes still allocated after the benchmark");
                }
            }
        }
    }

    @Benchmark
    public long quiver() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = compiled.evaluate(batch, Placement.CPU, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    @Benchmark
    public long vectorApi() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = handWritten.apply(batch, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }
}
