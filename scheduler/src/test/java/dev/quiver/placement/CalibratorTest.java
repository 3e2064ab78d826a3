package dev.quiver.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Device;
import dev.quiver.cpu.CpuBackend;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.OpenClDevice;
import dev.quiver.opencl.OpenClRuntime;
import dev.quiver.opencl.TransferMode;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class CalibratorTest {

    @Test
    void measuresTheCpuOnOneThread() {
        try (CpuBackend backend = new CpuBackend(1)) {
            Device device = new Device("cpu", Device.Kind.CPU, "test", backend);
            DeviceFigures f = timed(device);
            assertEquals(1, f.threads());
            assertEquals(1.0, f.parallelEfficiency());
            assertEquals(f.nanosPerByte(), f.parallelNanosPerByte());
        }
    }

    @Test
    void measuresTheCpuOnAllThreads() {
        try (CpuBackend backend = new CpuBackend(2)) {
            Device device = new Device("cpu", Device.Kind.CPU, "test", backend);
            DeviceFigures f = timed(device);
            assertEquals(2, f.threads());
            assertTrue(f.parallelEfficiency() > 0 && f.parallelEfficiency() <= 1, f::describe);
            assertTrue(f.parallelNanosPerByte() > 0, f::describe);
        }
    }

    @Test
    void measuresTheFirstOpenClDevice() {
        List<OpenClDevice> devices = OpenClRuntime.discover().devices();
        Assumptions.assumeFalse(devices.isEmpty(), "no OpenCL device");
        OpenClDevice d = devices.getFirst();
        try (OpenClBackend backend = OpenClBackend.open(d)) {
            Device.Kind kind = switch (d.type()) {
                case CPU -> Device.Kind.OPENCL_CPU;
                case GPU, ACCELERATOR -> Device.Kind.OPENCL_GPU;
                default -> Device.Kind.OPENCL_OTHER;
            };
            Device device = new Device(backend.name(), kind, d.toString(), backend);
            DeviceFigures f = timed(device);
            assertEquals(1, f.threads());
            assertEquals(1.0, f.parallelEfficiency());
        }
    }

    @Test
    void measuresTheCopiesOfADeviceThatCopies() {
        // PoCL in COPY mode moves every batch to buffers of its own and back, as a discrete GPU does.
        List<OpenClDevice> devices = OpenClRuntime.discover().devices();
        Assumptions.assumeFalse(devices.isEmpty(), "no OpenCL device");
        try (OpenClBackend backend = OpenClBackend.open(devices.getFirst(), TransferMode.COPY)) {
            DeviceFigures f = timed(new Device(backend.name(), Device.Kind.OPENCL_OTHER, "copies", backend));
            assertEquals(1, f.threads());
        }
    }

    /** Measures {@code device}, checks what holds on every device, and prints the figures. */
    private static DeviceFigures timed(Device device) {
        String identity = DeviceIdentity.of(device);
        StringBuilder trace = new StringBuilder();
        long t0 = System.nanoTime();
        DeviceFigures f = Calibrator.measure(
                device, identity, line -> trace.append("  ").append(line).append('\n'));
        long millis = (System.nanoTime() - t0) / 1_000_000;
        System.out.println(device.name() + " (" + identity + "): " + f.describe() + "\n  calibrated in " + millis
                + " ms\n" + trace);
        assertTrue(
                f.source() == DeviceFigures.Source.MEASURED || f.source() == DeviceFigures.Source.MEASURED_COLD,
                f::describe);
        assertEquals(identity, f.identity());
        // The hard limit (2.5 s) plus the run in progress when it passes: a machine busy with other work stretches
        // both (6 s seen on a loaded 2-core machine), so the bound only catches a limit that does not hold at all.
        assertTrue(millis < 4 * Calibrator.HARD_LIMIT_NANOS / 1_000_000, () -> "calibration took " + millis + " ms");
        assertTrue(f.launchNanos() > 0 && f.launchNanos() < 10_000_000, f::describe);
        assertTrue(f.nanosPerByte() > 0, f::describe);
        boolean copies = device.backend().traits().copies();
        if (copies) {
            assertTrue(f.transferNanosPerByte() > 0, () -> "a device that copies: " + f.describe());
        } else {
            assertEquals(0.0, f.transferNanosPerByte(), f::describe);
        }
        assertTrue(f.arithmeticNanos() > 0, f::describe);
        assertTrue(f.divideNanos() > 0, f::describe);
        assertTrue(f.transcendentalNanos() > f.arithmeticNanos(), f::describe);
        assertTrue(f.calibrationMillis() > 0 && f.calibrationMillis() <= millis + 1, f::describe);
        return f;
    }
}
