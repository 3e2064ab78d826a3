package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
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
 * A filter and a projection over a wide table, {@link #ROWS} rows of {@link #COLUMNS} Float64
 * columns (no nulls) in batches of {@link #BATCH_ROWS}, of which the query reads three:
 * {@code SELECT c1 * c2 AS p, c2 WHERE c0 < 0.3} (c0 uniform in [0, 1): 30% kept, scattered). One
 * operation projects every batch on the CPU and frees the results.
 * <ul>
 * <li>{@code copyEveryColumn}: what {@link CompiledProjection#project} did before it evaluated on
 *     the filter's selection, written out with the public API: {@link CompiledExpression#filter}
 *     (every column of the kept rows copied), then each expression evaluated on the copy (the bare
 *     {@code c2} copied once more);</li>
 * <li>{@code onTheSelection}: {@link CompiledProjection#project} (only c1 and c2 compacted, once
 *     each; {@code c2} is its compacted column);</li>
 * <li>{@code passThroughCopied} and {@code passThroughShared}: {@code SELECT c1, c1 * c2 AS p}
 *     without a filter, each expression evaluated on its own (c1 copied) against the projection
 *     (c1 shares the batch's buffers).</li>
 * </ul>
 * The figures to read are {@code copyEveryColumn / onTheSelection} and
 * {@code passThroughCopied / passThroughShared} (docs/evaluation.md, "Filtering and projecting
 * batches").
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class ProjectionBenchmark {
    public static final int ROWS = 4 << 20;
    public static final int BATCH_ROWS = 64 << 10;
    public static final int COLUMNS = 10;
    public static final String FILTER = "c0 < 0.3";
    public static final List<String> PROJECTION = List.of("c1 * c2 AS p", "c2");
    public static final List<String> PASS_THROUGH = List.of("c1", "c1 * c2 AS p");
    public static final long SEED = 20260426L;

    private BufferAllocator allocator;
    private Quiver quiver;
    private List<VectorSchemaRoot> batches = List.of();
    private CompiledProjection projection;
    private CompiledExpression filter;
    private List<CompiledExpression> columns;
    private CompiledProjection passThrough;

    /** The table's schema: c0 .. c9, Float64. */
    public static Schema schema() {
        List<Field> fields = new ArrayList<>();
        for (int c = 0; c < COLUMNS; c++) {
            fields.add(DataType.FLOAT64.toField("c" + c, true));
        }
        return new Schema(fields);
    }

    @Setup(Level.Trial)
    public void load() {
        allocator = new RootAllocator();
        try {
            quiver = Quiver.builder().allocator(allocator).openCl(false).build();
            Schema schema = schema();
            projection = quiver.compileProjection(schema, FILTER, PROJECTION);
            filter = projection.filter().orElseThrow();
            columns = projection.columns();
            passThrough = quiver.compileProjection(schema, PASS_THROUGH);
            SplittableRandom random = new SplittableRandom(SEED);
            List<VectorSchemaRoot> made = new ArrayList<>();
            batches = made;
            for (int from = 0; from < ROWS; from += BATCH_ROWS) {
                VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator);
                made.add(b);
                for (int c = 0; c < COLUMNS; c++) {
                    Float8Vector v = (Float8Vector) b.getVector(c);
                    v.allocateNew(BATCH_ROWS);
                    for (int r = 0; r < BATCH_ROWS; r++) {
                        v.set(r, random.nextDouble());
                    }
                }
                b.setRowCount(BATCH_ROWS);
            }
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
    public long copyEveryColumn() {
        long rows = 0;
        for (VectorSchemaRoot b : batches) {
            try (VectorSchemaRoot kept = filter.filter(b, Placement.CPU, allocator)) {
                List<FieldVector> out = new ArrayList<>(columns.size());
                try {
                    for (CompiledExpression c : columns) {
                        out.add(c.evaluate(kept, Placement.CPU, allocator));
                    }
                    rows += out.getFirst().getValueCount();
                } finally {
                    out.forEach(FieldVector::close);
                }
            }
        }
        return rows;
    }

    @Benchmark
    public long onTheSelection() {
        long rows = 0;
        for (VectorSchemaRoot b : batches) {
            try (VectorSchemaRoot out = projection.project(b, Placement.CPU, allocator)) {
                rows += out.getRowCount();
            }
        }
        return rows;
    }

    @Benchmark
    public long passThroughCopied() {
        long rows = 0;
        for (VectorSchemaRoot b : batches) {
            List<FieldVector> out = new ArrayList<>(passThrough.columns().size());
            try {
                for (CompiledExpression c : passThrough.columns()) {
                    out.add(c.evaluate(b, Placement.CPU, allocator));
                    rows += out.getLast().getValueCount();
                }
            } finally {
                out.forEach(FieldVector::close);
            }
        }
        return rows;
    }

    @Benchmark
    public long passThroughShared() {
        long rows = 0;
        for (VectorSchemaRoot b : batches) {
            try (VectorSchemaRoot out = passThrough.project(b, Placement.CPU, allocator)) {
                rows += (long) out.getRowCount() * out.getFieldVectors().size();
            }
        }
        return rows;
    }
}
