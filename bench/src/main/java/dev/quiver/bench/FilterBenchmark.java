package dev.quiver.bench;

import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A dense filter of one column: {@code Kernels.filter} of a 64K-row Float64 ({@code type =
 * float64}), Int32, Int16 or Int8 column (random bits, every row valid) by a selection keeping
 * each row with probability {@code density} (fixed seed), the result closed; in ns per input row
 * (the result's allocation and validity included). {@code vectorCompress}: as the machine runs it
 * (the Vector API's {@code compress} where it is one instruction: AVX-512, with AVX512_VBMI2 for
 * Int16 and Int8, or SVE for Float64 and Int32); {@code runs}: the walk run by run
 * ({@code -Dquiver.kernels.vectorCompress=false}), what runs anyway where the hardware lacks it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@OperationsPerInvocation(FilterBenchmark.ROWS)
@State(Scope.Benchmark)
public class FilterBenchmark {
    public static final int ROWS = 64 << 10;
    public static final long SEED = 1L;

    @Param({"0.5", "0.98"})
    public double density;

    @Param({"float64", "int32", "int16", "int8"})
    public String type;

    private BufferAllocator allocator;
    private BaseFixedWidthVector column;
    private Selection selection;

    @Setup(Level.Trial)
    public void load() {
        allocator = new RootAllocator();
        SplittableRandom random = new SplittableRandom(SEED);
        column = switch (type) {
            case "float64" -> new Float8Vector("x", allocator);
            case "int32" -> new IntVector("x", allocator);
            case "int16" -> new SmallIntVector("x", allocator);
            case "int8" -> new TinyIntVector("x", allocator);
            default -> throw new IllegalArgumentException("type " + type);
        };
        column.setInitialCapacity(ROWS);
        column.allocateNew();
        // Random bits as values (a filter does not read them), every row valid.
        long bytes = (long) ROWS * column.getTypeWidth();
        for (long at = 0; at < bytes; at += 8) {
            column.getDataBuffer().setLong(at, random.nextLong());
        }
        for (int r = 0; r < ROWS; r++) {
            BitVectorHelper.setBit(column.getValidityBuffer(), r);
        }
        column.setValueCount(ROWS);
        long[] words = new long[ROWS >>> 6];
        for (int r = 0; r < ROWS; r++) {
            if (random.nextDouble() < density) {
                words[r >>> 6] |= 1L << r;
            }
        }
        selection = Selection.ofWords(words, ROWS);
    }

    @TearDown(Level.Trial)
    public void free() {
        column.close();
        allocator.close();
    }

    private int filter() {
        try (FieldVector kept = Kernels.filter(column, selection, allocator)) {
            return kept.getValueCount();
        }
    }

    @Benchmark
    @Fork(
            value = 1,
            jvmArgsAppend = {"-Xmx1g"})
    public int vectorCompress() {
        return filter();
    }

    @Benchmark
    @Fork(
            value = 1,
            jvmArgsAppend = {"-Xmx1g", "-Dquiver.kernels.vectorCompress=false"})
    public int runs() {
        return filter();
    }
}
