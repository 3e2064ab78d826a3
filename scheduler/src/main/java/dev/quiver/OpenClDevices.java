package dev.quiver;

import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.OpenClDevice;
import dev.quiver.opencl.OpenClRuntime;
import dev.quiver.opencl.ProgramBinaryCache;
import dev.quiver.opencl.TransferMode;
import java.util.ArrayList;
import java.util.List;

/** Opens a backend for every OpenCL device found; a device that fails to open is reported, not fatal. */
final class OpenClDevices {
    private OpenClDevices() {}

    record Opened(List<Device> devices, String status) {}

    /** Opens every device found, each in {@code mode} ({@link TransferMode#AUTO}: the device's own), keeping the programs it builds in {@code programCache}. */
    static Opened open(TransferMode mode, ProgramBinaryCache programCache) {
        OpenClRuntime.Discovery discovery = OpenClRuntime.discover();
        List<Device> devices = new ArrayList<>();
        List<String> problems = new ArrayList<>(discovery.problems());
        boolean pocl = false;
        for (OpenClDevice d : discovery.devices()) {
            try {
                OpenClBackend backend = OpenClBackend.open(d, mode, programCache);
                Device.Kind kind = switch (d.type()) {
                    case CPU -> Device.Kind.OPENCL_CPU;
                    case GPU, ACCELERATOR -> Device.Kind.OPENCL_GPU;
                    case OTHER -> Device.Kind.OPENCL_OTHER;
                };
                devices.add(new Device(backend.name(), kind, describe(d, backend.transferMode(), mode), backend));
                pocl |= d.platform().name().contains("Portable Computing Language");
            } catch (RuntimeException e) {
                problems.add("device '" + d.name() + "' could not be opened: " + e.getMessage());
            }
        }
        if (pocl) {
            warnWithoutSignalChaining();
        }
        String status = devices.isEmpty()
                ? (problems.isEmpty() ? "no OpenCL device found" : String.join("; ", problems))
                : devices.size() + " OpenCL device(s)" + (problems.isEmpty() ? "" : "; " + String.join("; ", problems));
        return new Opened(devices, status);
    }

    private static volatile boolean warned;

    /**
     * PoCL builds kernels with LLVM inside the process, and LLVM installs signal handlers of its
     * own; the JVM takes SIGSEGV for safepoints and null checks, so one that lands while LLVM's
     * handler is installed kills the process (exit 139, no hs_err file). HotSpot's signal
     * chaining ({@code LD_PRELOAD=$JAVA_HOME/lib/libjsig.so}) keeps the JVM's handlers first.
     * Said once per process, when a PoCL device is in use without it.
     */
    private static void warnWithoutSignalChaining() {
        String preload = System.getenv("LD_PRELOAD");
        if (!warned && (preload == null || !preload.contains("libjsig"))) {
            warned = true;
            System.getLogger(Quiver.class.getName())
                    .log(
                            System.Logger.Level.WARNING,
                            "PoCL builds OpenCL kernels with LLVM"
                                    + " in this process, and LLVM replaces the JVM's SIGSEGV handler while it does: start the JVM with"
                                    + " LD_PRELOAD=" + System.getProperty("java.home")
                                    + "/lib/libjsig.so (HotSpot signal chaining),"
                                    + " or a JVM safepoint during a kernel build can crash the process");
        }
    }

    /** The device, its memory and the transfer mode in use, and whether configuration chose it (else AUTO did). */
    private static String describe(OpenClDevice d, TransferMode inUse, TransferMode configured) {
        return String.format(
                "%s %s, %s, %d compute units, %d MiB, driver %s, %s memory, transfer %s (%s)%s",
                d.type(),
                d.vendor().trim(),
                d.version().trim(),
                d.computeUnits(),
                d.globalMemoryBytes() >> 20,
                d.driverVersion().trim(),
                d.hostUnifiedMemory() ? "host-unified" : "discrete",
                inUse.label(),
                configured == TransferMode.AUTO ? "auto" : "configured",
                d.fp64() ? "" : ", no fp64");
    }
}
