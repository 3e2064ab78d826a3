package dev.quiver.opencl;

import dev.quiver.backend.KernelInvocation;
import org.jocl.cl_mem;

/**
 * How one backend's runs move memory between the Arrow buffers and its device, chosen once by its
 * {@link TransferMode}: {@link ZeroCopyPath} (the kernel works on the Arrow memory itself) or
 * {@link CopyPath} (explicit transfers, resident arguments, overlapped chunks). A launch over a
 * whole batch ({@link SingleLaunch}) asks the path for each buffer and, after the kernel, for the
 * read-back; {@link #run} may go its own way instead (the copy path's chunks). Thread-safe: runs
 * on many threads share one path; what belongs to one run is in its {@link BatchRun}.
 */
sealed interface DataPath extends AutoCloseable permits ZeroCopyPath, CopyPath {
    /** Computes {@code batch}: its buffers on the device, the kernel, the results in its invocation's memory. */
    LaunchResult run(BatchRun batch);

    /** The read-only buffer argument {@code i} of {@code batch} is read from ({@code bytes} of Arrow memory). */
    cl_mem argument(BatchRun batch, int i, long bytes);

    /**
     * The buffer the kernel writes the result into ({@code bytes}, {@code access}); for a bitmap
     * result the kernel also reads its last byte, which must then hold the Arrow output's.
     */
    cl_mem output(BatchRun batch, long bytes, long access);

    /** The buffer of the validity bitmap ({@code bytes}, {@code access}), holding the invocation's. */
    cl_mem validity(BatchRun batch, long bytes, long access);

    /**
     * After the kernel: makes {@code out} and, when not null, {@code writtenValidity} visible in
     * the invocation's Arrow memory; returns the address the output was mapped at, or 0.
     */
    long readBack(BatchRun batch, cl_mem out, long outBytes, cl_mem writtenValidity, long validityBytes);

    /** The rows per overlapped chunk in effect ({@link OpenClBackend#effectiveChunkRows()}): 0 when this path never overlaps. */
    int effectiveChunkRows();

    /** Bytes of {@code invocation}'s arguments already on the device under their keys ({@link OpenClBackend#residentBytes}). */
    long residentBytes(KernelInvocation invocation);

    /** Releases what the path keeps across runs; once no run is in progress. */
    @Override
    void close();
}
