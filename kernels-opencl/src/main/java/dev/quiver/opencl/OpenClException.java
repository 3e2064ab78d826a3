package dev.quiver.opencl;

import dev.quiver.backend.DeviceMemoryError;
import dev.quiver.errors.DeviceException;
import java.io.Serial;
import java.util.Objects;
import org.jocl.CL;

/**
 * An OpenCL call that returned an error code. The message names the call and the code, both
 * symbolic and numeric, followed by any detail the driver gave (a build log, for instance):
 * {@code clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11): <build log>}.
 */
public final class OpenClException extends DeviceException implements DeviceMemoryError {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errorCode;

    /**
     * @param call      the OpenCL function that failed, e.g. {@code clCreateBuffer}
     * @param errorCode the code it returned (negative)
     * @param detail    more text for the message, or empty
     */
    public OpenClException(String call, int errorCode, String detail) {
        super(message(call, errorCode, detail));
        this.call = call;
        this.errorCode = errorCode;
    }

    /** The OpenCL function that failed. */
    public String call() {
        return call;
    }

    /** The error code it returned, e.g. {@code -11} for {@code CL_BUILD_PROGRAM_FAILURE}. */
    public int errorCode() {
        return errorCode;
    }

    /**
     * Out of device (or driver host) memory, or a buffer too large for the device. Not
     * {@code CL_OUT_OF_RESOURCES}: drivers also report kernel faults and watchdog timeouts with it.
     */
    @Override
    public boolean outOfDeviceMemory() {
        return errorCode == CL.CL_MEM_OBJECT_ALLOCATION_FAILURE
                || errorCode == CL.CL_OUT_OF_HOST_MEMORY
                || errorCode == CL.CL_INVALID_BUFFER_SIZE;
    }

    /** Throws when {@code code} is not {@code CL_SUCCESS}. */
    static void check(int code, String call) {
        if (code != CL.CL_SUCCESS) {
            throw new OpenClException(call, code, "");
        }
    }

    private static String message(String call, int errorCode, String detail) {
        Objects.requireNonNull(call, "call is null");
        Objects.requireNonNull(detail, "detail is null");
        String text = call + " failed: " + CL.stringFor_errorCode(errorCode) + " (" + errorCode + ")";
        return detail.isEmpty() ? text : text + ": " + detail;
    }
}
