package dev.quiver.opencl;

import dev.quiver.backend.KernelRun;
import java.util.List;
import java.util.Objects;

/**
 * A kernel run with the addresses its buffers used, the evidence that a zero-copy run worked on
 * the Arrow memory itself. See {@link OpenClBackend#executeTraced}.
 *
 * @param run                 what {@link OpenClBackend#execute} reports
 * @param mappedOutputAddress where mapping the output buffer put it in host memory; 0 in
 *                            {@link TransferMode#COPY} mode (nothing is mapped) and for 0 rows
 * @param hostPointers        {@code CL_MEM_HOST_PTR} of each buffer, arguments in order then the
 *                            output; 0 for a buffer in device memory. Empty for 0 rows.
 */
public record TracedRun(KernelRun run, long mappedOutputAddress, List<Long> hostPointers) {
    public TracedRun {
        Objects.requireNonNull(run, "run is null");
        hostPointers = List.copyOf(hostPointers);
    }
}
