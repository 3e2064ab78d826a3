package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.backend.ResidencyScope;
import dev.quiver.cli.CliFunctions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
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
 * Common subexpressions across a projection's expressions: {@link #PROJECTION}, four columns that
 * each call the guide's {@code haversine} RowFn on the same arguments, over {@link #ROWS} rows of
 * {@link Haversine}'s points in batches of {@link #BATCH_ROWS}, on the CPU. One operation projects
 * every batch and frees the results.
 * <ul>
 * <li>{@code eachAlone}: each expression compiled on its own ({@link Quiver#compile}) and
 *     evaluated over the batch in turn, one residency scope for the batch, as a projection's
 *     columns were evaluated before they were planned together: haversine runs four times a batch;</li>
 * <li>{@code plannedTogether}: {@link Quiver#compileProjection}: haversine is one shared node,
 *     computed once a batch and read by the four.</li>
 * </ul>
 * The figure to read is {@code eachAlone / plannedTogether} (docs/evaluation.md, "Common
 * subexpressions").
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class SharedSubexpressionBenchmark {
    public static final int ROWS = 1 << 20;
    public static final int BATCH_ROWS = 64 << 10;
    public static final String HAVERSINE = Haversine.SQL;
    public static final List<String> PROJECTION = List.of(
            HAVERSINE + " AS km",
            HAVERSINE + " * 0.621371 AS miles",
            "CASE WHEN " + HAVERSINE + " > 5000 THEN 'far' ELSE 'near' END AS band",
            HAVERSINE + " / 900 AS flight_hours");
    public static final long SEED = 20261202L;

    private BufferAllocator allocator;
    private Quiver quiver;
    private List<VectorSchemaRoot> batches = List.of();
    private CompiledProjection together;
    private List<CompiledExpression> alone;

    @Setup(Level.Trial)
    public void load() {
        allocator = new RootAllocator();
        try {
            quiver = Quiver.builder().allocator(allocator).openCl(false).build();
            quiver.functions().register(CliFunctions.haversine());
            Schema schema = Haversine.schema();
            together = quiver.compileProjection(schema, PROJECTION);
            alone = PROJECTION.stream().map(c -> quiver.compile(schema, c)).toList();
            batches = Haversine.generate(allocator, SEED, ROWS, BATCH_ROWS);
        } catch (RuntimeException | Error e) {
            free();
            throw e;
        }
    }

    @TearDown(Level.Trial)
    public void free() {
        batches.forEach(VectorSchemaRoot::close);
        if (quiver != null) {
            quiver.close();
        }
        allocator.close();
    }

    @Benchmark
    public long eachAlone() {
        long rows = 0;
        for (VectorSchemaRoot b : batches) {
            List<FieldVector> out = new ArrayList<>(alone.size());
            try (ResidencyScope scope = new ResidencyScope()) {
                for (CompiledExpression c : alone) {
                    out.add(c.evaluate(b, Placement.CPU, allocator, scope));
                    rows += out.getLast().getValueCount();
                }
            } finally {
                out.forEach(FieldVector::close);
            }
        }
        return rows;
    }

    @Benchmark
    public long plannedTogether() {
        long rows = 0;
        for (VectorSchemaRoot b : batches) {
            try (VectorSchemaRoot out = together.project(b, Placement.CPU, allocator)) {
                rows += (long) out.getRowCount() * out.getFieldVectors().size();
            }
        }
        return rows;
    }
}
