package dev.quiver.opencl;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.ResidentKey;
import org.jocl.CL;
import org.jocl.cl_mem;

/**
 * The {@link TransferMode#COPY} data path: each argument is written to device memory, unless it
 * is resident there under its {@link ResidentKey} ({@link ResidentBuffers}),
 * and the output read back (the validity too, when the row mode or a null condition needs it).
 * A batch of more than two chunks ({@link ChunkRows}) goes chunk by chunk through the
 * {@link OverlapPipeline}, overlapping transfers with the kernel; a traced or probed run goes
 * as one launch. Counts the bytes moved in each run's {@link BatchRun}. Thread-safe.
 */
final class CopyPath implements DataPath {
    private final ResidentBuffers resident;
    private final ChunkRows chunks;
    private final OverlapPipeline pipeline;

    /** Keeps arguments in {@code resident}; overlaps by {@code chunks} through {@code pipeline}, which it owns. */
    CopyPath(ResidentBuffers resident, ChunkRows chunks, OverlapPipeline pipeline) {
        this.resident = resident;
        this.chunks = chunks;
        this.pipeline = pipeline;
    }

    @Override
    public LaunchResult run(BatchRun batch) {
        // Read once: a concurrent overlapChunkRows(..) must not change this run half way.
        int chunk = batch.mayOverlap() ? chunks.forProgram(batch.program) : 0;
        return chunk > 0 && batch.invocation.rows() > 2L * chunk
                ? pipeline.run(batch, chunk, resident)
                : SingleLaunch.run(batch, this);
    }

    @Override
    public cl_mem argument(BatchRun batch, int i, long bytes) {
        if (batch.residentLease(resident, i, bytes) instanceof ResidentBuffers.Lease lease) {
            return lease.mem();
        }
        cl_mem mem = batch.launch.deviceBuffer(bytes, CL.CL_MEM_READ_ONLY);
        batch.launch.write(mem, batch.invocation.args().get(i), bytes);
        batch.bytesToDevice += bytes;
        return mem;
    }

    @Override
    public cl_mem output(BatchRun batch, long bytes, long access) {
        cl_mem out = batch.launch.deviceBuffer(bytes, access);
        if (batch.program.resultType().isBitPacked() && batch.invocation.rows() % 8 != 0) {
            // The kernel keeps the bits past the last row: that byte goes to the device first, so the read-back
            // returns it intact.
            batch.launch.write(out, bytes - 1, batch.invocation.out(), 1);
            batch.bytesToDevice += 1;
        }
        return out;
    }

    @Override
    public cl_mem validity(BatchRun batch, long bytes, long access) {
        cl_mem mem = batch.launch.deviceBuffer(bytes, access);
        batch.launch.write(mem, batch.invocation.validity(), bytes);
        batch.bytesToDevice += bytes;
        return mem;
    }

    @Override
    public long readBack(BatchRun batch, cl_mem out, long outBytes, cl_mem writtenValidity, long validityBytes) {
        batch.launch.read(out, batch.invocation.out(), outBytes);
        batch.bytesFromDevice += outBytes;
        if (writtenValidity != null) {
            batch.launch.read(writtenValidity, batch.invocation.validity(), validityBytes);
            batch.bytesFromDevice += validityBytes;
        }
        return 0;
    }

    @Override
    public int effectiveChunkRows() {
        return chunks.aligned();
    }

    @Override
    public long residentBytes(KernelInvocation invocation) {
        return invocation.resident().isEmpty() ? 0 : resident.residentBytes(invocation.resident());
    }

    /** Releases the pipeline's queues and staging slots; the resident arguments are the backend's to release. */
    @Override
    public void close() {
        pipeline.close();
    }
}
