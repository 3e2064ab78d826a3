package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import org.junit.jupiter.api.Assumptions;

/** The OpenCL devices tests run on: all that exist. None fails the build in CI (which has PoCL) and skips elsewhere. */
final class TestDevices {
    private TestDevices() {}

    static List<OpenClDevice> require() {
        OpenClRuntime.Discovery found = OpenClRuntime.discover();
        if (found.devices().isEmpty()) {
            String reason = found.reason().orElseThrow();
            if ("true".equals(System.getenv("CI"))) {
                fail("CI always has an OpenCL device (PoCL), but none was found: " + reason);
            }
            Assumptions.assumeTrue(false, reason);
        }
        return found.devices();
    }
}
