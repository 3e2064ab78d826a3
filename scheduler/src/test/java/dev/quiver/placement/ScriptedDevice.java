package dev.quiver.placement;

import dev.quiver.backend.DeviceMemoryError;
import dev.quiver.backend.DeviceTraits;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.cpu.CpuBackend;
import dev.quiver.errors.DeviceException;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device of the test's own, registered through {@code Quiver.builder().addDevice}: it says what
 * it is only through its {@link DeviceTraits}, computes with a one-thread CPU backend underneath
 * (so its results are exact), and can be scripted to be still building, to fail, or to run out of
 * memory. It counts what it was asked.
 */
final class ScriptedDevice implements KernelBackend {
    private final String name;
    private final DeviceTraits traits;
    private final CpuBackend cpu = new CpuBackend(1);
    final AtomicInteger attempts = new AtomicInteger();
    final AtomicInteger runs = new AtomicInteger();
    final AtomicInteger prepared = new AtomicInteger();
    /** Whether its programs are built; while false, {@link #prepareAsync} returns {@link #build}. */
    volatile boolean ready = true;

    volatile CompletableFuture<Void> build = new CompletableFuture<>();
    /** Every run throws this, when set (after scribbling over the output, as a half-finished run would). */
    volatile RuntimeException failure;

    ScriptedDevice(String name, DeviceTraits traits) {
        this.name = name;
        this.traits = traits;
    }

    /** A failure of the device itself. */
    static RuntimeException deviceFailure() {
        return new DeviceException("scripted device failure");
    }

    /** A failure for want of device memory, as the backend's exception says. */
    static RuntimeException outOfMemory() {
        return new OutOfDeviceMemory();
    }

    private static final class OutOfDeviceMemory extends RuntimeException implements DeviceMemoryError {
        OutOfDeviceMemory() {
            super("scripted: no device memory for the batch");
        }

        @Override
        public boolean outOfDeviceMemory() {
            return true;
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceTraits traits() {
        return traits;
    }

    @Override
    public Optional<String> unsupportedReason(KernelProgram program) {
        return Optional.empty();
    }

    @Override
    public boolean isReady(KernelProgram program) {
        return ready;
    }

    @Override
    public CompletableFuture<Void> prepareAsync(KernelProgram program) {
        prepared.incrementAndGet();
        return ready ? CompletableFuture.completedFuture(null) : build;
    }

    @Override
    public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
        attempts.incrementAndGet();
        RuntimeException f = failure;
        if (f != null) {
            invocation.out().fill((byte) 0x5A);
            throw f;
        }
        KernelRun r = cpu.execute(program, invocation);
        runs.incrementAndGet();
        return new KernelRun(name, 0, 0, r.nanos(), r.rowsComputed());
    }

    @Override
    public void close() {
        cpu.close();
    }
}
