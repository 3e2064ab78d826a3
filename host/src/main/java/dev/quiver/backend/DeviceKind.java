package dev.quiver.backend;

/**
 * What a device is, whatever API drives it: placement reasons about the hardware (a GPU copies
 * batches over a bus, a CPU shares the host's memory), not about OpenCL.
 */
public enum DeviceKind {
    /** A CPU: the JVM's own threads, or an OpenCL CPU device such as PoCL. */
    CPU,
    /** A GPU, discrete or integrated. */
    GPU,
    /** Another accelerator (an FPGA, a DSP). */
    ACCELERATOR,
    /** Anything else: a device of a custom backend that does not say. */
    OTHER
}
