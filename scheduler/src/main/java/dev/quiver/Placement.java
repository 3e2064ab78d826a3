package dev.quiver;

/**
 * Where the kernel segments of a batch run. Whatever the placement, a segment that calls a
 * {@code cpuOnly} function runs on the CPU, and a batch that fails on an OpenCL device (a
 * build, transfer or launch error, or a lack of device memory) is recomputed on the CPU with
 * the same result; a device that fails repeatedly is fenced off for a while (see
 * {@link dev.quiver.placement.DeviceHealth}).
 */
public enum Placement {
    /** The fused Vector API loop (split between cores for large batches). */
    CPU,
    /**
     * The first OpenCL device that can run the segment and is not fenced off; an error when no
     * OpenCL device can run it at all.
     */
    OPENCL,
    /**
     * Per batch and segment, the device estimated to finish it soonest: a cost model over the
     * segment's rows, bytes and operation mix with each device's calibrated figures, corrected by
     * what earlier batches of the segment measured, exploring a small bounded share. Any OpenCL
     * device may win, a CPU-type one (PoCL) included, where its figures say so. EXPLAIN shows the
     * estimates and the crossover batch size.
     */
    AUTO
}
