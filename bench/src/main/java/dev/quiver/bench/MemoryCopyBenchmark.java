package dev.quiver.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * The machine's copy bandwidth, the ceiling of any kernel that streams its inputs: one operation
 * copies every buffer (values and validity) of {@link BooleanLogicBenchmark}'s batches into
 * buffers of the same sizes, allocated once. {@link BenchReport} prints it as GB/s (bytes read
 * plus bytes written) next to the GB/s of the other benchmarks.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class MemoryCopyBenchmark {
    private BufferAllocator allocator;
    private List<VectorSchemaRoot> batches;
    private final List<ArrowBuf> sources = new ArrayList<>();
    private final List<ArrowBuf> targets = new ArrayList<>();
    private final List<Long> lengths = new ArrayList<>();

    @Setup(Level.Trial)
    public void load() {
        Workload w = BooleanLogicBenchmark.WORKLOAD;
        allocator = new RootAllocator();
        batches = UniformBatches.generate(w.schema(), allocator, w.seed(), w.rows(), w.batchRows(), w.nullFraction());
        for (VectorSchemaRoot batch : batches) {
            for (FieldVector v : batch.getFieldVectors()) {
                int n = v.getValueCount();
                addCopy(v.getValidityBuffer(), (n + 7) / 8);
                addCopy(v.getDataBuffer(), n * 8L);
            }
        }
    }

    private void addCopy(ArrowBuf source, long bytes) {
        sources.add(source);
        lengths.add(bytes);
        targets.add(allocator.buffer(bytes));
    }

    /** Bytes read plus bytes written by one operation. */
    public static long bytesMoved() {
        Workload w = BooleanLogicBenchmark.WORKLOAD;
        long validity = (w.batchRows() + 7) / 8;
        return 2 * w.batches() * w.columns().size() * (w.batchRows() * 8L + validity);
    }

    @TearDown(Level.Trial)
    public void free() {
        targets.forEach(ArrowBuf::close);
        batches.forEach(VectorSchemaRoot::close);
        allocator.close();
    }

    @Benchmark
    public long copy() {
        long bytes = 0;
        for (int i = 0; i < sources.size(); i++) {
            long length = lengths.get(i);
            targets.get(i).setBytes(0, sources.get(i), 0, length);
            bytes += length;
        }
        return bytes;
    }
}
