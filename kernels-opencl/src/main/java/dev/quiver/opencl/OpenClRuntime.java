package dev.quiver.opencl;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_device_id;
import org.jocl.cl_platform_id;

/**
 * Finds the OpenCL devices of this machine, once per JVM.
 *
 * <p>Having no device is a normal state, not an error: {@link #discover()} never throws, and
 * says in {@link Discovery#reason()} what is missing (the OpenCL loader library, a registered
 * driver, a usable device) and how to install it.
 *
 * <pre>{@code
 * OpenClRuntime.Discovery found = OpenClRuntime.discover();
 * if (found.devices().isEmpty()) {
 *     log.info("OpenCL off: " + found.reason().orElseThrow());
 * }
 * }</pre>
 */
public final class OpenClRuntime {
    private static final String INSTALL_HINT =
            "install the OpenCL loader (ocl-icd-opencl-dev) and a driver such as pocl-opencl-icd";

    private OpenClRuntime() {}

    /**
     * The result of looking for devices.
     *
     * @param devices  the usable devices, in platform order then device order
     * @param problems what went wrong on the way, in words: a missing library, a platform
     *                 without devices, a device that failed to answer; empty when all went well
     */
    public record Discovery(List<OpenClDevice> devices, List<String> problems) {
        public Discovery {
            devices = List.copyOf(devices);
            problems = List.copyOf(problems);
        }

        /** Why there is no device, present only when {@link #devices()} is empty. */
        public Optional<String> reason() {
            if (!devices.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(problems.isEmpty() ? "no OpenCL device found" : String.join("; ", problems));
        }
    }

    /** The devices of this machine. Probes on the first call only; later calls return the same object. */
    public static Discovery discover() {
        return Cache.DISCOVERY;
    }

    /** Initialization-on-demand holder: the JVM runs the probe once, thread-safely. */
    private static final class Cache {
        static final Discovery DISCOVERY = probe();
    }

    private static Discovery probe() {
        List<String> problems = new ArrayList<>();
        List<OpenClDevice> devices = new ArrayList<>();
        try {
            NativeEnvironment.keepJavaDivisionByZero();
            // Every call checks its own return code; JOCL must not turn them into CLExceptions.
            CL.setExceptionsEnabled(false);
            for (cl_platform_id platform : platforms(problems)) {
                addDevices(platform, devices, problems);
            }
        } catch (LinkageError e) {
            // JOCL's native part failed to load, or found no libOpenCL.so to bind to.
            problems.add("the OpenCL library could not be loaded (" + e.getMessage() + "): " + INSTALL_HINT);
        } catch (UnsupportedOperationException e) {
            // JOCL's answer when the installed loader lacks an entry point it needs.
            problems.add("the OpenCL loader is too old (" + e.getMessage() + "): " + INSTALL_HINT);
        }
        return new Discovery(devices, problems);
    }

    private static List<cl_platform_id> platforms(List<String> problems) {
        int[] count = new int[1];
        int rc = CL.clGetPlatformIDs(0, null, count);
        if (rc == CL.CL_PLATFORM_NOT_FOUND_KHR || (rc == CL.CL_SUCCESS && count[0] == 0)) {
            problems.add(
                    "no OpenCL platform registered in /etc/OpenCL/vendors: install a driver such as pocl-opencl-icd");
            return List.of();
        }
        if (rc != CL.CL_SUCCESS) {
            problems.add(new OpenClException("clGetPlatformIDs", rc, "").getMessage());
            return List.of();
        }
        cl_platform_id[] ids = new cl_platform_id[count[0]];
        rc = CL.clGetPlatformIDs(ids.length, ids, null);
        if (rc != CL.CL_SUCCESS) {
            problems.add(new OpenClException("clGetPlatformIDs", rc, "").getMessage());
            return List.of();
        }
        return List.of(ids);
    }

    private static void addDevices(cl_platform_id platformId, List<OpenClDevice> devices, List<String> problems) {
        OpenClPlatform platform;
        try {
            platform = new OpenClPlatform(
                    platformString(platformId, CL.CL_PLATFORM_NAME).trim(),
                    platformString(platformId, CL.CL_PLATFORM_VENDOR).trim(),
                    platformString(platformId, CL.CL_PLATFORM_VERSION).trim());
        } catch (OpenClException e) {
            problems.add("an OpenCL platform did not describe itself: " + e.getMessage());
            return;
        }
        int[] count = new int[1];
        int rc = CL.clGetDeviceIDs(platformId, CL.CL_DEVICE_TYPE_ALL, 0, null, count);
        if (rc == CL.CL_DEVICE_NOT_FOUND || (rc == CL.CL_SUCCESS && count[0] == 0)) {
            problems.add("OpenCL platform '" + platform.name() + "' has no devices");
            return;
        }
        if (rc != CL.CL_SUCCESS) {
            problems.add("OpenCL platform '" + platform.name() + "': "
                    + new OpenClException("clGetDeviceIDs", rc, "").getMessage());
            return;
        }
        cl_device_id[] ids = new cl_device_id[count[0]];
        rc = CL.clGetDeviceIDs(platformId, CL.CL_DEVICE_TYPE_ALL, ids.length, ids, null);
        if (rc != CL.CL_SUCCESS) {
            problems.add("OpenCL platform '" + platform.name() + "': "
                    + new OpenClException("clGetDeviceIDs", rc, "").getMessage());
            return;
        }
        for (cl_device_id id : ids) {
            try {
                if (deviceUInt(id, CL.CL_DEVICE_AVAILABLE) == 0) {
                    problems.add("OpenCL device '"
                            + deviceString(id, CL.CL_DEVICE_NAME).trim() + "' of platform '" + platform.name()
                            + "' is not available");
                    continue;
                }
                devices.add(describe(platformId, id, platform));
            } catch (OpenClException e) {
                problems.add("an OpenCL device of platform '" + platform.name() + "' did not describe itself: "
                        + e.getMessage());
            }
        }
    }

    private static OpenClDevice describe(cl_platform_id platformId, cl_device_id id, OpenClPlatform platform) {
        long typeBits = deviceULong(id, CL.CL_DEVICE_TYPE);
        OpenClDevice.Type type = (typeBits & CL.CL_DEVICE_TYPE_GPU) != 0
                ? OpenClDevice.Type.GPU
                : (typeBits & CL.CL_DEVICE_TYPE_CPU) != 0
                        ? OpenClDevice.Type.CPU
                        : (typeBits & CL.CL_DEVICE_TYPE_ACCELERATOR) != 0
                                ? OpenClDevice.Type.ACCELERATOR
                                : OpenClDevice.Type.OTHER;
        long single = deviceULong(id, CL.CL_DEVICE_SINGLE_FP_CONFIG);
        // Devices without fp64 may reject the query (OpenCL 1.0/1.1) or answer 0 (1.2 and later).
        long dbl = optionalDeviceULong(id, CL.CL_DEVICE_DOUBLE_FP_CONFIG);
        boolean unified = hostUnifiedMemory(id);
        return new OpenClDevice(
                platformId,
                id,
                platform,
                deviceString(id, CL.CL_DEVICE_NAME).trim(),
                deviceString(id, CL.CL_DEVICE_VENDOR).trim(),
                type,
                deviceString(id, CL.CL_DRIVER_VERSION).trim(),
                deviceString(id, CL.CL_DEVICE_VERSION).trim(),
                deviceString(id, CL.CL_DEVICE_OPENCL_C_VERSION).trim(),
                deviceUInt(id, CL.CL_DEVICE_MAX_COMPUTE_UNITS),
                deviceULong(id, CL.CL_DEVICE_GLOBAL_MEM_SIZE),
                deviceULong(id, CL.CL_DEVICE_MAX_MEM_ALLOC_SIZE),
                deviceSize(id, CL.CL_DEVICE_MAX_PARAMETER_SIZE),
                unified,
                dbl != 0,
                (single & CL.CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0,
                (single & CL.CL_FP_DENORM) != 0,
                "FULL_PROFILE".equals(deviceString(id, CL.CL_DEVICE_PROFILE).trim()));
    }

    /** Deprecated since OpenCL 2.0 but still answered by the drivers we know; no answer means no. */
    @SuppressWarnings("deprecation")
    private static boolean hostUnifiedMemory(cl_device_id id) {
        return optionalDeviceUInt(id, CL.CL_DEVICE_HOST_UNIFIED_MEMORY) != 0;
    }

    private static String platformString(cl_platform_id id, int param) {
        long[] size = new long[1];
        OpenClException.check(CL.clGetPlatformInfo(id, param, 0, null, size), "clGetPlatformInfo");
        byte[] bytes = new byte[(int) size[0]];
        OpenClException.check(
                CL.clGetPlatformInfo(id, param, bytes.length, Pointer.to(bytes), null), "clGetPlatformInfo");
        return cString(bytes);
    }

    private static String deviceString(cl_device_id id, int param) {
        long[] size = new long[1];
        OpenClException.check(CL.clGetDeviceInfo(id, param, 0, null, size), "clGetDeviceInfo");
        byte[] bytes = new byte[(int) size[0]];
        OpenClException.check(CL.clGetDeviceInfo(id, param, bytes.length, Pointer.to(bytes), null), "clGetDeviceInfo");
        return cString(bytes);
    }

    static int deviceUInt(cl_device_id id, int param) {
        int[] value = new int[1];
        OpenClException.check(
                CL.clGetDeviceInfo(id, param, Sizeof.cl_uint, Pointer.to(value), null), "clGetDeviceInfo");
        return value[0];
    }

    private static long deviceULong(cl_device_id id, int param) {
        long[] value = new long[1];
        OpenClException.check(
                CL.clGetDeviceInfo(id, param, Sizeof.cl_ulong, Pointer.to(value), null), "clGetDeviceInfo");
        return value[0];
    }

    private static long deviceSize(cl_device_id id, int param) {
        long[] value = new long[1];
        OpenClException.check(CL.clGetDeviceInfo(id, param, Sizeof.size_t, Pointer.to(value), null), "clGetDeviceInfo");
        return value[0];
    }

    private static int optionalDeviceUInt(cl_device_id id, int param) {
        int[] value = new int[1];
        return CL.clGetDeviceInfo(id, param, Sizeof.cl_uint, Pointer.to(value), null) == CL.CL_SUCCESS ? value[0] : 0;
    }

    private static long optionalDeviceULong(cl_device_id id, int param) {
        long[] value = new long[1];
        return CL.clGetDeviceInfo(id, param, Sizeof.cl_ulong, Pointer.to(value), null) == CL.CL_SUCCESS ? value[0] : 0;
    }

    /** OpenCL strings are NUL-terminated; the reported size includes the terminator. */
    static String cString(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes is null");
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }
}
