package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.backend.IdentityText;

/**
 * What a device's figures are valid for: the key of the {@link CalibrationCache}. Two devices
 * with the same identity are expected to run the same programs at the same speed; anything
 * that changes that (another driver, another CPU, more threads, another JVM, another Quiver)
 * changes the identity, so the figures are measured again.
 *
 * <ul>
 * <li>OpenCL: {@code opencl | platform <name> <version> | device <name> | vendor <vendor> |
 * driver <driver version> | <device version> | zero copy|copies | quiver <version>} (one device
 * driven both ways has two sets of figures)
 * <li>CPU: {@code cpu | <os.arch> | <CPU model> | processors <n> | threads <n> | vector <bits>
 * bits | java <version> | quiver <version>}
 * <li>Any other backend: its {@link dev.quiver.backend.KernelBackend#identity()}, else
 * {@code <device name> | <description>}, then {@code | quiver <version>}
 * </ul>
 * Each backend writes its own identity; this only adds the version of Quiver.
 */
public final class DeviceIdentity {
    private DeviceIdentity() {}

    public static String of(Device device) {
        String base =
                device.backend().identity().orElseGet(() -> IdentityText.join(device.name(), device.description()));
        return base + " | quiver " + QuiverVersion.get();
    }
}
