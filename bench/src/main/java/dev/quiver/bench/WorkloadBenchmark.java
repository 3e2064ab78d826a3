package dev.quiver.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The two measured sides of every workload benchmark, in one run: {@code quiver} (the physical
 * tree) and {@code interpreter} ({@link PerRowBaseline}) over the same batches. A subclass loads
 * {@link #loaded} in its {@code @Setup}; it is freed after the trial.
 */
public abstract class WorkloadBenchmark {
    protected LoadedWorkload loaded;

    @TearDown(Level.Trial)
    public void free() {
        loaded.close();
    }

    @Benchmark
    public long quiver() {
        return loaded.evaluateWithQuiver();
    }

    @Benchmark
    public long interpreter() {
        return loaded.evaluateWithInterpreter();
    }
}
