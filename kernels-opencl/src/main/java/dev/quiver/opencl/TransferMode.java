package dev.quiver.opencl;

/** How an {@link OpenClBackend} gives Arrow memory to its device. */
public enum TransferMode {
    /** {@link #ZERO_COPY} when the device shares host memory ({@link OpenClDevice#hostUnifiedMemory()}), else {@link #COPY}. */
    AUTO,
    /**
     * The device works on the Arrow buffers themselves ({@code CL_MEM_USE_HOST_PTR}); the output
     * is made visible to the host by mapping it. No explicit copy; on a device with its own
     * memory the driver may still copy behind the scenes.
     */
    ZERO_COPY,
    /** Device buffers, one explicit write per argument and one read of the output, counted in the run. */
    COPY
}
