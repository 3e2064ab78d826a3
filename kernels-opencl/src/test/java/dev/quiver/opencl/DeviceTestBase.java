package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * One {@link OpenClBackend} per device for the test class (so compiled programs are reused
 * across its tests), two on a device that shares host memory (zero copy, and the COPY path of
 * discrete GPUs), and a fresh allocator per test that must end at zero bytes.
 */
abstract class DeviceTestBase {
    private static final List<OpenClBackend> BACKENDS = new ArrayList<>();

    protected BufferAllocator allocator;

    @BeforeAll
    static void openBackends() {
        for (OpenClDevice device : OpenClRuntime.discover().devices()) {
            BACKENDS.add(OpenClBackend.open(device));
            if (device.hostUnifiedMemory()) {
                // Also the explicit-transfer path a discrete GPU takes, so it runs every test here too.
                BACKENDS.add(OpenClBackend.open(device, TransferMode.COPY));
            }
        }
    }

    @AfterAll
    static void closeBackends() {
        BACKENDS.forEach(OpenClBackend::close);
        BACKENDS.clear();
    }

    /**
     * The parameter source of {@link OnEveryDevice}. Without a device it fails in CI and skips
     * elsewhere, once per test method, so each skip is reported with its reason.
     */
    static List<OpenClBackend> backends() {
        TestDevices.require();
        return List.copyOf(BACKENDS);
    }

    @BeforeEach
    void newAllocator() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void noLeaks() {
        assertEquals(0, allocator.getAllocatedMemory(), "Arrow memory leaked");
        allocator.close();
    }
}
