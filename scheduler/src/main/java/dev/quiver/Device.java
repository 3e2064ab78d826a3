package dev.quiver;

import dev.quiver.backend.KernelBackend;
import dev.quiver.opencl.TransferMode;
import java.util.Objects;
import java.util.Optional;

/**
 * A device Quiver can run on, with the backend that drives it. Immutable; the backend is shared by
 * every thread that evaluates on the device, and is thread-safe (an OpenCL device builds each
 * program once and gives each run its own kernel object; see docs/placement.md, "Threads").
 *
 * @param name        the backend's name ({@code cpu}, {@code opencl:<device>})
 * @param kind        what the device is
 * @param description a one-line description (vendor, driver, memory)
 * @param backend     the backend; owned by the {@link Quiver} instance
 */
public record Device(String name, Kind kind, String description, KernelBackend backend) {
    public enum Kind {
        /** The calling thread, with the Vector API. */
        CPU,
        /** An OpenCL device of type GPU or accelerator. */
        OPENCL_GPU,
        /** An OpenCL device of type CPU (for example PoCL). */
        OPENCL_CPU,
        /** An OpenCL device of a custom or unknown type: used only when named or with placement OPENCL. */
        OPENCL_OTHER,
        /**
         * A device of a backend of your own that is not OpenCL: AUTO places batches on it by its
         * backend's {@link dev.quiver.backend.DeviceTraits} and its figures, as on any other device;
         * placement OPENCL passes it over.
         */
        CUSTOM
    }

    public Device {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(kind, "kind is null");
        Objects.requireNonNull(description, "description is null");
        Objects.requireNonNull(backend, "backend is null");
    }

    /** Whether this is an OpenCL device: one that placement OPENCL may use. */
    public boolean isOpenCl() {
        return kind != Kind.CPU && kind != Kind.CUSTOM;
    }

    /**
     * How the device moves Arrow memory, as its backend's {@link dev.quiver.backend.DeviceTraits}
     * say: {@link TransferMode#ZERO_COPY} or {@link TransferMode#COPY} (never AUTO); empty for a
     * device that reads the host's memory itself (the CPU).
     */
    public Optional<TransferMode> transferMode() {
        return switch (backend.traits().memory()) {
            case HOST -> Optional.empty();
            case ZERO_COPY -> Optional.of(TransferMode.ZERO_COPY);
            case COPY -> Optional.of(TransferMode.COPY);
        };
    }
}
