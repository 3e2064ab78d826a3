package dev.quiver;

import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.OpenClDevice;
import dev.quiver.opencl.OpenClRuntime;

import java.util.ArrayList;
import java.util.List;

/** Opens a backend for every OpenCL device found; a device that fails to open is reported, not fatal. */
final class OpenClDevices {
    private OpenClDevices() {
    }

    record Opened(List<Device> devices, String status) {
    }

    static Opened open() {
        OpenClRuntime.Discovery discovery = OpenClRuntime.discover();
        List<Device> devices = new ArrayList<>();
        List<String> problems = new ArrayList<>(discovery.problems());
        for (OpenClDevice d : discovery.devices()) {
            try {
                OpenClBackend backend = OpenClBackend.open(d);
                Device.Kind kind = switch (d.type()) {
                    case CPU -> Device.Kind.OPENCL_CPU;
                    case GPU, ACCELERATOR -> Device.Kind.OPENCL_GPU;
                    case OTHER -> Device.Kind.OPENCL_OTHER;
                };
                devices.add(new Device(backend.name(), kind, describe(d), backend));
            } catch (RuntimeException e) {
                problems.add("device '" + d.name() + "' could not be opened: " + e.getMessage());
            }
        }
        String status = devices.isEmpty()
                ? (problems.isEmpty() ? "no OpenCL device found" : String.join("; ", problems))
                : devices.size() + " OpenCL device(s)" + (problems.isEmpty() ? "" : "; " + String.join("; ", problems));
        return new Opened(devices, status);
    }

    private static String describe(OpenClDevice d) {
        return String.format("%s %s, %s, %d compute units, %d MiB, driver %s, %s memory%s",
                d.type(), d.vendor().trim(), d.version().trim(), d.computeUnits(), d.globalMemoryBytes() >> 20,
                d.driverVersion().trim(), d.hostUnifiedMemory() ? "host-unified (zero copy)" : "discrete (explicit transfers)",
                d.fp64() ? "" : ", no fp64");
    }
}
