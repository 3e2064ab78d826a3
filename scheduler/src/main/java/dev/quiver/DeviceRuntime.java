package dev.quiver;

import dev.quiver.cpu.CpuBackend;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.TransferMode;
import dev.quiver.placement.CostModel;
import dev.quiver.placement.DeviceFigures;
import dev.quiver.placement.DeviceHealth;
import dev.quiver.rowfn.ir.KernelProgram;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the scheduler keeps per device of one {@link Quiver}: its calibrated figures (measured on
 * first use), its health (circuit breaker), the estimated work queued on it and the device memory
 * held by batches in flight. Shared by every expression of that Quiver; thread-safe, lock-free on
 * the per-batch path.
 */
final class DeviceRuntime {
    final Device device;
    final int index;
    final DeviceHealth health;
    /** Estimated nanoseconds of batches running on the device (its in-order queue); not kept for the CPU. */
    final AtomicLong queuedNanos = new AtomicLong();
    /** Device memory held by batches in flight (devices that copy). */
    final AtomicLong bytesInFlight = new AtomicLong();
    /**
     * Device memory the batches in flight may use together: 80% of the device's at first, cut
     * when an allocation fails, grown back by a sixteenth after each batch that ran.
     */
    volatile long memoryBudget;
    private final long fullBudget;
    /** The largest single buffer the device takes: its largest allocation, and 2 GiB for any OpenCL buffer. */
    final long maxAllocation;
    /** Whether batches are copied to the device's own memory (a discrete GPU). */
    final boolean copies;
    private final CpuBackend cpu;
    /** The backend when it is an OpenCL one that copies (its overlap and resident arguments shape estimates), else null. */
    private final OpenClBackend copying;
    /**
     * What the first run of a segment costs beyond its estimate (the JIT's first compilation; an
     * OpenCL program build unless it is built in the background), learnt from first runs that
     * AUTO placed; exploring a device that never ran a segment must pay it. Starts at 1 ms, or
     * 20 ms for OpenCL devices that build in the batch.
     */
    volatile double firstRunNanos;
    /**
     * Whether AUTO waits for this device's programs to be built in the background rather than
     * build them inside a batch ({@code Quiver.builder().backgroundCompilation}).
     */
    final boolean buildsInBackground;
    private final Quiver quiver;
    private volatile DeviceFigures figures;

    DeviceRuntime(Quiver quiver, Device device, int index, DeviceHealth health) {
        this.quiver = quiver;
        this.device = device;
        this.index = index;
        this.health = health;
        this.cpu = device.backend() instanceof CpuBackend c ? c : null;
        this.buildsInBackground = quiver.backgroundCompilation();
        this.firstRunNanos = device.isOpenCl() && !buildsInBackground ? 20e6 : 1e6;
        if (device.backend() instanceof OpenClBackend ocl) {
            copies = ocl.transferMode() == TransferMode.COPY;
            copying = copies ? ocl : null;
            long limit = Integer.MAX_VALUE; // OpenClBackend takes no buffer over 2 GiB
            maxAllocation = copies ? Math.min(limit, ocl.device().maxAllocationBytes()) : limit;
            // Batches in flight share 80% of the device's memory with the arguments kept resident (their own budget).
            fullBudget = copies ? Math.max(MIN_BUDGET, (long) (ocl.device().globalMemoryBytes() * 0.8) - ocl.residentBudget())
                    : Long.MAX_VALUE;
        } else {
            copies = false;
            copying = null;
            maxAllocation = Long.MAX_VALUE;
            fullBudget = Long.MAX_VALUE;
        }
        memoryBudget = fullBudget;
    }

    /** How a batch with {@code residentBytes} already on the device reaches it (overlap in effect now). */
    CostModel.Path path(long residentBytes) {
        OpenClBackend b = copying;
        return b == null ? CostModel.Path.NONE : new CostModel.Path(residentBytes, b.effectiveChunkRows());
    }

    /** Bytes of {@code invocation}'s arguments already on this device (0 unless it copies and they have resident keys). */
    long residentBytes(dev.quiver.backend.KernelInvocation invocation) {
        OpenClBackend b = copying;
        return b == null ? 0 : b.residentBytes(invocation);
    }

    /** The figures, calibrating (or reading the cache) on first use. */
    DeviceFigures figures() {
        DeviceFigures f = figures;
        if (f == null) {
            synchronized (this) {
                f = figures;
                if (f == null) {
                    figures = f = quiver.calibrate(device, false);
                }
            }
        }
        return f;
    }

    /** Figures if already known (no calibration), else null. */
    DeviceFigures knownFigures() {
        return figures;
    }

    synchronized DeviceFigures recalibrate() {
        DeviceFigures f = quiver.calibrate(device, true);
        figures = f;
        return f;
    }

    /** Whether the device compiles each new kernel progressively (the JVM's JIT: the CPU device). */
    boolean jitWarmsUp() {
        return cpu != null;
    }

    int threadsFor(KernelProgram program, long rows) {
        return cpu == null ? 1 : cpu.threadsFor(program, rows);
    }

    /** Whether a batch needing {@code bytes} of device memory (largest buffer {@code largest}) fits now. */
    boolean fits(long bytes, long largest) {
        return largest <= maxAllocation && (!copies || bytesInFlight.get() + bytes <= memoryBudget);
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
