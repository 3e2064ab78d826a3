package dev.quiver.opencl;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_kernel;
import org.jocl.cl_program;

/**
 * A built OpenCL program for one device, with the work-group size its kernel launches with.
 * Owns the {@code cl_program}; {@link #close()} releases it once, when no {@link #hold()} is
 * left (a background task that reads the program's binary holds it until it is done).
 *
 * <p>Built from source or from a binary this driver produced before ({@link ProgramBinaryCache}),
 * then launched twice over zero rows: drivers compile a kernel's machine code on its first
 * launch, some once per kind of launch (PoCL: per work-group size, and apart for grids under
 * and over 65535 work items), and that compilation belongs to the build, not to the first batch.
 */
final class CompiledProgram implements AutoCloseable {
    /** Enough work items per group to fill a GPU's SIMD lanes; CPU drivers vectorize across them too. */
    private static final long PREFERRED_WORK_GROUP = 256;
    /** A grid at least this wide is a large one to PoCL (its small-grid kernels stop below 65535 work items). */
    private static final long LARGE_GRID_ITEMS = 1 << 16;

    private static final System.Logger LOG = System.getLogger(CompiledProgram.class.getName());

    private final KernelSource source;
    private final ClObject<cl_program> program;
    private final long workGroupSize;
    private final ClObjectCounts counts;
    /** The owner's hold (released by {@link #close()}) and one per {@link #hold()} not yet released. */
    private final AtomicInteger holds = new AtomicInteger(1);

    private final AtomicBoolean closed = new AtomicBoolean();

    private CompiledProgram(
            KernelSource source, ClObject<cl_program> program, long workGroupSize, ClObjectCounts counts) {
        this.source = source;
        this.program = program;
        this.workGroupSize = workGroupSize;
        this.counts = counts;
    }

    /**
     * Builds {@code source} for {@code device}. Throws {@link OpenClException} naming
     * {@code clBuildProgram} with the build log and the source when the driver rejects it, or
     * when {@code injectedError} is not 0 (a {@link FaultInjection} fault: the build fails with
     * that code after the program object exists).
     */
    static CompiledProgram build(
            cl_context context,
            cl_command_queue queue,
            cl_device_id device,
            KernelSource source,
            String options,
            ClObjectCounts counts,
            int injectedError) {
        Objects.requireNonNull(source, "source is null");
        Objects.requireNonNull(options, "options is null");
        int[] err = new int[1];
        ClObject<cl_program> program = ClObject.created(
                CL.clCreateProgramWithSource(context, 1, new String[] {source.text()}, null, err),
                err,
                "clCreateProgramWithSource",
                CL::clReleaseProgram,
                "clReleaseProgram",
                counts,
                ClObjectCounts.Kind.PROGRAM);
        try {
            int rc = injectedError != 0
                    ? injectedError
                    : CL.clBuildProgram(program.handle(), 1, new cl_device_id[] {device}, options, null, null);
            if (rc != CL.CL_SUCCESS) {
                throw new OpenClException(
                        "clBuildProgram",
                        rc,
                        (injectedError != 0 ? "(injected fault) " : "")
                                + buildLog(program.handle(), device)
                                + "\n-- options: " + options + "\n-- source:\n" + source.text());
            }
            return ready(queue, device, source, program, counts);
        } catch (RuntimeException e) {
            program.closeAfterFailure(e);
            throw e;
        }
    }

    /**
     * Builds {@code source} for {@code device} from {@code binary}, which this driver produced for
     * that source and options ({@link #binary}). Throws {@link OpenClException} when the driver
     * rejects the binary.
     */
    static CompiledProgram load(
            cl_context context,
            cl_command_queue queue,
            cl_device_id device,
            KernelSource source,
            String options,
            byte[] binary,
            ClObjectCounts counts) {
        Objects.requireNonNull(source, "source is null");
        Objects.requireNonNull(binary, "binary is null");
        int[] err = new int[1];
        int[] status = new int[1];
        ClObject<cl_program> program = ClObject.created(
                CL.clCreateProgramWithBinary(
                        context,
                        1,
                        new cl_device_id[] {device},
                        new long[] {binary.length},
                        new byte[][] {binary},
                        status,
                        err),
                err,
                "clCreateProgramWithBinary",
                CL::clReleaseProgram,
                "clReleaseProgram",
                counts,
                ClObjectCounts.Kind.PROGRAM);
        try {
            OpenClException.check(status[0], "clCreateProgramWithBinary (binary status)");
            // Required for a binary too: it links the program for the device (fast).
            int rc = CL.clBuildProgram(program.handle(), 1, new cl_device_id[] {device}, options, null, null);
            if (rc != CL.CL_SUCCESS) {
                throw new OpenClException(
                        "clBuildProgram", rc, "(from a cached binary) " + buildLog(program.handle(), device));
            }
            return ready(queue, device, source, program, counts);
        } catch (RuntimeException e) {
            program.closeAfterFailure(e);
            throw e;
        }
    }

    /** A built program: its work-group size, and its kernel launched over zero rows. */
    private static CompiledProgram ready(
            cl_command_queue queue,
            cl_device_id device,
            KernelSource source,
            ClObject<cl_program> program,
            ClObjectCounts counts) {
        try (ClObject<cl_kernel> kernel = createKernel(program.handle(), counts)) {
            long[] size = new long[1];
            OpenClException.check(
                    CL.clGetKernelWorkGroupInfo(
                            kernel.handle(),
                            device,
                            CL.CL_KERNEL_WORK_GROUP_SIZE,
                            Sizeof.size_t,
                            Pointer.to(size),
                            null),
                    "clGetKernelWorkGroupInfo");
            long groupSize = Math.max(1, Math.min(PREFERRED_WORK_GROUP, size[0]));
            int rc = launchEmpty(queue, kernel.handle(), source, groupSize);
            if (rc != CL.CL_SUCCESS) {
                // Only a head start is lost: the first batch compiles what it needs, and reports any real error.
                LOG.log(
                        System.Logger.Level.DEBUG,
                        () -> "launching a new kernel over zero rows failed (" + CL.stringFor_errorCode(rc)
                                + "); its first batch compiles it");
            }
            return new CompiledProgram(source, program, groupSize, counts);
        }
    }

    /**
     * Launches {@code kernel} over zero rows, on a small grid and on a large one, with every
     * buffer NULL (each work item returns before it reads any), and waits. Returns the first
     * error code, or {@code CL_SUCCESS}.
     */
    private static int launchEmpty(cl_command_queue queue, cl_kernel kernel, KernelSource source, long group) {
        int[] parameters = new int[1];
        int rc = CL.clGetKernelInfo(kernel, CL.CL_KERNEL_NUM_ARGS, Sizeof.cl_uint, Pointer.to(parameters), null);
        int literals = source.literalBytes().size();
        int buffers = parameters[0] - 2 - literals; // after rows and all_rows; before the literals
        if (rc != CL.CL_SUCCESS || buffers < 0) {
            return rc != CL.CL_SUCCESS ? rc : CL.CL_INVALID_KERNEL_ARGS;
        }
        int index = 0;
        rc = CL.clSetKernelArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {0}));
        rc = rc != CL.CL_SUCCESS ? rc : CL.clSetKernelArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {1}));
        for (int i = 0; i < buffers && rc == CL.CL_SUCCESS; i++) {
            rc = CL.clSetKernelArg(kernel, index++, Sizeof.cl_mem, null);
        }
        for (int i = 0; i < literals && rc == CL.CL_SUCCESS; i++) {
            int bytes = source.literalBytes().get(i);
            rc = CL.clSetKernelArg(kernel, index++, bytes, Pointer.to(new byte[bytes]));
        }
        if (rc != CL.CL_SUCCESS) {
            return rc;
        }
        long large = (LARGE_GRID_ITEMS + group - 1) / group * group;
        for (long items : new long[] {group, large}) {
            rc = CL.clEnqueueNDRangeKernel(
                    queue, kernel, 1, null, new long[] {items}, new long[] {group}, 0, null, null);
            if (rc != CL.CL_SUCCESS) {
                return rc;
            }
        }
        return CL.clFinish(queue);
    }

    KernelSource source() {
        return source;
    }

    long workGroupSize() {
        return workGroupSize;
    }

    /**
     * The driver's binary of this program for {@code device} ({@code CL_PROGRAM_BINARIES}), what
     * {@link #load} takes back. Some drivers compile for it (PoCL: tens to hundreds of
     * milliseconds), so the backend asks for it off the batch's path.
     */
    byte[] binary() {
        long[] size = new long[1];
        OpenClException.check(
                CL.clGetProgramInfo(
                        program.handle(), CL.CL_PROGRAM_BINARY_SIZES, Sizeof.size_t, Pointer.to(size), null),
                "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
        if (size[0] <= 0 || size[0] > Integer.MAX_VALUE - 1024) {
            throw new OpenClException(
                    "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)",
                    CL.CL_INVALID_BINARY,
                    "the driver reports a binary of " + size[0] + " bytes");
        }
        // PoCL copies its current serialized size without a lock: a launch of the program that compiles a new variant
        // between the two queries would make the copy longer than the first answer. Native room with slack takes
        // such a copy without harm, and a size that changed meanwhile discards the binary.
        long room = Math.min(Integer.MAX_VALUE - 8, 2 * size[0] + (1 << 20));
        ByteBuffer buffer = ByteBuffer.allocateDirect((int) room);
        OpenClException.check(
                CL.clGetProgramInfo(
                        program.handle(),
                        CL.CL_PROGRAM_BINARIES,
                        Sizeof.POINTER,
                        Pointer.to(new Pointer[] {Pointer.to(buffer)}),
                        null),
                "clGetProgramInfo(CL_PROGRAM_BINARIES)");
        long[] after = new long[1];
        OpenClException.check(
                CL.clGetProgramInfo(
                        program.handle(), CL.CL_PROGRAM_BINARY_SIZES, Sizeof.size_t, Pointer.to(after), null),
                "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
        if (after[0] != size[0]) {
            throw new OpenClException(
                    "clGetProgramInfo(CL_PROGRAM_BINARIES)",
                    CL.CL_INVALID_BINARY,
                    "the binary changed while it was read (" + size[0] + " then " + after[0] + " bytes): not stored");
        }
        byte[] binary = new byte[(int) size[0]];
        buffer.get(0, binary);
        return binary;
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
        return ClObject.created(
                CL.clCreateKernel(program, KernelSource.KERNEL_NAME, err),
                err,
                "clCreateKernel",
                CL::clReleaseKernel,
                "clReleaseKernel",
                counts,
                ClObjectCounts.Kind.KERNEL);
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

    /**
     * Keeps the program alive past {@link #close()} until {@link #releaseHold()}; false when it
     * is already released (then nothing is held).
     */
    boolean hold() {
        while (true) {
            int n = holds.get();
            if (n == 0) {
                return false;
            }
            if (holds.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Ends a {@link #hold()}; the last one after close releases the program. */
    void releaseHold() {
        if (holds.decrementAndGet() == 0) {
            program.close();
        }
    }

    /** Releases the program (once, however often it is called), or lets the last {@link #hold()} do it. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            releaseHold();
        }
    }
}
