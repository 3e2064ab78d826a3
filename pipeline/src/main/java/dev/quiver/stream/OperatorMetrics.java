package dev.quiver.stream;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/** What one operator did, summed over the partitions of an execution. Thread-safe. */
public final class OperatorMetrics {
    private final LongAdder batchesOut = new LongAdder();
    private final LongAdder rowsOut = new LongAdder();
    private final LongAdder rowsIn = new LongAdder();
    private final LongAdder cpuNanos = new LongAdder();

    void batchOut(int rows) {
        batchesOut.increment();
        rowsOut.add(rows);
    }

    void rowsIn(int rows) {
        rowsIn.add(rows);
    }

    void cpu(long nanos) {
        cpuNanos.add(nanos);
    }

    public long batchesOut() {
        return batchesOut.sum();
    }

    public long rowsOut() {
        return rowsOut.sum();
    }

    public long rowsIn() {
        return rowsIn.sum();
    }

    /** Time spent computing on worker threads (not waiting). */
    public long cpuNanos() {
        return cpuNanos.sum();
    }

    String describe() {
        return String.format(
                Locale.ROOT,
                "rows in=%d out=%d, batches out=%d, compute=%.3f ms",
                rowsIn(),
                rowsOut(),
                batchesOut(),
                cpuNanos() / 1e6);
    }
}
