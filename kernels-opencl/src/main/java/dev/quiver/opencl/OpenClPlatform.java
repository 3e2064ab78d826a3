package dev.quiver.opencl;

import java.util.Objects;

/**
 * What an OpenCL platform (one installed driver, registered with the ICD loader) says about
 * itself.
 *
 * @param name    {@code CL_PLATFORM_NAME}, e.g. {@code Portable Computing Language}
 * @param vendor  {@code CL_PLATFORM_VENDOR}
 * @param version {@code CL_PLATFORM_VERSION}, e.g. {@code OpenCL 3.0 PoCL 3.1}
 */
public record OpenClPlatform(String name, String vendor, String version) {
    public OpenClPlatform {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(vendor, "vendor is null");
        Objects.requireNonNull(version, "version is null");
    }
}
