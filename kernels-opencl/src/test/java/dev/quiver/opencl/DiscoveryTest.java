package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Discovery runs once, never throws, and describes each device or says why there is none. */
class DiscoveryTest {

    @Test
    void discoveryIsCachedAndExplainsAnAbsence() {
        OpenClRuntime.Discovery found = OpenClRuntime.discover();
        assertSame(found, OpenClRuntime.discover());
        if (found.devices().isEmpty()) {
            String reason = found.reason().orElseThrow();
            assertFalse(reason.isBlank());
            if ("true".equals(System.getenv("CI"))) {
                fail("CI always has an OpenCL device (PoCL), but none was found: " + reason);
            }
        } else {
            assertTrue(found.reason().isEmpty());
        }
    }

    @Test
    void devicesDescribeThemselves() {
        for (OpenClDevice device : TestDevices.require()) {
            assertFalse(device.name().isBlank());
            assertEquals(device.name().strip(), device.name());
            assertFalse(device.platform().name().isBlank());
            assertTrue(device.version().startsWith("OpenCL "), device.version());
            assertTrue(device.openClCVersion().startsWith("OpenCL C "), device.openClCVersion());
            assertTrue(device.versionAtLeast(1, 2), device.version());
            assertTrue(device.computeUnits() > 0);
            assertTrue(device.globalMemoryBytes() > 0);
            assertTrue(device.maxAllocationBytes() > 0 && device.maxAllocationBytes() <= device.globalMemoryBytes());
            assertTrue(device.maxParameterBytes() >= 256);
            if (device.platform().name().equals("Portable Computing Language")) {
                // PoCL's CPU device: what CI runs on, and what the zero-copy path is proven on.
                assertEquals(OpenClDevice.Type.CPU, device.type());
                assertTrue(device.hostUnifiedMemory());
                assertTrue(device.fp64());
            }
        }
    }

    @Test
    void theReasonJoinsTheProblemsOnlyWhenNoDeviceIsLeft() {
        OpenClRuntime.Discovery none = new OpenClRuntime.Discovery(
                List.of(), List.of("OpenCL platform 'A' has no devices", "OpenCL platform 'B' has no devices"));
        assertEquals(
                "OpenCL platform 'A' has no devices; OpenCL platform 'B' has no devices",
                none.reason().orElseThrow());
        assertEquals(
                "no OpenCL device found",
                new OpenClRuntime.Discovery(List.of(), List.of()).reason().orElseThrow());
    }
}
