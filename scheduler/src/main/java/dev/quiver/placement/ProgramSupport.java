package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether each device can run each program of one expression ({@code unsupportedReason}): fixed
 * per program and device, so asked of the backend once and then looked up on every batch.
 */
final class ProgramSupport {
    private final Map<Device, Map<KernelProgram, Optional<String>>> unsupported = new ConcurrentHashMap<>();

    /** Why {@code device} cannot run {@code program}, or empty when it can. */
    Optional<String> unsupportedOn(Device device, KernelProgram program) {
        // get before computeIfAbsent: the latter may lock a bin even when the key is there.
        Map<KernelProgram, Optional<String>> byProgram = unsupported.get(device);
        if (byProgram == null) {
            byProgram = unsupported.computeIfAbsent(device, d -> new ConcurrentHashMap<>());
        }
        Optional<String> known = byProgram.get(program);
        return known != null
                ? known
                : byProgram.computeIfAbsent(program, p -> device.backend().unsupportedReason(p));
    }
}
