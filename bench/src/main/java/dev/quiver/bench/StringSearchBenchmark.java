package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.types.DataType;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
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

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * {@code contains(s, 'abc')} over one batch of 16M ASCII strings of 5 to 20 characters, about 10%
 * of them holding {@code 'abc'}, against the baseline the issue names: a per-row loop of
 * {@code VarCharVector.get(i)}, {@code new String(...)} and {@code String.contains}. Also
 * {@code s LIKE '%abc%'}, whose CONTAINS strategy shares the search ({@code Needle.searchRows}), for
 * comparison. {@link BenchReport} prints the speedup of {@code contains} over the baseline.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class StringSearchBenchmark {
    /** Rows in the batch. */
    public static final int ROWS = 16 << 20;

    private BufferAllocator allocator;
    private Quiver quiver;
    private VectorSchemaRoot batch;
    private VarCharVector strings;
    private CompiledExpression contains;
    private CompiledExpression like;

    @Setup(Level.Trial)
    public void load() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).build();
        Schema schema = new Schema(List.of(DataType.UTF8.toField("s", true)));
        batch = VectorSchemaRoot.create(schema, allocator);
        strings = (VarCharVector) batch.getVector(0);
        strings.allocateNew((long) ROWS * 13, ROWS);
        Random random = new Random(42);
        byte[] row = new byte[20];
        for (int i = 0; i < ROWS; i++) {
            int length = 5 + random.nextInt(16);
            for (int k = 0; k < length; k++) {
                row[k] = (byte) ('a' + random.nextInt(26));
            }
            for (int k = 0; k + 2 < length; k++) {
                if (row[k] == 'a' && row[k + 1] == 'b' && row[k + 2] == 'c') {
                    row[k] = 'x'; // only the planted 10% hold the needle
                }
            }
            if (random.nextInt(10) == 0) {
                int at = random.nextInt(length - 2);
                row[at] = 'a';
                row[at + 1] = 'b';
                row[at + 2] = 'c';
            }
            strings.setSafe(i, row, 0, length);
        }
        strings.setValueCount(ROWS);
        batch.setRowCount(ROWS);
        contains = quiver.compile(schema, "contains(s, 'abc')");
        like = quiver.compile(schema, "s LIKE '%abc%'");
    }

    @TearDown(Level.Trial)
    public void free() {
        batch.close();
        quiver.close();
        allocator.close();
    }

    /** The baseline: one String per row. */
    @Benchmark
    public int perRowString() {
        int hits = 0;
        for (int i = 0; i < ROWS; i++) {
            if (!strings.isNull(i) && new String(strings.get(i), StandardCharsets.UTF_8).contains("abc")) {
                hits++;
            }
        }
        return hits;
    }

    @Benchmark
    public int quiver() {
        try (FieldVector out = contains.evaluate(batch, Placement.CPU)) {
            return ((BitVector) out).getValueCount();
        }
    }

    @Benchmark
    public int like() {
        try (FieldVector out = like.evaluate(batch, Placement.CPU)) {
            return ((BitVector) out).getValueCount();
        }
    }
}
