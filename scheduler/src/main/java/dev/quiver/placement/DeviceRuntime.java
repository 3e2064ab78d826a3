package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.backend.DeviceTraits;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * What placement keeps per device of one Quiver: its calibrated figures (measured on first use),
 * its health (circuit breaker), the estimated work queued on it and the device memory held by
 * batches in flight, all read from its backend's {@link DeviceTraits} and figures, never from
 * the backend's class. Shared by every expression of that Quiver; thread-safe, lock-free on the
 * per-batch path.
 */
final class DeviceRuntime {
    final Device device;
    final KernelBackend backend;
    final int index;
    final DeviceHealth health;
    /**
     * Whether this is the device a batch is recomputed on when another fails, and that runs what no
     * other device can: the JVM's CPU device. It has no health, no queue and no memory budget.
     */
    final boolean fallback;
    /** Whether the device has a queue of its own that batches wait in (it does not run on the caller's thread). */
    final boolean queues;
    /** Estimated nanoseconds of batches running on the device (its in-order queue); kept for devices that queue. */
    final AtomicLong queuedNanos = new AtomicLong();
    /** Device memory held by batches in flight (devices that copy). */
    final AtomicLong bytesInFlight = new AtomicLong();
    /**
     * Device memory the batches in flight may use together: 80% of the device's at first, cut
     * when an allocation fails, grown back by a sixteenth after each batch that ran.
     */
    volatile long memoryBudget;

    private final long fullBudget;
    /** The largest single buffer the device takes. */
    final long maxAllocation;
    /** Whether batches are copied to the device's own memory (a discrete GPU). */
    final boolean copies;
    /**
     * Whether the device splits a batch between threads of this JVM (the CPU device with more than
     * one thread): one thread and several are then two alternatives placement measures.
     */
    final boolean splits;
    /** Whether the device's code gets faster over its first runs (the JVM's JIT). */
    private final boolean warmsUp;
    /**
     * What the first run of a segment costs beyond its estimate (the JIT's first compilation; a
     * program build unless it is built in the background), learnt from first runs that AUTO
     * placed; exploring a device that never ran a segment must pay it. Starts at 1 ms, or 20 ms
     * for devices with their own queue that build in the batch.
     */
    volatile double firstRunNanos;
    /**
     * Whether AUTO waits for this device's programs to be built in the background rather than
     * build them inside a batch ({@code Quiver.builder().backgroundCompilation}).
     */
    final boolean buildsInBackground;

    private final BiFunction<Device, Boolean, DeviceFigures> calibrate;
    private volatile DeviceFigures figures;

    /**
     * @param calibrate the figures of a device, measured when the flag is true even if known
     */
    DeviceRuntime(
            Device device,
            int index,
            boolean fallback,
            DeviceHealth health,
            boolean buildsInBackground,
            BiFunction<Device, Boolean, DeviceFigures> calibrate) {
        this.device = device;
        this.backend = device.backend();
        this.index = index;
        this.fallback = fallback;
        this.health = health;
        this.calibrate = calibrate;
        this.buildsInBackground = buildsInBackground;
        DeviceTraits traits = backend.traits();
        this.queues = !traits.runsOnCaller();
        this.warmsUp = traits.warmsUp();
        this.firstRunNanos = queues && !buildsInBackground ? 20e6 : 1e6;
        this.copies = traits.copies();
        this.splits = traits.runsOnCaller() && backend.threads() > 1;
        this.maxAllocation = traits.maxAllocationBytes();
        // Batches in flight share 80% of the device's memory with the arguments kept resident (their own budget).
        this.fullBudget = copies
                ? Math.max(MIN_BUDGET, (long) (traits.memoryBytes() * 0.8) - backend.residentBudget())
                : Long.MAX_VALUE;
        this.memoryBudget = fullBudget;
    }

    /** How a batch with {@code residentBytes} already on the device reaches it (overlap in effect now). */
    CostModel.Path path(long residentBytes) {
        return copies ? new CostModel.Path(residentBytes, backend.effectiveChunkRows()) : CostModel.Path.NONE;
    }

    /** Bytes of {@code invocation}'s arguments already on this device (0 unless it copies and they have resident keys). */
    long residentBytes(KernelInvocation invocation) {
        return copies ? backend.residentBytes(invocation) : 0;
    }

    /**
     * The figures, calibrating (or reading the cache) on first use. Provisional figures (a cold
     * measurement's stand-ins) are looked up again at most once a second, so the warm ones that a
     * background measurement brings take over.
     */
    DeviceFigures figures() {
        DeviceFigures f = figures;
        if (f == null) {
            synchronized (this) {
                f = figures;
                if (f == null) {
                    figures = f = calibrate.apply(device, false);
                    provisionalCheckedAt = System.nanoTime();
                }
            }
        } else if (f.source() == DeviceFigures.Source.PROVISIONAL
                && System.nanoTime() - provisionalCheckedAt > 1_000_000_000L) {
            provisionalCheckedAt = System.nanoTime();
            DeviceFigures g = calibrate.apply(device, false); // what this JVM has now: no measuring
            if (g.source() != DeviceFigures.Source.PROVISIONAL) {
                figures = f = g;
            }
        }
        return f;
    }

    /** When provisional figures were last looked up again ({@link System#nanoTime()}). */
    private volatile long provisionalCheckedAt;

    /** Figures if already known (no calibration), else null. */
    DeviceFigures knownFigures() {
        return figures;
    }

    synchronized DeviceFigures recalibrate() {
        DeviceFigures f = calibrate.apply(device, true);
        figures = f;
        return f;
    }

    /** Whether the device compiles each new kernel progressively (the JVM's JIT: the CPU device). */
    boolean jitWarmsUp() {
        return warmsUp;
    }

    int threadsFor(KernelProgram program, long rows) {
        return backend.threadsFor(program, rows);
    }

    int maxThreadsFor(KernelProgram program, long rows) {
        return backend.maxThreadsFor(program, rows);
    }

    /** The work queued on the device before a batch placed now: 0 for a device without a queue. */
    long queued() {
        return queues ? queuedNanos.get() : 0;
    }

    /** Whether a batch needing {@code bytes} of device memory (largest buffer {@code largest}) fits now. */
    boolean fits(long bytes, long largest) {
        return fallback || largest <= maxAllocation && (!copies || bytesInFlight.get() + bytes <= memoryBudget);
    }

    /** An allocation of a batch of {@code bytes} failed: the batches in flight with it were too many. */
    void shrinkMemoryBudget(long bytes) {
        long atFailure = bytesInFlight.get() + bytes; // this batch's bytes are already released
        memoryBudget = Math.max(MIN_BUDGET, Math.min(memoryBudget, atFailure * 3 / 4));
    }

    /** A batch ran on the device: the budget grows back towards its start. */
    void growMemoryBudget() {
        long b = memoryBudget;
        if (b < fullBudget) {
            memoryBudget = Math.min(fullBudget, b + Math.max(MIN_BUDGET, b) / 16);
        }
    }

    /** The least memory budget: a single small batch always fits. */
    private static final long MIN_BUDGET = 64L << 20;
}
