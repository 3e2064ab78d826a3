package dev.quiver.opencl;

import java.util.List;

/**
 * What a {@link DataPath} reports of one batch's launch, besides the bytes it moved (counted in
 * its {@link BatchRun}).
 *
 * @param failingRow          the first computed row that failed, {@link Integer#MAX_VALUE} when none did
 * @param mappedOutputAddress where mapping the output put it in host memory (zero copy), else 0
 * @param hostPointers        {@code CL_MEM_HOST_PTR} of each argument's buffer, then the output's,
 *                            when the run is traced; else empty
 */
record LaunchResult(int failingRow, long mappedOutputAddress, List<Long> hostPointers) {}
