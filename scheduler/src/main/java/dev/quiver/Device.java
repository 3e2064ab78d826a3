package dev.quiver;

import dev.quiver.backend.KernelBackend;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.TransferMode;

import java.util.Objects;

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
        OPENCL_OTHER
    }

    public Device {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(kind, "kind is null");
        Objects.requireNonNull(description, "description is null");
        Objects.requireNonNull(backend, "backend is null");
    }

    public boolean isOpenCl() {
        return kind != Kind.CPU;
    }

    /**
     * How an OpenCL device moves Arrow memory ({@link TransferMode#ZERO_COPY} or {@link TransferMode#COPY},
     * never AUTO); empty for any other backend.
     */
    public java.util.Optional<TransferMode> transferMode() {
        return backend instanceof OpenClBackend b ? java.util.Optional.of(b.transferMode()) : java.util.Optional.empty();
    }
}
