package dev.quiver.opencl;

import java.util.Locale;
import java.util.Objects;

/**
 * How an {@link OpenClBackend} gives Arrow memory to its device. Chosen per device when the
 * backend opens ({@link #AUTO}: from the device's properties), and overridable in configuration
 * ({@code Quiver.builder().transferMode(...)}, {@code -Dquiver.opencl.transfer=auto|zero-copy|copy}).
 */
public enum TransferMode {
    /** {@link #ZERO_COPY} when the device shares host memory ({@link OpenClDevice#hostUnifiedMemory()}), else {@link #COPY}. */
    AUTO("auto"),
    /**
     * The device works on the Arrow buffers themselves ({@code CL_MEM_USE_HOST_PTR}); the output
     * is made visible to the host by mapping it. No explicit copy; on a device with its own
     * memory the driver may still copy behind the scenes.
     */
    ZERO_COPY("zero-copy"),
    /** Device buffers, one explicit write per argument and one read of the output, counted in the run. */
    COPY("copy");

    private final String label;

    TransferMode(String label) {
        this.label = label;
    }

    /** The name configuration uses: {@code auto}, {@code zero-copy} or {@code copy}. */
    public String label() {
        return label;
    }

    /** The mode a backend on {@code device} runs in: this one, or for {@link #AUTO} the device's own. */
    public TransferMode resolveFor(OpenClDevice device) {
        Objects.requireNonNull(device, "device is null");
        return this != AUTO ? this : device.hostUnifiedMemory() ? ZERO_COPY : COPY;
    }

    /**
     * The mode named {@code text}: {@code auto}, {@code zero-copy} or {@code copy} (any case;
     * {@code zero_copy} and {@code zerocopy} too, and surrounding blanks are ignored).
     *
     * @throws IllegalArgumentException for any other text, naming the allowed values
     */
    public static TransferMode parse(String text) {
        Objects.requireNonNull(text, "text is null");
        String t = text.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (TransferMode m : values()) {
            if (m.label.equals(t) || m.label.replace("-", "").equals(t)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown OpenCL transfer mode '" + text + "': use auto, zero-copy or copy");
    }

    /** The system property that sets the mode when the code does not: {@code auto}, {@code zero-copy} or {@code copy}. */
    public static final String PROPERTY = "quiver.opencl.transfer";

    /**
     * The mode {@code -Dquiver.opencl.transfer} names, or {@link #AUTO} when it is not set.
     *
     * @throws IllegalArgumentException when it names no mode (the message names the property and the allowed values)
     */
    public static TransferMode configured() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return AUTO;
        }
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-D" + PROPERTY + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return label;
    }
}
