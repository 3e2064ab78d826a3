package dev.quiver;

/** Where a batch runs. */
public enum Placement {
    /** The fused Vector API loop on the calling thread. */
    CPU,
    /** The first OpenCL device that can run the expression; an error when there is none. */
    OPENCL,
    /**
     * Per batch: an OpenCL GPU (or accelerator) when one can run the expression and the batch has at least
     * {@link CompiledExpression#AUTO_GPU_MIN_ROWS} rows, else the CPU. A CPU-type OpenCL
     * device (PoCL) is never picked automatically: it competes for the same cores and memory
     * bandwidth as the fused CPU loop.
     */
    AUTO
}
