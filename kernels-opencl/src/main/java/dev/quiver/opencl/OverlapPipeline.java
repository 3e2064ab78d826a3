package dev.quiver.opencl;

import static dev.quiver.opencl.BufferSizes.dataBytes;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.cancel.Cancellation;
import dev.quiver.memory.Resources;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jocl.CL;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_event;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;

/**
 * The copy path for a large batch ({@link CopyPath}): chunks go through three pinned staging
 * slots. For each chunk the host copies its arguments into a slot, the upload queue writes them
 * to the device, the main queue runs the kernel over sub-buffers of the batch's device buffers,
 * and the download queue reads the result into the slot; the host copies it out into Arrow memory
 * when the slot comes round again. So chunk {@code c+1} uploads while {@code c} computes and
 * {@code c-1} downloads. Resident arguments are not uploaded at all. A failing row is the
 * smallest over the chunks, as one run would report. Cancellation is checked before each chunk
 * is enqueued.
 *
 * <p>Owns the upload and download queues and the {@link StagingPool}, made by the first run
 * (under this pipeline's lock) and kept until {@link #close()}. Thread-safe.
 */
final class OverlapPipeline implements AutoCloseable {
    private final OpenClDevice device;
    private final ClObject<cl_context> context;
    private final ClObject<cl_command_queue> queue;
    private final ClObjectCounts counts;
    /** The extra queues and pinned buffers, made on the first run; null before. */
    private volatile Overlap overlap;

    /** A pipeline whose kernels run on {@code queue}, the backend's main queue. */
    OverlapPipeline(
            OpenClDevice device,
            ClObject<cl_context> context,
            ClObject<cl_command_queue> queue,
            ClObjectCounts counts) {
        this.device = device;
        this.context = context;
        this.queue = queue;
        this.counts = counts;
    }

    /** The extra queues and pinned buffers. */
    private record Overlap(ClObject<cl_command_queue> upload, ClObject<cl_command_queue> download, StagingPool staging)
            implements AutoCloseable {
        @Override
        public void close() {
            Resources.closeAll(List.of(staging, upload, download));
        }
    }

    private Overlap overlap() {
        Overlap o = overlap;
        if (o == null) {
            synchronized (this) {
                o = overlap;
                if (o == null) {
                    ClObject<cl_command_queue> up = DeviceContexts.inOrderQueue(context, device, counts);
                    try {
                        ClObject<cl_command_queue> down = DeviceContexts.inOrderQueue(context, device, counts);
                        overlap = o = new Overlap(up, down, new StagingPool(context.handle(), queue.handle(), counts));
                    } catch (RuntimeException e) {
                        up.closeAfterFailure(e);
                        throw e;
                    }
                }
            }
        }
        return o;
    }

    /** Runs {@code batch} in chunks of {@code chunk} rows, its resident arguments taken from {@code resident}. */
    LaunchResult run(BatchRun batch, int chunk, ResidentBuffers resident) {
        KernelLaunch launch = batch.launch;
        KernelProgram program = batch.program;
        KernelInvocation invocation = batch.invocation;
        CompiledProgram compiled = batch.compiled;
        Overlap o = overlap();
        cl_command_queue up = o.upload().handle(),
                compute = queue.handle(),
                down = o.download().handle();
        launch.alsoOn(up);
        launch.alsoOn(down);
        int rows = invocation.rows();
        int chunks = (int) (((long) rows + chunk - 1) / chunk);
        boolean hasStatus = compiled.source().hasStatus();
        boolean allRows = invocation.mode() == RowMode.ALL_ROWS;
        boolean writesValidity = program.nullWhen().isPresent();
        boolean readsValidity = !allRows || writesValidity;
        ElementType resultType = program.resultType();
        boolean bitmapOut = resultType.isBitPacked();
        int arity = program.arity();

        // The batch's device buffers: resident arguments as they are, the others filled chunk by chunk.
        cl_mem[] args = new cl_mem[arity];
        boolean[] staged = new boolean[arity];
        long stageIn = 0;
        for (int i = 0; i < arity; i++) {
            long bytes = dataBytes(program.argTypes().get(i), rows);
            if (batch.residentLease(resident, i, bytes) instanceof ResidentBuffers.Lease lease) {
                args[i] = lease.mem();
            } else {
                args[i] = launch.deviceBuffer(bytes, CL.CL_MEM_READ_ONLY);
                staged[i] = true;
                stageIn += dataBytes(program.argTypes().get(i), chunk);
            }
        }
        long outBytes = dataBytes(resultType, rows);
        cl_mem out = launch.deviceBuffer(outBytes, bitmapOut ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_WRITE_ONLY);
        long validityBytes = VectorView.validityBytes(rows);
        cl_mem validity = readsValidity
                ? launch.deviceBuffer(validityBytes, writesValidity ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_READ_ONLY)
                : null;
        long chunkValidity = chunk / 8;
        if (readsValidity) {
            stageIn += chunkValidity;
        }
        // Per slot: the inputs, then (8-aligned) the output, its validity and the status word.
        long outAt = (stageIn + 1 + 63) / 64 * 64; // one spare byte for a bitmap result's last byte
        long validityAt = outAt + dataBytes(resultType, chunk);
        long statusAt = validityAt + (writesValidity ? chunkValidity : 0);
        long slotBytes = statusAt + Integer.BYTES;
        int depth = Math.min(3, chunks);
        List<StagingPool.Slot> slots = new ArrayList<>(depth);
        for (int k = 0; k < depth; k++) {
            slots.add(batch.stagingSlot(o.staging(), slotBytes));
        }
        cl_kernel kernel = launch.own(compiled.newKernel());
        long group = compiled.workGroupSize();
        cl_event[] readDone = new cl_event[chunks];
        int failingRow = Integer.MAX_VALUE;
        for (int c = 0; c < chunks + depth; c++) {
            // Retire chunk c - depth: its slot is needed now (or the loop is draining).
            int old = c - depth;
            if (old >= 0) {
                failingRow = Math.min(
                        failingRow,
                        retire(
                                launch,
                                readDone[old],
                                slots.get(old % depth),
                                invocation,
                                program,
                                hasStatus,
                                old,
                                chunk,
                                outAt,
                                validityAt,
                                statusAt));
                batch.bytesFromDevice += dataBytes(resultType, rowsOf(old, chunk, rows))
                        + (writesValidity ? VectorView.validityBytes(rowsOf(old, chunk, rows)) : 0);
            }
            if (c >= chunks) {
                continue;
            }
            // A kernel boundary: a cancelled run enqueues no more chunks; closing the launch waits for those enqueued.
            Cancellation.check();
            StagingPool.Slot slot = slots.get(c % depth);
            long lo = (long) c * chunk;
            int n = rowsOf(c, chunk, rows);
            // The chunk's sub-buffers first: every command of the chunk, uploads included, goes through them, so no
            // command touches a whole buffer while another works on a part of it (OpenCL leaves that undefined).
            cl_mem[] subs = new cl_mem[arity + 1];
            for (int i = 0; i < arity; i++) {
                ElementType t = program.argTypes().get(i);
                subs[i] = launch.subBuffer(args[i], dataBytes(t, lo), dataBytes(t, n), CL.CL_MEM_READ_ONLY);
            }
            long outChunkBytes = dataBytes(resultType, n);
            cl_mem outChunk = launch.subBuffer(
                    out,
                    dataBytes(resultType, lo),
                    outChunkBytes,
                    bitmapOut ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_WRITE_ONLY);
            subs[arity] = outChunk;
            cl_mem validityChunk = validity == null
                    ? null
                    : launch.subBuffer(
                            validity,
                            lo / 8,
                            VectorView.validityBytes(n),
                            writesValidity ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_READ_ONLY);
            cl_event uploaded = null;
            long at = 0;
            for (int i = 0; i < arity; i++) {
                if (!staged[i]) {
                    continue;
                }
                ElementType t = program.argTypes().get(i);
                long from = dataBytes(t, lo), bytes = dataBytes(t, n);
                MemorySegment.copy(invocation.args().get(i), from, slot.segment(), at, bytes);
                uploaded = launch.writeAsync(up, subs[i], 0, slot.view(at, bytes));
                batch.bytesToDevice += bytes;
                at += bytes;
            }
            if (readsValidity) {
                long from = lo / 8, bytes = VectorView.validityBytes(n);
                MemorySegment.copy(invocation.validity(), from, slot.segment(), at, bytes);
                uploaded = launch.writeAsync(up, validityChunk, 0, slot.view(at, bytes));
                batch.bytesToDevice += bytes;
                at += bytes;
            }
            if (bitmapOut && c == chunks - 1 && rows % 8 != 0) {
                // The kernel keeps the bits past the last row of the last byte: the device needs that byte first.
                MemorySegment.copy(invocation.out(), outBytes - 1, slot.segment(), at, 1);
                uploaded = launch.writeAsync(up, outChunk, outChunkBytes - 1, slot.view(at, 1));
                batch.bytesToDevice += 1;
            }
            cl_mem status = hasStatus ? launch.deviceBuffer(new int[] {Integer.MAX_VALUE}) : null;
            launch.flush(up);

            KernelArguments.set(launch, kernel, n, allRows, Arrays.asList(subs), validityChunk, status, program);
            cl_event computed =
                    launch.launchAsync(compute, kernel, KernelArguments.globalSize(compiled, n), group, uploaded);
            launch.flush(compute);

            cl_event read = launch.readAsync(down, outChunk, 0, slot.view(outAt, dataBytes(resultType, n)), computed);
            if (writesValidity) {
                read = launch.readAsync(
                        down, validityChunk, 0, slot.view(validityAt, VectorView.validityBytes(n)), computed);
            }
            if (status != null) {
                read = launch.readAsync(down, status, 0, slot.view(statusAt, Integer.BYTES), computed);
            }
            launch.flush(down);
            readDone[c] = read;
        }
        return new LaunchResult(failingRow, 0, List.of());
    }

    private static int rowsOf(int c, int chunk, int rows) {
        return (int) Math.min(chunk, rows - (long) c * chunk);
    }

    /**
     * Waits for chunk {@code c}'s read-back and copies it from its slot into the Arrow output;
     * returns its first failing row in batch numbering, or {@link Integer#MAX_VALUE}.
     */
    private static int retire(
            KernelLaunch launch,
            cl_event readDone,
            StagingPool.Slot slot,
            KernelInvocation invocation,
            KernelProgram program,
            boolean hasStatus,
            int c,
            int chunk,
            long outAt,
            long validityAt,
            long statusAt) {
        launch.await(readDone); // the download queue is in order: every read of the chunk is done
        int rows = invocation.rows();
        long lo = (long) c * chunk;
        int n = rowsOf(c, chunk, rows);
        ElementType t = program.resultType();
        MemorySegment.copy(slot.segment(), outAt, invocation.out(), dataBytes(t, lo), dataBytes(t, n));
        if (program.nullWhen().isPresent()) {
            MemorySegment.copy(slot.segment(), validityAt, invocation.validity(), lo / 8, VectorView.validityBytes(n));
        }
        if (!hasStatus) {
            return Integer.MAX_VALUE;
        }
        int row = slot.segment().get(ValueLayout.JAVA_INT_UNALIGNED, statusAt);
        return row == Integer.MAX_VALUE ? row : (int) (lo + row);
    }

    /** Releases the staging slots and the extra queues, if a run made them; once no run is in progress. */
    @Override
    public void close() {
        Overlap o = overlap;
        if (o != null) {
            o.close();
        }
    }
}
