package dev.quiver.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The fixed cost of running a physical tree once per batch. {@link #SQL} plans to a tree of
 * exactly {@value #NODES} host nodes, leaves included (comparisons, AND/OR, NOT and IS NULL: the
 * planner fuses the comparisons of numbers of a chain into one kernel when there are two or more,
 * so each chain here has one, beside an IS NULL test; {@link #load()} checks the count). One operation evaluates it on one batch
 * of {@code rows} rows of four Float64 columns (uniform in [0, 1), 1% nulls) and closes the result.
 *
 * <p>At 1 row the time is almost all per-batch work: visiting the nodes, checking the batch,
 * allocating and closing the intermediate vectors. So the share of that fixed cost in a batch of
 * 8192 rows is {@code time(rows=1) / time(rows=8192)} of {@code quiver}; {@link BenchReport}
 * prints it. The project's target: under 5%. {@code interpreter} is {@link PerRowBaseline} on the
 * same batches, for scale.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class DispatchBenchmark extends WorkloadBenchmark {
    public static final String SQL =
            "(a > 0.1 AND b IS NOT NULL) OR (NOT (c >= 0.5) AND d IS NOT NULL) OR (a <> b AND c IS NOT NULL)";
    public static final int NODES = 20;

    @Param({"1", "8192"})
    public int rows;

    /** The workload of one batch of {@code rows} rows. */
    public static Workload workload(int rows) {
        return new Workload(SQL, List.of("a", "b", "c", "d"), rows, rows, 0.01, 3L);
    }

    @Setup(Level.Trial)
    public void load() {
        loaded = LoadedWorkload.load(workload(rows));
        if (loaded.physicalNodes() != NODES) {
            int nodes = loaded.physicalNodes();
            String plan = loaded.compiled().plan().explain();
            loaded.close();
            throw new IllegalStateException(SQL + " plans to " + nodes + " nodes, not " + NODES + ":\n" + plan);
        }
    }
}
