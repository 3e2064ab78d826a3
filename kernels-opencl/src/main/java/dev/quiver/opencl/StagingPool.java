package dev.quiver.opencl;

import dev.quiver.memory.Resources;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jocl.CL;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_mem;

/**
 * Pinned host buffers for the overlapped copy path: {@code CL_MEM_ALLOC_HOST_PTR} buffers,
 * mapped once for their whole life, so that the driver copies between them and the device by
 * DMA, without staging pageable memory itself, and asynchronously. A run copies a chunk of Arrow
 * memory into a slot, the device reads it from there while the run fills the next slot.
 *
 * <p>Slots are kept between runs (allocating and pinning memory costs far more than a chunk's
 * copy) up to {@link #KEEP}; a slot too small for a run is replaced. Thread-safe.
 */
final class StagingPool implements AutoCloseable {
    /** Free slots kept between runs: three for each of two runs at once. */
    static final int KEEP = 6;

    private final cl_context context;
    private final cl_command_queue queue;
    private final ClObjectCounts counts;
    private final ArrayDeque<Slot> free = new ArrayDeque<>();
    private boolean closed;

    StagingPool(cl_context context, cl_command_queue queue, ClObjectCounts counts) {
        this.context = context;
        this.queue = queue;
        this.counts = counts;
    }

    /** One pinned, mapped buffer: {@link #segment()} is its host view. */
    static final class Slot implements AutoCloseable {
        private final ClObject<cl_mem> mem;
        private final ByteBuffer mapped;
        private final MemorySegment segment;
        private final cl_command_queue queue;

        Slot(ClObject<cl_mem> mem, ByteBuffer mapped, cl_command_queue queue) {
            this.mem = mem;
            this.mapped = mapped;
            this.segment = MemorySegment.ofBuffer(mapped);
            this.queue = queue;
        }

        MemorySegment segment() {
            return segment;
        }

        long capacity() {
            return segment.byteSize();
        }

        /** A view of {@code bytes} from {@code offset} for JOCL (a direct buffer over the pinned memory). */
        ByteBuffer view(long offset, long bytes) {
            return segment.asSlice(offset, bytes).asByteBuffer();
        }

        @Override
        public void close() {
            Resources.closeAll(List.<AutoCloseable>of(
                    () -> {
                        OpenClException.check(
                                CL.clEnqueueUnmapMemObject(queue, mem.handle(), mapped, 0, null, null),
                                "clEnqueueUnmapMemObject");
                        OpenClException.check(CL.clFinish(queue), "clFinish");
                    },
                    mem));
        }
    }

    /** A slot of at least {@code bytes}; give it back with {@link #giveBack}. */
    Slot lease(long bytes, FaultInjection.Plan faults) {
        List<Slot> tooSmall = new ArrayList<>();
        try {
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the staging pool is closed");
                }
                while (!free.isEmpty()) {
                    Slot s = free.poll();
                    if (s.capacity() >= bytes) {
                        return s;
                    }
                    tooSmall.add(s);
                }
            }
        } finally {
            Resources.closeAll(tooSmall);
        }
        return allocate(bytes, faults);
    }

    private Slot allocate(long bytes, FaultInjection.Plan faults) {
        FaultInjection.check(faults, FaultInjection.Call.CREATE_BUFFER, "clCreateBuffer");
        int[] err = new int[1];
        ClObject<cl_mem> mem = ClObject.created(
                CL.clCreateBuffer(context, CL.CL_MEM_READ_WRITE | CL.CL_MEM_ALLOC_HOST_PTR, bytes, null, err),
                err,
                "clCreateBuffer",
                CL::clReleaseMemObject,
                "clReleaseMemObject",
                counts,
                ClObjectCounts.Kind.HELD);
        try {
            ByteBuffer mapped = CL.clEnqueueMapBuffer(
                    queue, mem.handle(), true, CL.CL_MAP_READ | CL.CL_MAP_WRITE, 0, bytes, 0, null, null, err);
            OpenClException.check(err[0], "clEnqueueMapBuffer");
            return new Slot(mem, mapped, queue);
        } catch (RuntimeException e) {
            mem.closeAfterFailure(e);
            throw e;
        }
    }

    /** Returns {@code slots} to the pool (those over {@link #KEEP}, or after close, are released). */
    void giveBack(List<Slot> slots) {
        List<Slot> release = new ArrayList<>();
        synchronized (this) {
            for (Slot s : slots) {
                if (closed || free.size() >= KEEP) {
                    release.add(s);
                } else {
                    free.push(s);
                }
            }
        }
        Resources.closeAll(release);
    }

    @Override
    public void close() {
        List<Slot> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(free);
            free.clear();
        }
        Resources.closeAll(all);
    }
}
