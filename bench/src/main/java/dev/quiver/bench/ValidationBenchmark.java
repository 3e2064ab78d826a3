package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.validation.BatchValidation;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.ValueVectorUtility;
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
 * What checking a batch costs against computing on it, over {@link StringBatches}' strings (ASCII,
 * 5 to 20 characters, 1% nulls) in batches of 64K rows; one operation handles one batch
 * (the batches taken in turn, 64 of them, 4M rows):
 * <ul>
 * <li>{@code checkQuiver}: {@link BatchValidation#checkColumn} of the string column, what every
 *     evaluation now does first (buffer sizes, one Vector API pass over the offsets);</li>
 * <li>{@code checkArrowBuffers}: Arrow's {@code ValueVectorUtility.validate} (type and buffer
 *     sizes only: it does not look at the offsets between the first and the last);</li>
 * <li>{@code checkArrowFull}: Arrow's {@code ValueVectorUtility.validateFull} (also every offset:
 *     the check Quiver's does, one bounds-checked read and boxed message arguments per offset);</li>
 * <li>{@code lengthQuiver}: {@code length(s)} evaluated on the CPU, the check included.</li>
 * </ul>
 * The figure to read is {@code checkQuiver / lengthQuiver}: the share of a cheap string
 * expression's time that the check takes (docs/evaluation.md, "Malformed batches").
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ValidationBenchmark {
    public static final int BATCH_ROWS = 64 << 10;
    public static final int BATCHES = 64;
    public static final long SEED = 20251201L;

    private BufferAllocator allocator;
    private Quiver quiver;
    private CompiledExpression length;
    private List<VectorSchemaRoot> batches = List.of();
    private int next;

    @Setup(Level.Trial)
    public void load() {
        allocator = new RootAllocator();
        try {
            quiver = Quiver.builder().allocator(allocator).openCl(false).build();
            length = quiver.compile(StringBatches.schema(), "length(s)");
            batches = StringBatches.generate(allocator, SEED, (long) BATCHES * BATCH_ROWS, BATCH_ROWS);
            for (VectorSchemaRoot b : batches) {
                BatchValidation.checkColumn(b.getVector(0), "s"); // valid, or the figures mean nothing
                ValueVectorUtility.validateFull(b.getVector(0));
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

    private FieldVector nextColumn() {
        FieldVector s = batches.get(next).getVector(0);
        next = (next + 1) % batches.size();
        return s;
    }

    @Benchmark
    public FieldVector checkQuiver() {
        FieldVector s = nextColumn();
        BatchValidation.checkColumn(s, "s");
        return s;
    }

    @Benchmark
    public FieldVector checkArrowBuffers() {
        FieldVector s = nextColumn();
        ValueVectorUtility.validate(s);
        return s;
    }

    @Benchmark
    public FieldVector checkArrowFull() {
        FieldVector s = nextColumn();
        ValueVectorUtility.validateFull(s);
        return s;
    }

    @Benchmark
    public int lengthQuiver() {
        VectorSchemaRoot batch = batches.get(next);
        next = (next + 1) % batches.size();
        try (FieldVector out = length.evaluate(batch, Placement.CPU, allocator)) {
            return out.getValueCount();
        }
    }
}
