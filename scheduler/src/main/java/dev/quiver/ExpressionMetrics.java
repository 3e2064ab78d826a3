package dev.quiver;

import dev.quiver.backend.KernelRun;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a {@link CompiledExpression} has run, per device: batches, rows, kernel time and bytes
 * copied between host and device (zero where the device reads Arrow memory in place), the
 * batches that failed on a device and were recomputed on the CPU, and the scheduler's own time.
 * Thread-safe and lock-free: counters are {@link LongAdder}s.
 */
public final class ExpressionMetrics {

    /**
     * Totals for one device.
     *
     * @param fallbacks batches that failed on this device and were recomputed on the CPU
     *                  (counted on the device that failed; the CPU's run is counted on the CPU)
     */
    public record DeviceTotals(long batches, long rows, long nanos, long bytesCopied, long fallbacks, String lastReason) {
    }

    private static final class Totals {
        final LongAdder batches = new LongAdder(), rows = new LongAdder(), nanos = new LongAdder(), bytes = new LongAdder(),
                fallbacks = new LongAdder();
        final java.util.concurrent.atomic.AtomicReference<CompiledExpression.Choice> last =
                new java.util.concurrent.atomic.AtomicReference<>();
    }

    /** One kernel run in this many has the scheduler's own time measured. */
    static final int SAMPLE = 8;

    private final ConcurrentHashMap<String, Totals> byDevice = new ConcurrentHashMap<>();
    private final LongAdder sampledNanos = new LongAdder(), sampled = new LongAdder(), memoryFallbacks = new LongAdder();

    void record(String device, int rows, KernelRun run, CompiledExpression.Choice choice) {
        Totals t = totals(device);
        t.batches.increment();
        t.rows.add(rows);
        t.nanos.add(run.nanos());
        long copied = run.bytesCopied();
        if (copied != 0) {
            t.bytes.add(copied);
        }
        t.last.lazySet(choice); // a reason for EXPLAIN: no fence needed
    }

    void fallback(String device, boolean memory) {
        totals(device).fallbacks.increment();
        if (memory) {
            memoryFallbacks.increment();
        }
    }

    void scheduled(long nanos) {
        sampledNanos.add(nanos);
        sampled.increment();
    }

    private Totals totals(String device) {
        Totals t = byDevice.get(device);
        return t != null ? t : byDevice.computeIfAbsent(device, k -> new Totals());
    }

    public Map<String, DeviceTotals> byDevice() {
        Map<String, DeviceTotals> out = new TreeMap<>();
        byDevice.forEach((d, t) -> {
            CompiledExpression.Choice last = t.last.get();
            out.put(d, new DeviceTotals(t.batches.sum(), t.rows.sum(), t.nanos.sum(), t.bytes.sum(), t.fallbacks.sum(),
                    last == null ? null : last.reason()));
        });
        return Map.copyOf(out);
    }

    /** Bytes copied between host and devices over all batches. */
    public long bytesCopied() {
        return byDevice.values().stream().mapToLong(t -> t.bytes.sum()).sum();
    }

    /** Batches recomputed on the CPU after a device failed (or lacked memory). */
    public long fallbacks() {
        return byDevice.values().stream().mapToLong(t -> t.fallbacks.sum()).sum();
    }

    /** Kernel runs placed and recorded: one per kernel segment per batch (a batch recomputed on the CPU after a failure counts once, on the CPU). */
    public long decisions() {
        return byDevice.values().stream().mapToLong(t -> t.batches.sum()).sum();
    }

    /**
     * The scheduler's own time over all decisions (choosing a device, then recording and learning
     * from the run), nanoseconds: measured on a random sample of one run in {@value #SAMPLE} and
     * scaled to all of them.
     */
    public long schedulerNanos() {
        long n = sampled.sum();
        return n == 0 ? 0 : Math.round(sampledNanos.sum() / (double) n * decisions());
    }

    String describe() {
        Map<String, DeviceTotals> all = byDevice();
        if (all.isEmpty()) {
            return "  no batches evaluated yet\n";
        }
        StringBuilder sb = new StringBuilder();
        all.forEach((d, t) -> {
            sb.append(String.format("  ran on %s: %d batches, %d rows, %.3f ms, %d bytes copied (last: %s)", d, t.batches(),
                    t.rows(), t.nanos() / 1e6, t.bytesCopied(), t.lastReason()));
            if (t.fallbacks() > 0) {
                sb.append(", ").append(t.fallbacks()).append(" failed and recomputed on the cpu");
            }
            sb.append('\n');
        });
        long n = decisions();
        long k = sampled.sum();
        if (n > 0 && k > 0) {
            sb.append(String.format(java.util.Locale.ROOT, "  scheduler: %d kernel runs placed, %.0f ns each on average"
                    + " (timed on %d of them)%n", n, sampledNanos.sum() / (double) k, k));
        }
        return sb.toString();
    }
}
