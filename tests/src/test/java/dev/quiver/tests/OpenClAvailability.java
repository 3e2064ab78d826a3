package dev.quiver.tests;

import dev.quiver.Quiver;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * OpenCL tests run on every device found. Where there is none they are skipped with the reason,
 * except in CI (environment CI=true), where PoCL is always installed: there a missing device
 * is a failure, so OpenCL tests can never silently stop running.
 */
final class OpenClAvailability {
    private OpenClAvailability() {}

    static void requireOpenCl(Quiver quiver) {
        if (!quiver.openClDevices().isEmpty()) {
            return;
        }
        String why = "no OpenCL device: " + quiver.openClStatus();
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail(why + " (CI must have PoCL: see ci/setup.sh)");
        }
        Assumptions.assumeTrue(false, why);
    }
}
