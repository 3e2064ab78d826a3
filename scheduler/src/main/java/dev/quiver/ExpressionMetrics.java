package dev.quiver;

import dev.quiver.backend.KernelRun;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link CompiledExpression} has run, per device: batches, rows, kernel time and bytes
 * copied between host and device (zero where the device reads Arrow memory in place).
 * Thread-safe.
 */
public final class ExpressionMetrics {

    /** Totals for one device. */
    public record DeviceTotals(long batches, long rows, long nanos, long bytesCopied, String lastReason) {
    }

    private final Map<String, DeviceTotals> byDevice = new TreeMap<>();

    synchronized void record(String device, int rows, KernelRun run, String reason) {
        DeviceTotals t = byDevice.getOrDefault(device, new DeviceTotals(0, 0, 0, 0, reason));
        byDevice.put(device, new DeviceTotals(t.batches() + 1, t.rows() + rows, t.nanos() + run.nanos(),
                t.bytesCopied() + run.bytesCopied(), reason));
    }

    public synchronized Map<String, DeviceTotals> byDevice() {
        return Map.copyOf(byDevice);
    }

    /** Bytes copied between host and devices over all batches. */
    public synchronized long bytesCopied() {
        return byDevice.values().stream().mapToLong(DeviceTotals::bytesCopied).sum();
    }

    synchronized String describe() {
        if (byDevice.isEmpty()) {
            return "  no batches evaluated yet\n";
        }
        StringBuilder sb = new StringBuilder();
        byDevice.forEach((d, t) -> sb.append(String.format("  ran on %s: %d batches, %d rows, %.3f ms, %d bytes copied (last: %s)%n",
                d, t.batches(), t.rows(), t.nanos() / 1e6, t.bytesCopied(), t.lastReason())));
        return sb.toString();
    }
}
