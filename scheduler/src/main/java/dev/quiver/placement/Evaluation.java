package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.ExpressionMetrics.BatchReport;
import dev.quiver.Placement;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.ResidencyScope;
import dev.quiver.backend.ResidentKey;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.VectorView;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.KernelExecutor;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * One evaluation of an expression over one batch, as its kernels see it: the placement (or the
 * requested device) each fused kernel is placed by, its arguments' resident keys, and what its
 * kernels did, for the batch's {@link BatchReport} and for an out-of-memory message. Runs each
 * kernel through its {@link KernelDispatcher}. Not thread-safe: one evaluation runs on one thread.
 */
public final class Evaluation implements KernelExecutor {
    private final KernelDispatcher dispatcher;
    final Placement placement;
    final DeviceRuntime requested;
    private final ResidentKeys keys;
    /** Where a fused kernel is running (null between kernels), for an out-of-memory message. */
    Device kernelDevice;
    /** The device a kernel failed on before it was recomputed on the fallback, or null. */
    Device failedDevice;
    // What this evaluation's kernels did.
    private int kernelRuns;
    private long bytesToDevice, bytesFromDevice, kernelNanos;
    private Device firstDevice;
    private List<Device> moreDevices; // only when a second device ran a segment of the batch

    Evaluation(KernelDispatcher dispatcher, Placement placement, DeviceRuntime requested, ResidencyScope shared) {
        this.dispatcher = dispatcher;
        this.placement = placement;
        this.requested = requested;
        this.keys = new ResidentKeys(dispatcher.decodes(), shared);
    }

    /** The batch's input columns: their resident keys are scoped to this evaluation. */
    public void batchColumns(List<FieldVector> columns) {
        keys.batchColumns(columns);
    }

    /** Per kernel argument, its resident key or null; empty when no device that copies may run it. */
    List<ResidentKey> residentKeys(KernelProgram program, List<FieldVector> inputs, List<VectorView> views, int rows) {
        if (!dispatcher.devices().anyCopies() || placement == Placement.CPU || requested != null && !requested.copies) {
            return List.of(); // no device that copies can run it: no key is worth its cost (hashing a dictionary)
        }
        return keys.keys(program, inputs, views, rows);
    }

    /** Releases what this evaluation kept on devices (its own residency scope). */
    public void close() {
        keys.close();
    }

    void ran(Device device, KernelRun run) {
        kernelRuns++;
        bytesToDevice += run.bytesToDevice();
        bytesFromDevice += run.bytesFromDevice();
        kernelNanos += run.nanos();
        if (firstDevice == null) {
            firstDevice = device;
        } else if (!firstDevice.equals(device) && (moreDevices == null || !moreDevices.contains(device))) {
            if (moreDevices == null) {
                moreDevices = new ArrayList<>(2);
            }
            moreDevices.add(device);
        }
    }

    /** The report of the batch this evaluated: {@code rows} rows in {@code nanos}. */
    public BatchReport report(int rows, long nanos) {
        List<String> devices;
        if (firstDevice == null) {
            devices = List.of();
        } else if (moreDevices == null) {
            devices = List.of(firstDevice.name());
        } else {
            devices = new ArrayList<>(1 + moreDevices.size());
            devices.add(firstDevice.name());
            moreDevices.forEach(d -> devices.add(d.name()));
        }
        return new BatchReport(rows, devices, kernelRuns, bytesToDevice, bytesFromDevice, kernelNanos, nanos);
    }

    /** Where the evaluation was when it failed: a fused kernel's device, or the host kernels. */
    public String where() {
        if (kernelDevice == null) {
            return (requested != null ? requested.device : dispatcher.devices().fallback().device).name()
                    + " (host kernels)";
        }
        return kernelDevice.name()
                + (failedDevice == null
                        ? " (fused kernel)"
                        : " (fused kernel, after " + failedDevice.name() + " failed)");
    }

    @Override
    public Result run(
            KernelProgram program, List<FieldVector> args, int rows, BufferAllocator allocator, RowMode mode) {
        return run(null, program, args, rows, allocator, mode);
    }

    @Override
    public Result run(
            FusedKernelExpr segment,
            KernelProgram program,
            List<FieldVector> args,
            int rows,
            BufferAllocator allocator,
            RowMode mode) {
        return dispatcher.runKernel(segment, this, program, args, rows, allocator, mode);
    }
}
