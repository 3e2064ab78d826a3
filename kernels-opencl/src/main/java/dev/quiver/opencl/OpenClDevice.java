package dev.quiver.opencl;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jocl.cl_device_id;
import org.jocl.cl_platform_id;

/**
 * One OpenCL device found by {@link OpenClRuntime#discover()}: what it reports about itself,
 * and the handle {@link OpenClBackend#open(OpenClDevice)} needs.
 *
 * <p>Immutable. Device handles are not reference counted for root devices, so an
 * {@code OpenClDevice} owns nothing and needs no closing; it stays valid for the life of the
 * JVM. Equality is identity: two identical GPUs are two devices.
 */
public final class OpenClDevice {

    /** The kind of device, from {@code CL_DEVICE_TYPE}. */
    public enum Type {
        CPU,
        GPU,
        ACCELERATOR,
        /** A custom device, or one that reports no type we know. */
        OTHER
    }

    private static final Pattern VERSION = Pattern.compile("OpenCL (\\d+)\\.(\\d+)");

    private final cl_platform_id platformId;
    private final cl_device_id id;
    private final OpenClPlatform platform;
    private final String name;
    private final String vendor;
    private final Type type;
    private final String driverVersion;
    private final String version;
    private final String openClCVersion;
    private final int computeUnits;
    private final long globalMemoryBytes;
    private final long maxAllocationBytes;
    private final long maxParameterBytes;
    private final boolean hostUnifiedMemory;
    private final boolean fp64;
    private final boolean fp32CorrectlyRoundedDivideSqrt;
    private final boolean fp32Denormals;
    private final boolean fullProfile;

    OpenClDevice(
            cl_platform_id platformId,
            cl_device_id id,
            OpenClPlatform platform,
            String name,
            String vendor,
            Type type,
            String driverVersion,
            String version,
            String openClCVersion,
            int computeUnits,
            long globalMemoryBytes,
            long maxAllocationBytes,
            long maxParameterBytes,
            boolean hostUnifiedMemory,
            boolean fp64,
            boolean fp32CorrectlyRoundedDivideSqrt,
            boolean fp32Denormals,
            boolean fullProfile) {
        this.platformId = platformId;
        this.id = id;
        this.platform = Objects.requireNonNull(platform, "platform is null");
        this.name = Objects.requireNonNull(name, "name is null");
        this.vendor = Objects.requireNonNull(vendor, "vendor is null");
        this.type = Objects.requireNonNull(type, "type is null");
        this.driverVersion = Objects.requireNonNull(driverVersion, "driverVersion is null");
        this.version = Objects.requireNonNull(version, "version is null");
        this.openClCVersion = Objects.requireNonNull(openClCVersion, "openClCVersion is null");
        this.computeUnits = computeUnits;
        this.globalMemoryBytes = globalMemoryBytes;
        this.maxAllocationBytes = maxAllocationBytes;
        this.maxParameterBytes = maxParameterBytes;
        this.hostUnifiedMemory = hostUnifiedMemory;
        this.fp64 = fp64;
        this.fp32CorrectlyRoundedDivideSqrt = fp32CorrectlyRoundedDivideSqrt;
        this.fp32Denormals = fp32Denormals;
        this.fullProfile = fullProfile;
    }

    /** The platform (driver) the device belongs to. */
    public OpenClPlatform platform() {
        return platform;
    }

    /** {@code CL_DEVICE_NAME}, trimmed (some drivers pad it with spaces). */
    public String name() {
        return name;
    }

    /** {@code CL_DEVICE_VENDOR}. */
    public String vendor() {
        return vendor;
    }

    public Type type() {
        return type;
    }

    /** {@code CL_DRIVER_VERSION}. */
    public String driverVersion() {
        return driverVersion;
    }

    /** {@code CL_DEVICE_VERSION}, e.g. {@code OpenCL 3.0 PoCL HSTR: ...}. */
    public String version() {
        return version;
    }

    /** {@code CL_DEVICE_OPENCL_C_VERSION}, e.g. {@code OpenCL C 1.2 PoCL}. */
    public String openClCVersion() {
        return openClCVersion;
    }

    /** {@code CL_DEVICE_MAX_COMPUTE_UNITS}. */
    public int computeUnits() {
        return computeUnits;
    }

    /** {@code CL_DEVICE_GLOBAL_MEM_SIZE} in bytes. */
    public long globalMemoryBytes() {
        return globalMemoryBytes;
    }

    /** {@code CL_DEVICE_MAX_MEM_ALLOC_SIZE}: the largest single buffer, in bytes. */
    public long maxAllocationBytes() {
        return maxAllocationBytes;
    }

    /** {@code CL_DEVICE_MAX_PARAMETER_SIZE}: the most bytes of arguments one kernel can take. */
    public long maxParameterBytes() {
        return maxParameterBytes;
    }

    /**
     * {@code CL_DEVICE_HOST_UNIFIED_MEMORY}: the device reads and writes host memory directly
     * (CPU devices such as PoCL, integrated GPUs), so Arrow memory is bound without a copy.
     */
    public boolean hostUnifiedMemory() {
        return hostUnifiedMemory;
    }

    /** Whether the device computes in double precision ({@code CL_DEVICE_DOUBLE_FP_CONFIG != 0}). */
    public boolean fp64() {
        return fp64;
    }

    /**
     * Whether single-precision division and square root can be correctly rounded
     * ({@code CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT} in {@code CL_DEVICE_SINGLE_FP_CONFIG}); the
     * OpenCL default allows 2.5 and 3 ulp of error.
     */
    public boolean fp32CorrectlyRoundedDivideSqrt() {
        return fp32CorrectlyRoundedDivideSqrt;
    }

    /** Whether single precision keeps subnormal numbers ({@code CL_FP_DENORM}) rather than flushing them to zero. */
    public boolean fp32Denormals() {
        return fp32Denormals;
    }

    /**
     * Whether the device implements the OpenCL full profile ({@code CL_DEVICE_PROFILE} is
     * {@code FULL_PROFILE}), which promises the math builtins' ulp bounds, their special cases
     * (infinities and NaN included) and correctly rounded {@code fma}; the embedded profile does not.
     */
    public boolean fullProfile() {
        return fullProfile;
    }

    /** True when {@link #version()} is at least OpenCL {@code major.minor}. */
    boolean versionAtLeast(int major, int minor) {
        Matcher m = VERSION.matcher(version);
        if (!m.find()) {
            return false;
        }
        int foundMajor = Integer.parseInt(m.group(1));
        int foundMinor = Integer.parseInt(m.group(2));
        return foundMajor > major || (foundMajor == major && foundMinor >= minor);
    }

    cl_platform_id platformId() {
        return platformId;
    }

    cl_device_id id() {
        return id;
    }

    @Override
    public String toString() {
        return name + " (" + type + ", " + platform.name() + ", " + version + ", " + computeUnits + " compute units, "
                + (hostUnifiedMemory ? "host-unified memory" : "device memory") + (fp64 ? ", fp64" : "") + ")";
    }
}
