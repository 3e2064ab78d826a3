package dev.quiver.opencl;

import org.jocl.CL;

/**
 * The OpenCL error codes an {@link OpenClException} may carry that callers outside this module
 * name: tests that script a device failure and fault injection ({@link FaultInjection}). Code
 * outside {@code kernels-opencl} uses these rather than the OpenCL binding's own constants.
 */
public final class ClErrorCodes {
    private ClErrorCodes() {}

    /** The device failed a command: also a kernel fault or a watchdog timeout on some drivers. */
    public static final int OUT_OF_RESOURCES = CL.CL_OUT_OF_RESOURCES;
    /** The driver's host side ran out of memory. */
    public static final int OUT_OF_HOST_MEMORY = CL.CL_OUT_OF_HOST_MEMORY;
    /** A buffer could not be allocated in device memory. */
    public static final int MEM_OBJECT_ALLOCATION_FAILURE = CL.CL_MEM_OBJECT_ALLOCATION_FAILURE;
    /** The kernel object is not valid (a broken program). */
    public static final int INVALID_KERNEL = CL.CL_INVALID_KERNEL;
    /** The command queue is not valid (a lost device). */
    public static final int INVALID_COMMAND_QUEUE = CL.CL_INVALID_COMMAND_QUEUE;
}
