package dev.quiver.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Device;
import dev.quiver.cpu.CpuBackend;
import org.junit.jupiter.api.Test;

class DeviceIdentityTest {

    private static String cpu(int threads) {
        try (CpuBackend b = new CpuBackend(threads)) {
            return DeviceIdentity.of(new Device("cpu", Device.Kind.CPU, "test", b));
        }
    }

    @Test
    void endsWithTheQuiverVersion() {
        String version = QuiverVersion.get();
        assertFalse(version.isBlank());
        assertFalse(version.contains("${"), version);
        assertTrue(cpu(1).endsWith(" | quiver " + version), cpu(1));
    }

    @Test
    void theVersionIsMavensWhenBuiltByMaven() {
        // The resource is filtered at build time: the project version, not the placeholder or the fallback.
        assertTrue(QuiverVersion.get().matches("\\d+\\.\\d+.*"), QuiverVersion.get());
    }

    @Test
    void cpuIdentityNamesTheMachineAndDiffersByThreads() {
        String one = cpu(1);
        String two = cpu(2);
        assertNotEquals(one, two);
        assertEquals(one, cpu(1));
        assertTrue(one.startsWith("cpu | " + System.getProperty("os.arch") + " | "), one);
        assertTrue(one.contains("threads 1"), one);
        assertTrue(one.contains("processors " + Runtime.getRuntime().availableProcessors()), one);
        assertTrue(one.contains("java " + Runtime.version()), one);
        assertFalse(one.contains("\n"), one);
    }
}
