package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.strings.Utf8;
import dev.quiver.strings.Utf8Input;
import dev.quiver.validation.BatchValidation;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.ValueVectorUtility;
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
 * <li>{@code lengthQuiver}: {@code length(s)} evaluated on the CPU, the check included;</li>
 * <li>{@code asciiQuiver}: {@link Utf8#isAscii} over the data buffer of one {@link Comments}
 *     column (64K rows of 20 to 34 bytes, 27 on average, about 1.8 MB);</li>
 * <li>{@code utf8CheckQuiver}: {@link Utf8Input#check} of that column, the check an expression
 *     that reads a Utf8 column runs (the ASCII test, then per row where it fails);</li>
 * <li>{@code offsetsQuiver}: {@link BatchValidation#checkColumn} of that column, one batch over
 *     and over (its 256 KB of offsets stay in cache, where {@code checkQuiver}'s 64 batches
 *     need not).</li>
 * </ul>
 * The figure to read is {@code checkQuiver / lengthQuiver}: the share of a cheap string
 * expression's time that the check takes (docs/evaluation.md, "Malformed batches"). For the
 * ASCII test, bytes per nanosecond: {@link Comments#bytes} over the time per operation.
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

    /**
     * One Utf8 column of {@link ValidationBenchmark#BATCH_ROWS} rows of 20 to 34 printable ASCII
     * bytes (uniform, 27 on average, no nulls), like TPC-H's comments. {@code text}:
     * <ul>
     * <li>{@code ascii}: every row ASCII;</li>
     * <li>{@code asciiAfterHeap}: the same, after the ASCII test has run on heap segments (as in
     *     tests and on dictionaries), so a profile that has seen both kinds of segment is measured;</li>
     * <li>{@code accented}: one row in 16 holds an {@code é} (two bytes), so the ASCII test fails
     *     and every row is validated by itself.</li>
     * </ul>
     */
    @State(Scope.Benchmark)
    public static class Comments {
        @Param({"ascii", "asciiAfterHeap", "accented"})
        public String text;

        private BufferAllocator allocator;
        private VarCharVector column;
        private MemorySegment data;
        /** The bytes of the column's data buffer that the ASCII test reads. */
        public long bytes;

        @Setup(Level.Trial)
        public void load() {
            allocator = new RootAllocator();
            column = new VarCharVector("c", allocator);
            column.allocateNew((long) BATCH_ROWS * 34, BATCH_ROWS);
            SplittableRandom random = new SplittableRandom(SEED);
            byte[] row = new byte[34];
            byte[] accent = "\u00e9".getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < BATCH_ROWS; i++) {
                int length = 20 + random.nextInt(15);
                for (int j = 0; j < length; j++) {
                    row[j] = (byte) (' ' + random.nextInt('~' - ' ' + 1));
                }
                if (text.equals("accented") && i % 16 == 0) {
                    int at = random.nextInt(length - 1);
                    row[at] = accent[0];
                    row[at + 1] = accent[1];
                }
                column.setSafe(i, row, 0, length);
            }
            column.setValueCount(BATCH_ROWS);
            bytes = column.getOffsetBuffer().getInt((long) BATCH_ROWS * 4);
            data = MemorySegment.ofAddress(column.getDataBuffer().memoryAddress())
                    .reinterpret(bytes);
            if (text.equals("asciiAfterHeap")) {
                byte[] heap = data.toArray(ValueLayout.JAVA_BYTE);
                MemorySegment h = MemorySegment.ofArray(heap);
                boolean all = true;
                for (int k = 0; k < 20_000; k++) {
                    all &= Utf8.isAscii(h, k % 64, heap.length - (k % 64));
                    all &= Utf8.isAscii(h, k % 300, k % 300 + k % 997);
                }
                if (!all) {
                    throw new IllegalStateException("the heap copy is not all ASCII");
                }
            }
            if (Utf8.isAscii(data, 0, bytes) != !text.equals("accented")) {
                throw new IllegalStateException("the ASCII test is wrong on " + text);
            }
            Utf8Input.check(column, "c"); // valid, or the figures mean nothing
        }

        @TearDown(Level.Trial)
        public void free() {
            column.close();
            allocator.close();
        }
    }

    @Benchmark
    public boolean asciiQuiver(Comments c) {
        return Utf8.isAscii(c.data, 0, c.bytes);
    }

    @Benchmark
    public VarCharVector offsetsQuiver(Comments c) {
        BatchValidation.checkColumn(c.column, "c");
        return c.column;
    }

    @Benchmark
    public VarCharVector utf8CheckQuiver(Comments c) {
        Utf8Input.check(c.column, "c");
        return c.column;
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
