package dev.quiver.backend;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * A device that runs {@link KernelProgram}s over Arrow memory: the CPU (Vector API), one OpenCL
 * device, or a backend of the user's own. Implementations are thread-safe and own their native
 * resources until {@link #close()}.
 *
 * <p>Besides running programs, a backend tells placement everything it needs as data: its
 * {@link #traits()} (kind, memory, limits), and the figures that change while it runs (threads
 * for a batch, overlap chunk, resident bytes). Placement never asks which class a backend is;
 * every method but {@link #name}, {@link #unsupportedReason}, {@link #execute} and
 * {@link #close} has a default that describes a plain device on the host's memory.
 */
public interface KernelBackend extends AutoCloseable {

    /** A stable, human-readable name: {@code cpu}, or {@code opencl:<device name>}. */
    String name();

    /** Why this backend cannot run {@code program}, or empty when it can. */
    Optional<String> unsupportedReason(KernelProgram program);

    /**
     * Computes {@code program} for {@code invocation.rows()} rows, writing the values into
     * {@code invocation.out()}. Values of rows that are null in {@code invocation.validity()}
     * are unspecified. Throws {@link KernelArithmeticException} when a non-null row fails
     * (integer division by zero), {@link UnsupportedOperationException} when
     * {@link #unsupportedReason} is not empty, and a backend-specific exception naming the
     * failed call on device errors.
     */
    KernelRun execute(KernelProgram program, KernelInvocation invocation);

    /**
     * As {@link #execute}, with one transfer each way however large the batch (a device that
     * overlaps chunked transfers with its kernel does not here): what calibration measures the
     * plain transfer rate with, the cost model then applying the overlap itself.
     */
    default KernelRun executeWithoutOverlap(KernelProgram program, KernelInvocation invocation) {
        return execute(program, invocation);
    }

    /**
     * Whether {@code program} runs without building anything first: true once its compiled code
     * exists (an OpenCL program built, in this process or loaded from a cache). A lookup that
     * never builds. Backends that need no build say true.
     */
    default boolean isReady(KernelProgram program) {
        return true;
    }

    /**
     * Starts what {@code program} needs before it runs (an OpenCL build) on the backend's own
     * thread, and returns at once. The future completes when {@link #isReady} turns true, or
     * fails with the reason the preparation failed; {@link #execute} then still tries again (and
     * throws that error). Asking again while it is in progress, or after it failed, starts
     * nothing and returns the same outcome. Backends that need no build return a completed future.
     */
    default CompletableFuture<Void> prepareAsync(KernelProgram program) {
        return CompletableFuture.completedFuture(null);
    }

    /** What the device is and how batches reach it; fixed while the backend is open. */
    default DeviceTraits traits() {
        return DeviceTraits.UNKNOWN;
    }

    /**
     * A stable one-line identity of the device's hardware, driver and configuration, under which
     * its calibrated figures are cached; empty: its name and description serve.
     */
    default Optional<String> identity() {
        return Optional.empty();
    }

    /** The most threads one batch may use on this device (the CPU device's pool); 1 for a device with its own queue. */
    default int threads() {
        return 1;
    }

    /** The threads a batch of {@code rows} rows of {@code program} uses (a small batch stays on one thread). */
    default int threadsFor(KernelProgram program, long rows) {
        return 1;
    }

    /**
     * The most threads a batch of {@code rows} rows of {@code program} can be split between,
     * whatever the program costs per row: the alternative to one thread that placement measures
     * (and asks for through {@link KernelInvocation#threads()}), where {@link #threadsFor} is the
     * backend's own guess. 1 for a device that does not split batches between the caller's
     * threads.
     */
    default int maxThreadsFor(KernelProgram program, long rows) {
        return threadsFor(program, rows);
    }

    /**
     * The rows one step of the device's loop over {@code program} handles (the Vector API's lanes
     * on the CPU): the smallest batch worth timing when the device is calibrated.
     */
    default int rowsPerStep(KernelProgram program) {
        return 64;
    }

    /**
     * A second backend on the same device limited to one thread, for calibration to measure one
     * thread apart from all of them; the caller closes it. Empty when {@link #threads()} is 1.
     */
    default Optional<KernelBackend> openSingleThreaded() {
        return Optional.empty();
    }

    /**
     * The rows per chunk with which a device that copies overlaps a batch's transfers with its
     * kernel now (it may change as the backend learns); 0 when it does not overlap.
     */
    default int effectiveChunkRows() {
        return 0;
    }

    /**
     * The device memory kept for arguments with resident keys ({@link KernelInvocation#resident()}),
     * apart from what batches in flight may use; 0 when it keeps none.
     */
    default long residentBudget() {
        return 0;
    }

    /** Bytes of {@code invocation}'s arguments already in the device's memory (resident keys); 0 for none. */
    default long residentBytes(KernelInvocation invocation) {
        return 0;
    }

    /**
     * Whether {@code failure}, thrown by {@link #execute}, means the device had no memory (or no
     * buffer that large) for the batch, rather than that the device failed. The default looks for
     * a {@link DeviceMemoryError} among its causes, and takes Arrow's and the JVM's out-of-memory
     * errors as memory too.
     */
    default boolean isOutOfDeviceMemory(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof DeviceMemoryError d) {
                return d.outOfDeviceMemory();
            }
            if (t instanceof OutOfMemoryException || t instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }

    /**
     * This backend as {@code type}, for a tool or test that needs what only one kind of backend
     * offers (an OpenCL device's program statistics, its fault injection); empty when it is not
     * one. Placement never uses it.
     */
    default <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
    }

    @Override
    void close();
}
