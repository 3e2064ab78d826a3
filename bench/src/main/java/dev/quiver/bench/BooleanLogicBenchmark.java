package dev.quiver.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Boolean logic over whole columns: {@code x > 0.5 AND y < 0.25} over 16M rows of two Float64
 * columns (uniform in [0, 1), 1% nulls) in 256 batches of 64K rows. One operation evaluates every
 * batch and closes each result. {@code quiver} runs Quiver's plan: one fused kernel segment (the
 * two comparisons and the Kleene AND in one pass; docs/evaluation.md); {@code interpreter} runs
 * {@link PerRowBaseline} over the same batches. The project's target: Quiver at least 20 times
 * faster. {@link DenseKernelBenchmark} sets the same expression against a hand-written loop.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class BooleanLogicBenchmark extends WorkloadBenchmark {
    public static final Workload WORKLOAD =
            new Workload("x > 0.5 AND y < 0.25", List.of("x", "y"), 16L << 20, 64 << 10, 0.01, 1L);

    @Setup(Level.Trial)
    public void load() {
        loaded = LoadedWorkload.load(WORKLOAD);
    }
}
