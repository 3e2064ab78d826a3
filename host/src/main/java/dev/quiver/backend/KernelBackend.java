package dev.quiver.backend;

import dev.quiver.rowfn.ir.KernelProgram;

import java.util.Optional;

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

    @Override
    void close();
}
