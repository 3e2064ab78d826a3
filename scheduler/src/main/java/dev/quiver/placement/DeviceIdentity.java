package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.cpu.CpuBackend;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.TransferMode;
import dev.quiver.opencl.OpenClDevice;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

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
 * <li>Any other backend: {@code <device name> | <description> | quiver <version>}
 * </ul>
 */
public final class DeviceIdentity {
    private DeviceIdentity() {
    }

    public static String of(Device device) {
        String base = switch (device.backend()) {
            case OpenClBackend cl -> openCl(cl.device()) + (cl.transferMode() == TransferMode.COPY ? " | copies" : " | zero copy");
            case CpuBackend cpu -> cpu(cpu.threads());
            default -> clean(device.name()) + " | " + clean(device.description());
        };
        return base + " | quiver " + QuiverVersion.get();
    }

    private static String openCl(OpenClDevice d) {
        return String.join(" | ", "opencl",
                "platform " + clean(d.platform().name()) + " " + clean(d.platform().version()),
                "device " + clean(d.name()),
                "vendor " + clean(d.vendor()),
                "driver " + clean(d.driverVersion()),
                clean(d.version()));
    }

    private static String cpu(int threads) {
        return String.join(" | ", "cpu",
                clean(System.getProperty("os.arch", "unknown")),
                cpuModel(),
                "processors " + Runtime.getRuntime().availableProcessors(),
                "threads " + threads,
                "vector " + vectorBits() + " bits",
                "java " + Runtime.version());
    }

    /** The Vector API's preferred vector size, or 0 when the module is not there. */
    private static int vectorBits() {
        try {
            return jdk.incubator.vector.VectorShape.preferredShape().vectorBitSize();
        } catch (LinkageError e) {
            return 0;
        }
    }

    /** The first model line of /proc/cpuinfo (x86: model name; others: their own keys), or "unknown cpu". */
    static String cpuModel() {
        Path info = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(info)) {
            return "unknown cpu";
        }
        try (Stream<String> lines = Files.lines(info, StandardCharsets.UTF_8)) {
            List<String> all = lines.limit(200).toList();
            for (String key : List.of("model name", "hardware", "cpu model", "processor", "uarch")) {
                for (String line : all) {
                    int colon = line.indexOf(':');
                    if (colon > 0 && line.substring(0, colon).strip().toLowerCase(Locale.ROOT).equals(key)) {
                        String value = clean(line.substring(colon + 1));
                        // x86's "processor" is the index; only ARM-style names count.
                        if (!value.isEmpty() && !value.chars().allMatch(Character::isDigit)) {
                            return value;
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // unreadable: fall through
        }
        return "unknown cpu";
    }

    /** One line, single spaces, no field separator. */
    private static String clean(String s) {
        return s == null ? "" : s.replace('|', '/').replaceAll("\\s+", " ").strip();
    }
}
