package dev.quiver.tests;

import dev.quiver.Device;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A device that computes every kernel segment with the scalar reference ({@link RowInterpreter}:
 * row by row, boxed, StrictMath): the oracle the CPU and OpenCL backends are held to, plugged in
 * as a device so a whole expression can be evaluated with its fused segments on the reference.
 * It is of kind {@link Device.Kind#OPENCL_OTHER}, so AUTO never picks it; evaluate on it by name.
 */
final class ScalarReferenceBackend implements KernelBackend {
    /**
     * Named the way real OpenCL devices can be (PoCL on an Intel CPU calls itself
     * {@code pthread-skylake-avx512-Intel(R) Xeon(R) Processor}): parentheses, a comma and
     * non-ASCII letters, so every fuzz comparison of errors across devices also proves that
     * nothing reads the device out of a message.
     */
    static final String NAME = "reference-Intel(R) Xeon(R) (RowInterpreter), één rij per keer";

    /** The device to add with {@code Quiver.builder().addDevice(...)}. */
    static Device device() {
        return new Device(
                NAME,
                Device.Kind.OPENCL_OTHER,
                "the scalar reference (RowInterpreter), row by row",
                new ScalarReferenceBackend());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<String> unsupportedReason(KernelProgram program) {
        return Optional.empty();
    }

    @Override
    public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
        long t0 = System.nanoTime();
        int rows = invocation.rows();
        if (invocation.mode() == RowMode.ALL_ROWS && program.isFallible()) {
            // ALL_ROWS reports a failing row whether or not it is null, as the backends do.
            try (Arena scratch = Arena.ofConfined()) {
                MemorySegment all = scratch.allocate((rows + 63) / 64 * 8L, 8);
                all.fill((byte) 0xFF);
                long failing = RowInterpreter.firstFailingRow(program, invocation.args(), all, rows);
                if (failing >= 0) {
                    throw RowInterpreter.failureAt(program, invocation.args(), failing, NAME);
                }
            }
        }
        RowInterpreter.run(program, invocation.args(), invocation.validity(), invocation.out(), rows, NAME);
        return new KernelRun(NAME, 0, 0, System.nanoTime() - t0, rows);
    }

    @Override
    public void close() {}
}
