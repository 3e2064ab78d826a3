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
 * A searched CASE: {@code CASE WHEN x < 0.3 THEN 1 WHEN x < 0.6 THEN 2 ELSE 3 END} (an Int32)
 * over the data of {@link BooleanLogicBenchmark} (the same seed: 16M rows, uniform in [0, 1), 1% nulls,
 * 256 batches of 64K rows; only {@code x} is read). One operation evaluates every batch and closes
 * each result. {@code quiver} runs Quiver's plan: one fused kernel segment that computes both
 * comparisons and blends the literals (docs/evaluation.md); {@code interpreter} runs
 * {@link PerRowBaseline} over the same batches. The project's target: Quiver at least 10 times
 * faster. {@link DenseKernelBenchmark} sets a CASE against a hand-written blend loop.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class CaseBenchmark extends WorkloadBenchmark {
    public static final Workload WORKLOAD = new Workload(
            "CASE WHEN x < 0.3 THEN 1 WHEN x < 0.6 THEN 2 ELSE 3 END",
            List.of("x", "y"),
            16L << 20,
            64 << 10,
            0.01,
            1L);

    @Setup(Level.Trial)
    public void load() {
        loaded = LoadedWorkload.load(WORKLOAD);
    }
}
