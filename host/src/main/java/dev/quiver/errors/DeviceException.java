package dev.quiver.errors;

/**
 * A device failed and Quiver could not recover (under automatic placement a failed device run is recomputed on the CPU and never surfaces), or the placement named a device that cannot run the expression.
 */
public class DeviceException extends QuiverException {
    public DeviceException(String detail) {
        super(ErrorKind.DEVICE, detail, null);
    }

    public DeviceException(String detail, Throwable cause) {
        super(ErrorKind.DEVICE, detail, cause);
    }
}
