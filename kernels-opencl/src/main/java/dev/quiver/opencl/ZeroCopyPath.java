package dev.quiver.opencl;

import dev.quiver.backend.KernelInvocation;
import org.jocl.CL;
import org.jocl.cl_mem;

/**
 * The {@link TransferMode#ZERO_COPY} data path, for a device that shares host memory (PoCL,
 * integrated GPUs): every buffer of a run is a {@code CL_MEM_USE_HOST_PTR} buffer over the Arrow
 * memory itself, so the kernel reads and writes it in place, and the read-back is a map and unmap,
 * which the memory model requires and which copies nothing. One launch per batch; nothing is
 * uploaded, nothing kept across runs. Stateless.
 */
final class ZeroCopyPath implements DataPath {
    @Override
    public LaunchResult run(BatchRun batch) {
        return SingleLaunch.run(batch, this);
    }

    @Override
    public cl_mem argument(BatchRun batch, int i, long bytes) {
        return batch.launch.hostBuffer(batch.invocation.args().get(i), bytes, CL.CL_MEM_READ_ONLY);
    }

    @Override
    public cl_mem output(BatchRun batch, long bytes, long access) {
        return batch.launch.hostBuffer(batch.invocation.out(), bytes, access);
    }

    @Override
    public cl_mem validity(BatchRun batch, long bytes, long access) {
        return batch.launch.hostBuffer(batch.invocation.validity(), bytes, access);
    }

    @Override
    public long readBack(BatchRun batch, cl_mem out, long outBytes, cl_mem writtenValidity, long validityBytes) {
        long mapped = batch.launch.synchronizeToHost(out, outBytes);
        if (writtenValidity != null) {
            batch.launch.synchronizeToHost(writtenValidity, validityBytes);
        }
        return mapped;
    }

    @Override
    public int effectiveChunkRows() {
        return 0;
    }

    @Override
    public long residentBytes(KernelInvocation invocation) {
        return 0; // nothing is uploaded anyway
    }

    @Override
    public void close() {}
}
