package dev.quiver.backend;

/**
 * What one kernel run did besides computing.
 *
 * @param backend         the backend's name
 * @param bytesToDevice   bytes explicitly copied from host memory to the device (0 on the zero-copy path)
 * @param bytesFromDevice bytes explicitly copied from the device back to host memory
 * @param nanos           wall time of the run
 */
public record KernelRun(String backend, long bytesToDevice, long bytesFromDevice, long nanos) {

    public long bytesCopied() {
        return bytesToDevice + bytesFromDevice;
    }
}
