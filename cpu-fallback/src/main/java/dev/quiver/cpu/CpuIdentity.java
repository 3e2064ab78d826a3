package dev.quiver.cpu;

import dev.quiver.backend.IdentityText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import jdk.incubator.vector.VectorShape;

/**
 * The identity of the CPU device ({@link CpuBackend#identity()}): {@code cpu | <os.arch> |
 * <CPU model> | processors <n> | threads <n> | vector <bits> bits | java <version>}. Another
 * CPU, more threads or another JVM is another device, whose figures are measured again.
 */
final class CpuIdentity {
    private CpuIdentity() {}

    static String of(int threads) {
        return IdentityText.join(
                "cpu",
                System.getProperty("os.arch", "unknown"),
                cpuModel(),
                "processors " + Runtime.getRuntime().availableProcessors(),
                "threads " + threads,
                "vector " + vectorBits() + " bits",
                "java " + Runtime.version());
    }

    /** The Vector API's preferred vector size, or 0 when the module is not there. */
    private static int vectorBits() {
        try {
            return VectorShape.preferredShape().vectorBitSize();
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
                    if (colon > 0
                            && line.substring(0, colon)
                                    .strip()
                                    .toLowerCase(Locale.ROOT)
                                    .equals(key)) {
                        String value = IdentityText.clean(line.substring(colon + 1));
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
}
