package dev.quiver.opencl;

import dev.quiver.memory.Resources;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_buffer_region;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_event;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;

/**
 * The OpenCL objects of one run: its kernel and buffers, and the commands it enqueued.
 *
 * <p>{@link #close()} first waits for every enqueued command ({@code clFinish}), so that no
 * command still reads or writes Arrow memory once the run is over, even when it failed half
 * way; then it releases each object once, in reverse order of creation.
 *
 * <p>With a {@link FaultInjection.Plan}, each call that plan can target asks it first and throws
 * the injected failure instead of making the call.
 */
final class KernelLaunch implements AutoCloseable {
    private final cl_context context;
    private final cl_command_queue queue;
    private final List<ClObject<?>> owned = new ArrayList<>();
    private final ClObjectCounts counts;
    /** The faults to inject, or null (always, outside tests). */
    private final FaultInjection.Plan faults;
    /** The error code every queue command fails with once an injected device loss fired, else 0. */
    private int lost;

    private boolean enqueued;
    /** Whether close saw every queue finish: the run's memory is no longer in use by the device. */
    private boolean drained;
    /** The other queues this run enqueued on (the overlapped copy path), waited for by close. */
    private final List<cl_command_queue> others = new ArrayList<>(2);

    KernelLaunch(cl_context context, cl_command_queue queue, ClObjectCounts counts, FaultInjection.Plan faults) {
        this.context = context;
        this.queue = queue;
        this.counts = counts;
        this.faults = faults;
    }

    /** Also waits for {@code other}'s commands on close (before any object of the run is released). */
    void alsoOn(cl_command_queue other) {
        if (other != queue && !others.contains(other)) {
            others.add(other);
        }
    }

    /**
     * A buffer over {@code bytes} of {@code parent} from {@code origin} (a chunk of a batch's
     * buffer; the origin must be a multiple of the device's base address alignment).
     */
    cl_mem subBuffer(cl_mem parent, long origin, long bytes, long access) {
        inject(FaultInjection.Call.CREATE_BUFFER, "clCreateSubBuffer", false);
        int[] err = new int[1];
        cl_mem mem = CL.clCreateSubBuffer(
                parent, access, CL.CL_BUFFER_CREATE_TYPE_REGION, new cl_buffer_region(origin, bytes), err);
        owned.add(ClObject.created(
                mem,
                err,
                "clCreateSubBuffer",
                CL::clReleaseMemObject,
                "clReleaseMemObject",
                counts,
                ClObjectCounts.Kind.MEM));
        return mem;
    }

    /** An event this run owns (released by close, after every queue has finished). */
    private cl_event ownEvent(cl_event event) {
        owned.add(ClObject.created(
                event,
                new int[] {CL.CL_SUCCESS},
                "event",
                CL::clReleaseEvent,
                "clReleaseEvent",
                counts,
                ClObjectCounts.Kind.EVENT));
        return event;
    }

    private static cl_event[] waitList(cl_event... events) {
        int n = 0;
        for (cl_event e : events) {
            if (e != null) {
                n++;
            }
        }
        cl_event[] list = new cl_event[n];
        n = 0;
        for (cl_event e : events) {
            if (e != null) {
                list[n++] = e;
            }
        }
        return list;
    }

    /**
     * Enqueues on {@code on}, without waiting, a copy of {@code source} (pinned host memory, kept
     * alive by the caller until the returned event completes) into {@code mem} at {@code offset},
     * after {@code after} (null entries ignored). Returns the copy's event.
     */
    cl_event writeAsync(cl_command_queue on, cl_mem mem, long offset, ByteBuffer source, cl_event... after) {
        return copyAsync(true, on, mem, offset, source, after);
    }

    /** As {@link #writeAsync}, the other way: {@code mem} from {@code offset} into {@code target}. */
    cl_event readAsync(cl_command_queue on, cl_mem mem, long offset, ByteBuffer target, cl_event... after) {
        return copyAsync(false, on, mem, offset, target, after);
    }

    private cl_event copyAsync(
            boolean write, cl_command_queue on, cl_mem mem, long offset, ByteBuffer host, cl_event... after) {
        enqueued = true;
        alsoOn(on);
        String call = write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer";
        inject(write ? null : FaultInjection.Call.READ_BACK, call, true);
        cl_event[] wait = waitList(after);
        cl_event done = new cl_event();
        cl_event[] list = wait.length == 0 ? null : wait;
        int rc = write
                ? CL.clEnqueueWriteBuffer(
                        on, mem, false, offset, host.remaining(), Pointer.to(host), wait.length, list, done)
                : CL.clEnqueueReadBuffer(
                        on, mem, false, offset, host.remaining(), Pointer.to(host), wait.length, list, done);
        OpenClException.check(rc, call);
        return ownEvent(done);
    }

    /** Enqueues {@code kernel} on {@code on} after {@code after}; returns its event. */
    cl_event launchAsync(cl_command_queue on, cl_kernel kernel, long globalSize, long groupSize, cl_event... after) {
        enqueued = true;
        alsoOn(on);
        inject(FaultInjection.Call.ENQUEUE_KERNEL, "clEnqueueNDRangeKernel", true);
        cl_event[] wait = waitList(after);
        cl_event done = new cl_event();
        OpenClException.check(
                CL.clEnqueueNDRangeKernel(
                        on,
                        kernel,
                        1,
                        null,
                        new long[] {globalSize},
                        new long[] {groupSize},
                        wait.length,
                        wait.length == 0 ? null : wait,
                        done),
                "clEnqueueNDRangeKernel");
        return ownEvent(done);
    }

    /** Sends what was enqueued on {@code on} to the device. */
    void flush(cl_command_queue on) {
        OpenClException.check(CL.clFlush(on), "clFlush");
    }

    /** Waits for {@code event}; throws when its command failed. */
    void await(cl_event event) {
        inject(null, "clWaitForEvents", true);
        OpenClException.check(CL.clWaitForEvents(1, new cl_event[] {event}), "clWaitForEvents");
    }

    /** Before a call {@code call} of the fault plan may target (null: a queue command only it may not). */
    private void inject(FaultInjection.Call call, String name, boolean queueCommand) {
        if (faults == null) {
            return;
        }
        if (queueCommand && lost == 0) {
            lost = faults.occurrence(FaultInjection.Call.DEVICE_LOST);
        }
        if (queueCommand && lost != 0) {
            throw FaultInjection.injected(name, lost);
        }
        if (call != null) {
            faults.check(call, name);
        }
    }

    /** Takes ownership of {@code kernel}. */
    cl_kernel own(ClObject<cl_kernel> kernel) {
        owned.add(kernel);
        return kernel.handle();
    }

    /**
     * A buffer over the host memory {@code segment} itself ({@code CL_MEM_USE_HOST_PTR}): no
     * copy on a device that shares host memory.
     */
    cl_mem hostBuffer(MemorySegment segment, long bytes, long access) {
        inject(FaultInjection.Call.CREATE_BUFFER, "clCreateBuffer", false);
        int[] err = new int[1];
        cl_mem mem = CL.clCreateBuffer(
                context, CL.CL_MEM_USE_HOST_PTR | access, bytes, Pointer.to(byteBuffer(segment, bytes)), err);
        return own(mem, err);
    }

    /** A buffer in device memory, with undefined contents. */
    cl_mem deviceBuffer(long bytes, long access) {
        inject(FaultInjection.Call.CREATE_BUFFER, "clCreateBuffer", false);
        int[] err = new int[1];
        return own(CL.clCreateBuffer(context, access, bytes, null, err), err);
    }

    /** A small device buffer initialized from {@code values}. */
    cl_mem deviceBuffer(int[] values) {
        inject(FaultInjection.Call.CREATE_BUFFER, "clCreateBuffer", false);
        int[] err = new int[1];
        cl_mem mem = CL.clCreateBuffer(
                context,
                CL.CL_MEM_READ_WRITE | CL.CL_MEM_COPY_HOST_PTR,
                (long) values.length * Sizeof.cl_int,
                Pointer.to(values),
                err);
        return own(mem, err);
    }

    /** Enqueues a copy of {@code bytes} of {@code segment} into {@code mem}; completes by {@link #close()}. */
    void write(cl_mem mem, MemorySegment segment, long bytes) {
        enqueued = true;
        inject(null, "clEnqueueWriteBuffer", true);
        OpenClException.check(
                CL.clEnqueueWriteBuffer(
                        queue, mem, false, 0, bytes, Pointer.to(byteBuffer(segment, bytes)), 0, null, null),
                "clEnqueueWriteBuffer");
    }

    /** Enqueues a copy of {@code bytes} of {@code segment} from {@code offset} into {@code mem} at the same offset. */
    void write(cl_mem mem, long offset, MemorySegment segment, long bytes) {
        enqueued = true;
        inject(null, "clEnqueueWriteBuffer", true);
        OpenClException.check(
                CL.clEnqueueWriteBuffer(
                        queue,
                        mem,
                        false,
                        offset,
                        bytes,
                        Pointer.to(segment.asSlice(offset, bytes).asByteBuffer()),
                        0,
                        null,
                        null),
                "clEnqueueWriteBuffer");
    }

    /** Copies {@code bytes} of {@code mem} into {@code segment}, waiting for it and everything enqueued before. */
    void read(cl_mem mem, MemorySegment segment, long bytes) {
        enqueued = true;
        inject(FaultInjection.Call.READ_BACK, "clEnqueueReadBuffer", true);
        OpenClException.check(
                CL.clEnqueueReadBuffer(
                        queue, mem, true, 0, bytes, Pointer.to(byteBuffer(segment, bytes)), 0, null, null),
                "clEnqueueReadBuffer");
    }

    /** Reads a small buffer into {@code values}, waiting for it and everything enqueued before. */
    void read(cl_mem mem, int[] values) {
        enqueued = true;
        inject(FaultInjection.Call.READ_BACK, "clEnqueueReadBuffer", true);
        OpenClException.check(
                CL.clEnqueueReadBuffer(
                        queue, mem, true, 0, (long) values.length * Sizeof.cl_int, Pointer.to(values), 0, null, null),
                "clEnqueueReadBuffer");
    }

    void setArg(cl_kernel kernel, int index, long size, Pointer value) {
        OpenClException.check(CL.clSetKernelArg(kernel, index, size, value), "clSetKernelArg");
    }

    /** Waits until everything enqueued so far has finished. */
    void finish() {
        inject(null, "clFinish", true);
        OpenClException.check(CL.clFinish(queue), "clFinish");
    }

    void launch(cl_kernel kernel, long globalSize, long groupSize) {
        enqueued = true;
        inject(FaultInjection.Call.ENQUEUE_KERNEL, "clEnqueueNDRangeKernel", true);
        OpenClException.check(
                CL.clEnqueueNDRangeKernel(
                        queue, kernel, 1, null, new long[] {globalSize}, new long[] {groupSize}, 0, null, null),
                "clEnqueueNDRangeKernel");
    }

    /**
     * Makes what the device wrote to a {@code CL_MEM_USE_HOST_PTR} buffer visible in its host
     * memory, as the OpenCL memory model requires: a blocking map for reading, then an unmap.
     * On host-unified memory the map returns the host pointer itself and copies nothing.
     *
     * @return the address the buffer was mapped to
     */
    long synchronizeToHost(cl_mem mem, long bytes) {
        enqueued = true;
        inject(FaultInjection.Call.READ_BACK, "clEnqueueMapBuffer", true);
        int[] err = new int[1];
        ByteBuffer mapped = CL.clEnqueueMapBuffer(queue, mem, true, CL.CL_MAP_READ, 0, bytes, 0, null, null, err);
        OpenClException.check(err[0], "clEnqueueMapBuffer");
        long address = MemorySegment.ofBuffer(mapped).address();
        try {
            inject(null, "clEnqueueUnmapMemObject", true);
        } catch (OpenClException e) {
            // A mapping is undone before the buffer is released, lost device or not.
            CL.clEnqueueUnmapMemObject(queue, mem, mapped, 0, null, null);
            throw e;
        }
        OpenClException.check(CL.clEnqueueUnmapMemObject(queue, mem, mapped, 0, null, null), "clEnqueueUnmapMemObject");
        return address;
    }

    /** {@code CL_MEM_HOST_PTR}: the host memory a buffer uses, or 0 for device memory. */
    static long hostPointer(cl_mem mem) {
        long[] pointer = new long[1];
        OpenClException.check(
                CL.clGetMemObjectInfo(mem, CL.CL_MEM_HOST_PTR, Sizeof.POINTER, Pointer.to(pointer), null),
                "clGetMemObjectInfo");
        return pointer[0];
    }

    private cl_mem own(cl_mem mem, int[] err) {
        owned.add(ClObject.created(
                mem,
                err,
                "clCreateBuffer",
                CL::clReleaseMemObject,
                "clReleaseMemObject",
                counts,
                ClObjectCounts.Kind.MEM));
        return mem;
    }

    /** A view JOCL can pass to OpenCL; the caller has checked that {@code bytes} fits a ByteBuffer. */
    private static ByteBuffer byteBuffer(MemorySegment segment, long bytes) {
        return segment.asSlice(0, bytes).asByteBuffer();
    }

    /** Whether {@link #close()} has seen every command of the run finish (false before close, or when that wait failed). */
    boolean drained() {
        return drained;
    }

    @Override
    public void close() {
        // Wait for the device to be done with the buffers, then release in reverse order of creation.
        List<AutoCloseable> steps = new ArrayList<>();
        if (enqueued) {
            steps.add(() -> {
                // The real wait comes first even when a device loss is injected: the simulated lost device
                // is still running what was enqueued, and no command may touch Arrow memory after the run.
                int rc = CL.clFinish(queue);
                for (cl_command_queue q : others) {
                    int r = CL.clFinish(q);
                    rc = rc != CL.CL_SUCCESS ? rc : r;
                }
                inject(null, "clFinish", true);
                OpenClException.check(rc, "clFinish");
                drained = true;
            });
        } else {
            drained = true;
        }
        steps.addAll(owned.reversed());
        Resources.closeAll(steps);
    }
}
