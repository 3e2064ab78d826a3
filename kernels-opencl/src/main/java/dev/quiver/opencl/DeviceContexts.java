package dev.quiver.opencl;

import org.jocl.CL;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_context_properties;
import org.jocl.cl_device_id;
import org.jocl.cl_queue_properties;

/**
 * Makes the OpenCL context of a backend ({@link OpenClBackend#open}) and its command queues: the
 * main queue, and the upload and download queues of the overlapped copy path
 * ({@link OverlapPipeline}). Each is owned by a {@link ClObject}, counted in the backend's
 * {@link ClObjectCounts}; the caller releases it.
 */
final class DeviceContexts {
    private DeviceContexts() {}

    /** A context on {@code device} alone; throws {@link OpenClException} when it cannot be created. */
    static ClObject<cl_context> context(OpenClDevice device, ClObjectCounts counts) {
        cl_device_id[] ids = {device.id()};
        cl_context_properties properties = new cl_context_properties();
        properties.addProperty(CL.CL_CONTEXT_PLATFORM, device.platformId());
        int[] err = new int[1];
        return ClObject.created(
                CL.clCreateContext(properties, 1, ids, null, null, err),
                err,
                "clCreateContext",
                CL::clReleaseContext,
                "clReleaseContext",
                counts,
                ClObjectCounts.Kind.CONTEXT);
    }

    /** An in-order command queue on {@code device}. */
    static ClObject<cl_command_queue> inOrderQueue(
            ClObject<cl_context> context, OpenClDevice device, ClObjectCounts counts) {
        int[] err = new int[1];
        // clCreateCommandQueue is deprecated from OpenCL 2.0 on, and its successor absent before it.
        return device.versionAtLeast(2, 0)
                ? ClObject.created(
                        CL.clCreateCommandQueueWithProperties(
                                context.handle(), device.id(), new cl_queue_properties(), err),
                        err,
                        "clCreateCommandQueueWithProperties",
                        CL::clReleaseCommandQueue,
                        "clReleaseCommandQueue",
                        counts,
                        ClObjectCounts.Kind.QUEUE)
                : ClObject.created(
                        createLegacyQueue(context.handle(), device.id(), err),
                        err,
                        "clCreateCommandQueue",
                        CL::clReleaseCommandQueue,
                        "clReleaseCommandQueue",
                        counts,
                        ClObjectCounts.Kind.QUEUE);
    }

    @SuppressWarnings("deprecation")
    private static cl_command_queue createLegacyQueue(cl_context context, cl_device_id device, int[] err) {
        return CL.clCreateCommandQueue(context, device, 0, err);
    }
}
