package dev.quiver.placement;

import dev.quiver.Device;
import java.util.Locale;

/**
 * A placement decision for one batch of one kernel segment: the device, why, and the estimate it
 * was made on. Immutable.
 */
public final class Choice {
    private final DeviceRuntime runtime;
    private final Why why;
    private final double rawEstimateNanos;
    private final double ownNanos;
    private final double estimatedNanos;
    private final boolean exploration;
    private final boolean probe;
    private final SegmentScheduler segment;
    private final int candidate;
    private final int threads;
    private final String where;

    Choice(
            DeviceRuntime runtime,
            int candidate,
            int threads,
            String where,
            Why why,
            double rawEstimateNanos,
            double ownNanos,
            double estimatedNanos,
            boolean exploration,
            boolean probe,
            SegmentScheduler segment) {
        this.runtime = runtime;
        this.why = why;
        this.rawEstimateNanos = rawEstimateNanos;
        this.ownNanos = ownNanos;
        this.estimatedNanos = estimatedNanos;
        this.exploration = exploration;
        this.probe = probe;
        this.segment = segment;
        this.candidate = candidate;
        this.threads = threads;
        this.where = where;
    }

    /**
     * Where the batch runs, as EXPLAIN names it: the device, and for a device that splits
     * batches between threads, how many ({@code cpu, 2 threads}, {@code cpu, 1 thread}).
     */
    public String where() {
        return where;
    }

    /** The scheduler's alternative this is: the device, or (for a device that splits batches) the device on one thread. */
    int candidate() {
        return candidate;
    }

    /** The threads the batch may be split between ({@code KernelInvocation.threads}); 0: as the device sees fit. */
    public int threads() {
        return threads;
    }

    public Device device() {
        return runtime.device;
    }

    DeviceRuntime runtime() {
        return runtime;
    }

    Why why() {
        return why;
    }

    SegmentScheduler segment() {
        return segment;
    }

    /** Why this device: the placement, a cpuOnly function, the fastest estimate, an exploration, a probe, a fallback. */
    public String reason() {
        return why.text
                + (estimatedNanos > 0 ? String.format(Locale.ROOT, ", estimated %.3f ms", estimatedNanos / 1e6) : "");
    }

    /** The estimate with the learnt correction and the device's queue (0 when the device's figures were not needed). */
    public double estimatedNanos() {
        return estimatedNanos;
    }

    double rawEstimateNanos() {
        return rawEstimateNanos;
    }

    /** The device's own time for the batch as estimated (corrected), without the work queued before it. */
    double ownNanos() {
        return ownNanos;
    }

    /** Whether AUTO sent this batch to refresh a stale estimate rather than to the fastest device. */
    public boolean exploration() {
        return exploration;
    }

    /** Whether this batch tests a device after its fence ended. */
    public boolean probe() {
        return probe;
    }

    @Override
    public String toString() {
        return where + " (" + reason() + ")";
    }
}
