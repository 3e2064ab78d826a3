package dev.quiver.backend;

/**
 * What one kernel run did besides computing.
 *
 * @param backend         the backend's name
 * @param bytesToDevice   bytes explicitly copied from host memory to the device (0 on the zero-copy path)
 * @param bytesFromDevice bytes explicitly copied from the device back to host memory
 * @param nanos           wall time of the run
 * @param rowsComputed    rows the program was computed for (in {@link RowMode#VALID_ROWS}, the
 *                        lanes of the vector steps that ran on the CPU, the valid rows on OpenCL)
 */
public record KernelRun(String backend, long bytesToDevice, long bytesFromDevice, long nanos, long rowsComputed) {

    /** A run whose computed rows were not counted ({@code rowsComputed} -1). */
    public KernelRun(String backend, long bytesToDevice, long bytesFromDevice, long nanos) {
        this(backend, bytesToDevice, bytesFromDevice, nanos, -1);
    }

    public long bytesCopied() {
        return bytesToDevice + bytesFromDevice;
    }
}
