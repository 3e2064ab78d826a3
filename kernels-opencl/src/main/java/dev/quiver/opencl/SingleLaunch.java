package dev.quiver.opencl;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.List;
import org.jocl.CL;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;

/**
 * One kernel launch over a whole batch, its buffers and read-back given by a {@link DataPath}: the
 * arguments, the output and (when the row mode or a null condition needs it) the validity bound,
 * the status word of a fallible program, the kernel enqueued, the results back, the status read.
 * Calls a run's {@link RunProbes} around the kernel. Owns no state: the run's objects are its
 * {@link KernelLaunch}'s.
 */
final class SingleLaunch {
    private SingleLaunch() {}

    static LaunchResult run(BatchRun batch, DataPath path) {
        KernelLaunch launch = batch.launch;
        KernelProgram program = batch.program;
        KernelInvocation invocation = batch.invocation;
        int rows = invocation.rows();
        boolean allRows = invocation.mode() == RowMode.ALL_ROWS;
        boolean writesValidity = program.nullWhen().isPresent();
        cl_kernel kernel = launch.own(batch.compiled.newKernel());
        List<cl_mem> buffers = new ArrayList<>();
        for (int i = 0; i < program.arity(); i++) {
            buffers.add(path.argument(
                    batch, i, BufferSizes.dataBytes(program.argTypes().get(i), rows)));
        }
        ElementType resultType = program.resultType();
        long outBytes = BufferSizes.dataBytes(resultType, rows);
        // A bitmap result is written a byte at a time, keeping the bits past the last row: the kernel reads its
        // last byte.
        cl_mem out =
                path.output(batch, outBytes, resultType.isBitPacked() ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_WRITE_ONLY);
        buffers.add(out);
        // The validity says which rows to compute (VALID_ROWS) and takes the null condition's cleared bits; a run
        // that needs neither passes NULL.
        long validityBytes = VectorView.validityBytes(rows);
        cl_mem validity = !allRows || writesValidity
                ? path.validity(batch, validityBytes, writesValidity ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_READ_ONLY)
                : null;
        // Programs that can fail take a status word where the kernel keeps the first failing row.
        int[] status = {Integer.MAX_VALUE};
        cl_mem statusBuffer = batch.compiled.source().hasStatus() ? launch.deviceBuffer(status) : null;
        KernelArguments.set(launch, kernel, rows, allRows, buffers, validity, statusBuffer, program);

        RunProbes probes = batch.probes;
        if (probes != null) {
            launch.finish(); // transfers enqueued so far are done before the probe looks
            probes.afterBind().run();
        }
        launch.launch(kernel, KernelArguments.globalSize(batch.compiled, rows), batch.compiled.workGroupSize());
        if (probes != null) {
            launch.finish();
            probes.afterKernel().run();
        }

        long mapped = path.readBack(batch, out, outBytes, writesValidity ? validity : null, validityBytes);
        if (statusBuffer != null) {
            launch.read(statusBuffer, status);
        }
        List<Long> hostPointers = new ArrayList<>();
        if (batch.trace) {
            for (cl_mem mem : buffers) {
                hostPointers.add(KernelLaunch.hostPointer(mem));
            }
        }
        return new LaunchResult(status[0], mapped, hostPointers);
    }
}
