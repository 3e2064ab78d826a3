package dev.quiver.opencl;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import java.util.List;
import java.util.Objects;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;

/**
 * The steps of every run of one backend ({@link OpenClBackend#execute} and its variants): the
 * program checked against the device ({@link DeviceSupport}) and the invocation against the
 * program ({@link BufferSizes}); the run registered with the backend's {@link Lifecycle} (refused
 * once close has begun); its program got from {@link ProgramBuilds}; the batch launched through
 * the {@link DataPath} with the fault plan installed now, if any; what the run held released once
 * its commands have finished; a failing row turned into the reference's exception
 * ({@link RowInterpreter#failureAt}). Owns none of the parts it uses; thread-safe.
 */
final class BatchRunner {
    private final OpenClDevice device;
    private final String name;
    private final ClObject<cl_context> context;
    private final ClObject<cl_command_queue> queue;
    private final ClObjectCounts counts;
    private final Lifecycle lifecycle;
    private final ProgramBuilds programs;
    private final DataPath dataPath;
    private final InjectedFaults faults;

    BatchRunner(
            OpenClDevice device,
            String name,
            ClObject<cl_context> context,
            ClObject<cl_command_queue> queue,
            ClObjectCounts counts,
            Lifecycle lifecycle,
            ProgramBuilds programs,
            DataPath dataPath,
            InjectedFaults faults) {
        this.device = device;
        this.name = name;
        this.context = context;
        this.queue = queue;
        this.counts = counts;
        this.lifecycle = lifecycle;
        this.programs = programs;
        this.dataPath = dataPath;
        this.faults = faults;
    }

    /**
     * Runs {@code program} over {@code invocation}: traced ({@link OpenClBackend#executeTraced}),
     * allowed to overlap chunks or not, with {@code probes} or none (null).
     */
    TracedRun run(
            KernelProgram program, KernelInvocation invocation, boolean trace, boolean mayOverlap, RunProbes probes) {
        Objects.requireNonNull(program, "program is null");
        Objects.requireNonNull(invocation, "invocation is null");
        DeviceSupport.unsupportedReason(device, program).ifPresent(reason -> {
            throw new UnsupportedOperationException(reason);
        });
        BufferSizes.checkFits(program, invocation);
        long start = System.nanoTime();
        // Counted before the kernel runs: a null condition clears validity bits in place. Every row valid here is
        // computed in VALID_ROWS mode (a null row, or a byte of null rows, is skipped), and only those.
        long rowsComputed = invocation.mode() == RowMode.ALL_ROWS
                ? invocation.rows()
                : ValidityBitmaps.count(invocation.validity(), invocation.rows());
        lifecycle.enter();
        BatchRun batch;
        LaunchResult result;
        try {
            if (invocation.rows() == 0) {
                // OpenCL rejects zero-sized buffers and work sizes; there is nothing to do anyway.
                return new TracedRun(new KernelRun(name, 0, 0, System.nanoTime() - start, 0), 0, List.of());
            }
            CompiledProgram compiled = programs.get(program);
            FaultInjection.Plan plan = faults.current();
            batch = new BatchRun(
                    new KernelLaunch(context.handle(), queue.handle(), counts, plan),
                    compiled,
                    program,
                    invocation,
                    trace,
                    mayOverlap,
                    probes,
                    plan);
            try {
                try (batch.launch) {
                    result = dataPath.run(batch);
                }
            } finally {
                // The run's commands have all finished (the launch waited): its resident and pinned buffers are free.
                batch.releaseHeld();
            }
        } finally {
            lifecycle.exit();
        }
        if (result.failingRow() != Integer.MAX_VALUE) {
            // The kernel knows the row, not why: the reference evaluates it again (from host memory, which the
            // arguments are on either path), so every device reports the same message.
            throw RowInterpreter.failureAt(program, invocation.args(), result.failingRow(), name);
        }
        KernelRun run = new KernelRun(
                name, batch.bytesToDevice, batch.bytesFromDevice, System.nanoTime() - start, rowsComputed);
        return new TracedRun(run, result.mappedOutputAddress(), result.hostPointers());
    }
}
