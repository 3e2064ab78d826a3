package dev.quiver.backend;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.rowfn.ir.KernelProgram;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A device that runs {@link KernelProgram}s over Arrow memory: the CPU (Vector API) or one
 * OpenCL device. Implementations are thread-safe and own their native resources until
 * {@link #close()}.
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

    @Override
    void close();
}
