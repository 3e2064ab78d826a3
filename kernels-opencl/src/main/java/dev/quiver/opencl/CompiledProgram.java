package dev.quiver.opencl;

import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_kernel;
import org.jocl.cl_program;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A built OpenCL program for one device, with the work-group size its kernel launches with.
 * Owns the {@code cl_program}; {@link #close()} releases it once.
 */
final class CompiledProgram implements AutoCloseable {
    /** Enough work items per group to fill a GPU's SIMD lanes; CPU drivers vectorize across them too. */
    private static final long PREFERRED_WORK_GROUP = 256;

    private final KernelSource source;
    private final ClObject<cl_program> program;
    private final long workGroupSize;
    private final ClObjectCounts counts;

    private CompiledProgram(KernelSource source, ClObject<cl_program> program, long workGroupSize,
                            ClObjectCounts counts) {
        this.source = source;
        this.program = program;
        this.workGroupSize = workGroupSize;
        this.counts = counts;
    }

    /**
     * Builds {@code source} for {@code device}. Throws {@link OpenClException} naming
     * {@code clBuildProgram} with the build log and the source when the driver rejects it.
     * {@code faults} (null when none) may make the build fail instead.
     */
    static CompiledProgram build(cl_context context, cl_device_id device, KernelSource source, String options,
                                 ClObjectCounts counts, FaultInjection.Plan faults) {
        Objects.requireNonNull(source, "source is null");
        Objects.requireNonNull(options, "options is null");
        int[] err = new int[1];
        ClObject<cl_program> program = ClObject.created(
                CL.clCreateProgramWithSource(context, 1, new String[] {source.text()}, null, err), err,
                "clCreateProgramWithSource", CL::clReleaseProgram, "clReleaseProgram", counts, ClObjectCounts.Kind.PROGRAM);
        try {
            int injected = faults == null ? 0 : faults.occurrence(FaultInjection.Call.BUILD_PROGRAM);
            int rc = injected != 0 ? injected
                    : CL.clBuildProgram(program.handle(), 1, new cl_device_id[] {device}, options, null, null);
            if (rc != CL.CL_SUCCESS) {
                throw new OpenClException("clBuildProgram", rc, (injected != 0 ? "(injected fault) " : "")
                        + buildLog(program.handle(), device)
                        + "\n-- options: " + options + "\n-- source:\n" + source.text());
            }
            long groupSize;
            try (ClObject<cl_kernel> kernel = createKernel(program.handle(), counts)) {
                long[] size = new long[1];
                OpenClException.check(CL.clGetKernelWorkGroupInfo(kernel.handle(), device,
                        CL.CL_KERNEL_WORK_GROUP_SIZE, Sizeof.size_t, Pointer.to(size), null), "clGetKernelWorkGroupInfo");
                groupSize = Math.max(1, Math.min(PREFERRED_WORK_GROUP, size[0]));
            }
            return new CompiledProgram(source, program, groupSize, counts);
        } catch (RuntimeException e) {
            program.closeAfterFailure(e);
            throw e;
        }
    }

    KernelSource source() {
        return source;
    }

    long workGroupSize() {
        return workGroupSize;
    }

    /**
     * A new kernel object, owned by the caller. One per run: {@code clSetKernelArg} on a shared
     * kernel is not thread-safe, and creating one is cheap next to a launch.
     */
    ClObject<cl_kernel> newKernel() {
        return createKernel(program.handle(), counts);
    }

    private static ClObject<cl_kernel> createKernel(cl_program program, ClObjectCounts counts) {
        int[] err = new int[1];
        return ClObject.created(CL.clCreateKernel(program, KernelSource.KERNEL_NAME, err), err,
                "clCreateKernel", CL::clReleaseKernel, "clReleaseKernel", counts, ClObjectCounts.Kind.KERNEL);
    }

    private static String buildLog(cl_program program, cl_device_id device) {
        long[] size = new long[1];
        int rc = CL.clGetProgramBuildInfo(program, device, CL.CL_PROGRAM_BUILD_LOG, 0, null, size);
        if (rc != CL.CL_SUCCESS || size[0] <= 1) {
            return "(no build log)";
        }
        byte[] log = new byte[(int) size[0]];
        rc = CL.clGetProgramBuildInfo(program, device, CL.CL_PROGRAM_BUILD_LOG, log.length, Pointer.to(log), null);
        return rc == CL.CL_SUCCESS ? OpenClRuntime.cString(log).strip() : "(no build log)";
    }

    @Override
    public void close() {
        program.close();
    }
}
