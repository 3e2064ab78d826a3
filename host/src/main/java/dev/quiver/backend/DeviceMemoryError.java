package dev.quiver.backend;

/**
 * Implemented by a backend's exceptions that can say whether the device (or its driver's host
 * side) ran out of memory, or refused a buffer as too large: placement then sends the batch to
 * the CPU and gives later batches less of the device, rather than counting a device failure.
 * {@link KernelBackend#isOutOfDeviceMemory} looks for it along a throwable's causes.
 */
public interface DeviceMemoryError {
    /** Whether this failure means the device had no memory (or no buffer that large) for the batch. */
    boolean outOfDeviceMemory();
}
