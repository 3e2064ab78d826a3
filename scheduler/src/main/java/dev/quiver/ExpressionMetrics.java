package dev.quiver;

import dev.quiver.backend.KernelRun;
import dev.quiver.placement.Choice;
import dev.quiver.placement.RunRecorder;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a {@link CompiledExpression} has run: batches evaluated (and the last one's
 * {@link BatchReport}); per device, the batches its kernels ran, rows, kernel time and bytes
 * copied each way between host and device (zero where the device reads Arrow memory in place:
 * the CPU, and OpenCL devices in {@link dev.quiver.opencl.TransferMode#ZERO_COPY zero-copy} mode),
 * the batches that failed on a device and were recomputed on the CPU, and the scheduler's own time.
 * Thread-safe and lock-free: counters are {@link LongAdder}s, the last batch one volatile reference.
 */
public final class ExpressionMetrics {

    /**
     * Totals for one device. A batch counts on every device that ran one of its kernel segments
     * (once per segment), so {@code batches} are kernel runs; the per-batch figures divide by them.
     *
     * @param bytesToDevice   bytes explicitly written from host memory to the device
     * @param bytesFromDevice bytes explicitly read back from the device to host memory
     * @param fallbacks       batches that failed on this device and were recomputed on the CPU
     *                        (counted on the device that failed; the CPU's run is counted on the CPU)
     */
    public record DeviceTotals(
            long batches,
            long rows,
            long nanos,
            long bytesToDevice,
            long bytesFromDevice,
            long fallbacks,
            String lastReason) {
        /** Bytes copied both ways. */
        public long bytesCopied() {
            return bytesToDevice + bytesFromDevice;
        }

        /** Mean bytes written to the device per batch it ran (0 before any). */
        public double bytesToDevicePerBatch() {
            return batches == 0 ? 0 : bytesToDevice / (double) batches;
        }

        /** Mean bytes read back from the device per batch it ran (0 before any). */
        public double bytesFromDevicePerBatch() {
            return batches == 0 ? 0 : bytesFromDevice / (double) batches;
        }
    }

    /**
     * One evaluated batch: what {@link CompiledExpression#lastBatch()} gives.
     *
     * @param rows            the batch's rows
     * @param devices         the devices its kernel segments ran on, in the order they first ran (a
     *                        device that failed and was replaced by the CPU is not one); empty when the
     *                        plan ran no fused kernel
     * @param kernelRuns      kernel segments run (one per segment of the plan that had rows to compute)
     * @param bytesToDevice   bytes explicitly written to devices, all segments together
     * @param bytesFromDevice bytes explicitly read back from devices
     * @param kernelNanos     time in kernel runs
     * @param nanos           wall time of the whole evaluation (host kernels, allocation and kernel runs)
     */
    public record BatchReport(
            int rows,
            List<String> devices,
            int kernelRuns,
            long bytesToDevice,
            long bytesFromDevice,
            long kernelNanos,
            long nanos) {
        public BatchReport {
            devices = List.copyOf(devices);
        }

        /** Bytes copied both ways. */
        public long bytesCopied() {
            return bytesToDevice + bytesFromDevice;
        }

        String describe() {
            return String.format(
                    Locale.ROOT,
                    "%d rows on %s, %d kernel run%s, %d B to device, %d B from device, %.3f ms",
                    rows,
                    devices.isEmpty() ? "host kernels only" : String.join(" + ", devices),
                    kernelRuns,
                    kernelRuns == 1 ? "" : "s",
                    bytesToDevice,
                    bytesFromDevice,
                    nanos / 1e6);
        }
    }

    private static final class Totals {
        final LongAdder batches = new LongAdder(),
                rows = new LongAdder(),
                nanos = new LongAdder(),
                toDevice = new LongAdder(),
                fromDevice = new LongAdder(),
                fallbacks = new LongAdder();
        final AtomicReference<Choice> last = new AtomicReference<>();
    }

    /** What placement reports each kernel run to: these metrics, and nothing a user can call. */
    private final RunRecorder recorder = new RunRecorder() {
        @Override
        public void ran(Device device, int rows, KernelRun run, Choice choice) {
            record(device.name(), rows, run, choice);
        }

        @Override
        public void fellBack(Device device, boolean memory) {
            fallback(device.name(), memory);
        }

        @Override
        public void scheduled(long nanos) {
            ExpressionMetrics.this.scheduled(nanos);
        }
    };

    RunRecorder recorder() {
        return recorder;
    }

    private final ConcurrentHashMap<String, Totals> byDevice = new ConcurrentHashMap<>();
    private final LongAdder sampledNanos = new LongAdder(),
            sampled = new LongAdder(),
            memoryFallbacks = new LongAdder();
    private final LongAdder evaluated = new LongAdder(),
            evaluatedRows = new LongAdder(),
            evaluatedNanos = new LongAdder();
    private volatile BatchReport lastBatch;

    private void record(String device, int rows, KernelRun run, Choice choice) {
        Totals t = totals(device);
        t.batches.increment();
        t.rows.add(rows);
        t.nanos.add(run.nanos());
        if (run.bytesToDevice() != 0) {
            t.toDevice.add(run.bytesToDevice());
        }
        if (run.bytesFromDevice() != 0) {
            t.fromDevice.add(run.bytesFromDevice());
        }
        t.last.lazySet(choice); // a reason for EXPLAIN: no fence needed
    }

    /** A batch was evaluated (its kernel runs are recorded already). */
    void batch(BatchReport report) {
        evaluated.increment();
        evaluatedRows.add(report.rows());
        evaluatedNanos.add(report.nanos());
        lastBatch = report;
    }

    private void fallback(String device, boolean memory) {
        totals(device).fallbacks.increment();
        if (memory) {
            memoryFallbacks.increment();
        }
    }

    private void scheduled(long nanos) {
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
            Choice last = t.last.get();
            out.put(
                    d,
                    new DeviceTotals(
                            t.batches.sum(),
                            t.rows.sum(),
                            t.nanos.sum(),
                            t.toDevice.sum(),
                            t.fromDevice.sum(),
                            t.fallbacks.sum(),
                            last == null ? null : last.reason()));
        });
        return Map.copyOf(out);
    }

    /** The most recently evaluated batch (of those that completed), or empty before any. */
    public Optional<BatchReport> lastBatch() {
        return Optional.ofNullable(lastBatch);
    }

    /** Batches evaluated to the end (each once, however many kernel segments ran in it). */
    public long batches() {
        return evaluated.sum();
    }

    /** Rows of the batches evaluated. */
    public long rows() {
        return evaluatedRows.sum();
    }

    /** Bytes written from host memory to devices over all batches. */
    public long bytesToDevice() {
        return byDevice.values().stream().mapToLong(t -> t.toDevice.sum()).sum();
    }

    /** Bytes read back from devices to host memory over all batches. */
    public long bytesFromDevice() {
        return byDevice.values().stream().mapToLong(t -> t.fromDevice.sum()).sum();
    }

    /** Bytes copied between host and devices, both ways, over all batches. */
    public long bytesCopied() {
        return bytesToDevice() + bytesFromDevice();
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
     * from the run), nanoseconds: measured on a random sample of one run in {@value RunRecorder#SAMPLE} and
     * scaled to all of them.
     */
    public long schedulerNanos() {
        long n = sampled.sum();
        return n == 0 ? 0 : Math.round(sampledNanos.sum() / (double) n * decisions());
    }

    String describe() {
        Map<String, DeviceTotals> all = byDevice();
        long n = evaluated.sum();
        if (all.isEmpty() && n == 0) {
            return "  no batches evaluated yet\n";
        }
        StringBuilder sb = new StringBuilder();
        if (n > 0) {
            long to = bytesToDevice(), from = bytesFromDevice();
            sb.append(String.format(
                    Locale.ROOT,
                    "  batches: %d evaluated, %d rows, %.3f ms, %d B to devices, %d B from devices;"
                            + " per batch %.0f rows, %.3f ms, %.0f B to devices, %.0f B from devices%n",
                    n,
                    evaluatedRows.sum(),
                    evaluatedNanos.sum() / 1e6,
                    to,
                    from,
                    evaluatedRows.sum() / (double) n,
                    evaluatedNanos.sum() / 1e6 / n,
                    to / (double) n,
                    from / (double) n));
            BatchReport last = lastBatch;
            if (last != null) {
                sb.append("  last batch: ").append(last.describe()).append('\n');
            }
        }
        all.forEach((d, t) -> {
            sb.append(String.format(
                    Locale.ROOT,
                    "  ran on %s: %d batches, %d rows, %.3f ms, %d B to device, %d B from device",
                    d,
                    t.batches(),
                    t.rows(),
                    t.nanos() / 1e6,
                    t.bytesToDevice(),
                    t.bytesFromDevice()));
            if (t.batches() > 0) {
                sb.append(String.format(
                        Locale.ROOT,
                        "; per batch %.0f rows, %.3f ms, %.0f B to device, %.0f B from device",
                        t.rows() / (double) t.batches(),
                        t.nanos() / 1e6 / t.batches(),
                        t.bytesToDevicePerBatch(),
                        t.bytesFromDevicePerBatch()));
            }
            sb.append(" (last: ").append(t.lastReason()).append(')');
            if (t.fallbacks() > 0) {
                sb.append(", ").append(t.fallbacks()).append(" failed and recomputed on the cpu");
            }
            sb.append('\n');
        });
        long runs = decisions();
        long k = sampled.sum();
        if (runs > 0 && k > 0) {
            sb.append(String.format(
                    Locale.ROOT,
                    "  scheduler: %d kernel runs placed, %.0f ns each on average" + " (timed on %d of them)%n",
                    runs,
                    sampledNanos.sum() / (double) k,
                    k));
        }
        return sb.toString();
    }
}
