package dev.quiver.opencl;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.ResidentKey;
import dev.quiver.memory.Resources;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.ArrayList;
import java.util.List;

/**
 * One batch's run on the device, as {@link OpenClBackend} hands it to its {@link DataPath}: what
 * it computes, the OpenCL objects it makes ({@link #launch}), the test hooks it started with (the
 * fault plan, probes), the resident arguments and staging slots it holds until its commands have
 * finished, and the bytes it moved. Used by one thread.
 */
final class BatchRun {
    final KernelLaunch launch;
    final CompiledProgram compiled;
    final KernelProgram program;
    final KernelInvocation invocation;
    /** Whether the run reports its buffers' host pointers ({@link OpenClBackend#executeTraced}). */
    final boolean trace;
    /** The probes of {@link OpenClBackend#executeProbed}, or null: always, outside tests. */
    final RunProbes probes;
    /** The fault plan the run started with, or null: always, outside tests. */
    final FaultInjection.Plan faults;

    private final boolean mayOverlap;
    long bytesToDevice, bytesFromDevice;
    private final List<ResidentBuffers.Lease> leases = new ArrayList<>();
    private final List<StagingPool.Slot> slots = new ArrayList<>();
    private StagingPool staging;

    BatchRun(
            KernelLaunch launch,
            CompiledProgram compiled,
            KernelProgram program,
            KernelInvocation invocation,
            boolean trace,
            boolean mayOverlap,
            RunProbes probes,
            FaultInjection.Plan faults) {
        this.launch = launch;
        this.compiled = compiled;
        this.program = program;
        this.invocation = invocation;
        this.trace = trace;
        this.mayOverlap = mayOverlap;
        this.probes = probes;
        this.faults = faults;
    }

    /** Whether the run may go in overlapped chunks: not when it is traced or probed, which look at one launch. */
    boolean mayOverlap() {
        return mayOverlap && probes == null && !trace;
    }

    /**
     * The device copy of argument {@code i} ({@code bytes} long) under its resident key, pinned
     * for this run, or null: then the caller uploads it for this run alone. Counts what it uploaded.
     */
    ResidentBuffers.Lease residentLease(ResidentBuffers resident, int i, long bytes) {
        ResidentKey key = invocation.residentKey(i);
        if (key == null || key.bytes() != bytes) {
            return null;
        }
        ResidentBuffers.Lease lease = resident.acquire(key, invocation.args().get(i), faults);
        if (lease != null) {
            leases.add(lease);
            bytesToDevice += lease.uploaded;
        }
        return lease;
    }

    /** A staging slot of at least {@code bytes} from {@code pool}, held by this run until {@link #releaseHeld()}. */
    StagingPool.Slot stagingSlot(StagingPool pool, long bytes) {
        staging = pool;
        StagingPool.Slot slot = pool.lease(bytes, faults);
        slots.add(slot);
        return slot;
    }

    /**
     * Unpins the resident arguments and gives back the staging slots, once the launch is closed:
     * the run's commands have all finished (the launch waited). When that wait failed nobody
     * knows what the device still does: the staging slots are released, not reused.
     */
    void releaseHeld() {
        Resources.closeAll(leases);
        if (!slots.isEmpty()) {
            if (launch.drained()) {
                staging.giveBack(slots);
            } else {
                Resources.closeAll(slots);
            }
        }
    }
}
