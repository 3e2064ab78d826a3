package dev.quiver.backend;

import java.util.Objects;

/**
 * What the scheduler needs to know of a device, fixed while its backend is open: what it is,
 * how batches reach its memory, the largest buffer and the memory it has, and how its code
 * behaves. Everything that changes while it runs (overlap chunk size, resident bytes, threads
 * for a batch) is asked of the {@link KernelBackend} itself.
 *
 * @param kind               what the device is
 * @param memory             how a batch's Arrow buffers reach the device
 * @param runsOnCaller       whether kernels run on the calling thread (and the backend's own helper
 *                           threads), so there is no device queue to wait behind: the JVM's CPU device
 * @param maxAllocationBytes the largest single buffer the device takes ({@link Long#MAX_VALUE}: no limit
 *                           beyond the host's)
 * @param memoryBytes        the device's own memory, which batches in flight share when it
 *                           {@link Memory#COPY copies} ({@link Long#MAX_VALUE} when it uses the host's)
 * @param warmsUp            whether a new program runs slower for its first runs than once warm (the JVM's
 *                           JIT compiling a loop in tiers): early measured runs then say little about its speed
 */
public record DeviceTraits(
        DeviceKind kind,
        Memory memory,
        boolean runsOnCaller,
        long maxAllocationBytes,
        long memoryBytes,
        boolean warmsUp) {

    /** How a batch's buffers reach the device. */
    public enum Memory {
        /** The kernels read the host's memory directly: the JVM's CPU device, or a custom backend. */
        HOST,
        /** The device maps the host's buffers (OpenCL {@code CL_MEM_USE_HOST_PTR}): nothing is copied. */
        ZERO_COPY,
        /** Each batch is written to the device's own memory and its result read back (a discrete GPU). */
        COPY
    }

    /** What a backend that says nothing of its device is taken to be: another device, on the host's memory. */
    public static final DeviceTraits UNKNOWN =
            new DeviceTraits(DeviceKind.OTHER, Memory.HOST, false, Long.MAX_VALUE, Long.MAX_VALUE, false);

    public DeviceTraits {
        Objects.requireNonNull(kind, "kind is null");
        Objects.requireNonNull(memory, "memory is null");
        if (maxAllocationBytes < 1 || memoryBytes < 1) {
            throw new IllegalArgumentException("maxAllocationBytes and memoryBytes must be >= 1, got "
                    + maxAllocationBytes + " and " + memoryBytes);
        }
    }

    /** Whether batches are copied to the device's own memory, whose budget placement then keeps. */
    public boolean copies() {
        return memory == Memory.COPY;
    }
}
