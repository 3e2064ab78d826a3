package dev.quiver.placement;

import dev.quiver.Device;

/** What a device's figures are valid for. (Stub: to be replaced.) */
public final class DeviceIdentity {
    private DeviceIdentity() {
    }

    public static String of(Device device) {
        return device.name() + " | " + device.description();
    }
}
