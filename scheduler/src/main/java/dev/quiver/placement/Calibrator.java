package dev.quiver.placement;

import dev.quiver.Device;

/**
 * Measures a device's {@link DeviceFigures} with short micro-benchmarks run through the device's
 * own backend. (Stub: to be replaced by the real micro-benchmarks.)
 */
public final class Calibrator {
    private Calibrator() {
    }

    /** Measures {@code device}; the figures carry {@code identity} and source MEASURED. */
    public static DeviceFigures measure(Device device, String identity) {
        return defaults(device, identity);
    }

    /** Rough figures for the device's kind, source DEFAULT: used when calibration is off or fails. */
    public static DeviceFigures defaults(Device device, String identity) {
        int threads = device.backend() instanceof dev.quiver.cpu.CpuBackend c ? c.threads() : 1;
        return switch (device.kind()) {
            case CPU -> new DeviceFigures(identity, 2_000, 0.1, 0.1, 0, 0.5, 2, 10, threads, 0.8,
                    System.currentTimeMillis(), 0, DeviceFigures.Source.DEFAULT);
            case OPENCL_GPU -> new DeviceFigures(identity, 30_000, 0.001, 0.001, 0.1, 0.005, 0.02, 0.05, 1, 1,
                    System.currentTimeMillis(), 0, DeviceFigures.Source.DEFAULT);
            case OPENCL_CPU, OPENCL_OTHER -> new DeviceFigures(identity, 50_000, 0.1, 0.1, 0, 0.5, 2, 10, 1, 1,
                    System.currentTimeMillis(), 0, DeviceFigures.Source.DEFAULT);
        };
    }
}
