package dev.quiver.placement;

import dev.quiver.cache.CacheDirectory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Device figures on disk, one file per device identity.
 *
 * <p>A file is named by a readable, sanitized prefix of the identity and a SHA-256 prefix of
 * it ({@code cpu-amd64-amd-epyc-processors-2-4f1c2a9b0e3d7c11.properties}) and holds every
 * field of {@link DeviceFigures} in {@link Properties} format. {@link #load} trusts a file only
 * when it parses, its identity is exactly the one asked for and its figures are valid; anything
 * else (a corrupt or truncated file, a hash collision, an older format) is treated as absent,
 * so the device is calibrated again and the file replaced. {@link #store} writes a temporary
 * file and renames it over the old one, so readers never see half a file; it never throws.
 */
public final class CalibrationCache {
    /** The format of the files; a file of another format is ignored. */
    static final String FORMAT = "1";

    private static final int PREFIX_CHARS = 48;
    private static final int HASH_CHARS = 16;

    private final Path dir;

    public CalibrationCache(Path dir) {
        this.dir = Objects.requireNonNull(dir, "dir is null");
    }

    /**
     * Where figures are kept unless the application says otherwise: the system property
     * {@code quiver.calibration.dir}, else the environment variable {@code QUIVER_CALIBRATION_DIR},
     * else {@code $XDG_CACHE_HOME/quiver/calibration}, else {@code ~/.cache/quiver/calibration}.
     */
    public static Path defaultDirectory() {
        return CacheDirectory.resolve("quiver.calibration.dir", "QUIVER_CALIBRATION_DIR", "calibration");
    }

    public Path directory() {
        return dir;
    }

    /** The file that holds the figures of {@code identity} (whether or not it exists). */
    public Path file(String identity) {
        return dir.resolve(fileName(identity));
    }

    /** A readable, sanitized prefix of {@code identity}, a dash, 16 hex digits of its SHA-256, {@code .properties}. */
    static String fileName(String identity) {
        Objects.requireNonNull(identity, "identity is null");
        String readable = identity.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._]+", "-");
        if (readable.length() > PREFIX_CHARS) {
            readable = readable.substring(0, PREFIX_CHARS);
        }
        readable = readable.replaceAll("^[-.]+|[-.]+$", "");
        String hash = sha256(identity).substring(0, HASH_CHARS);
        return (readable.isEmpty() ? "" : readable + "-") + hash + ".properties";
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e); // every JVM has it
        }
    }

    /** The figures stored for exactly {@code identity}, with source CACHED; empty when absent, unreadable or corrupt. */
    public Optional<DeviceFigures> load(String identity) {
        Objects.requireNonNull(identity, "identity is null");
        Path file = file(identity);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
        try {
            if (!FORMAT.equals(p.getProperty("format")) || !identity.equals(p.getProperty("identity"))) {
                return Optional.empty();
            }
            return Optional.of(new DeviceFigures(
                    identity,
                    number(p, "launchNanos"),
                    number(p, "nanosPerByte"),
                    number(p, "parallelNanosPerByte"),
                    number(p, "transferNanosPerByte"),
                    number(p, "arithmeticNanos"),
                    number(p, "divideNanos"),
                    number(p, "transcendentalNanos"),
                    Integer.parseInt(required(p, "threads")),
                    number(p, "parallelEfficiency"),
                    Long.parseLong(required(p, "calibratedAtMillis")),
                    Long.parseLong(required(p, "calibrationMillis")),
                    DeviceFigures.Source.CACHED));
        } catch (IllegalArgumentException e) { // a missing or malformed field, or figures DeviceFigures rejects
            return Optional.empty();
        }
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IllegalArgumentException("missing " + key);
        }
        return v.strip();
    }

    private static double number(Properties p, String key) {
        return Double.parseDouble(required(p, key));
    }

    /**
     * Writes {@code figures} to the file of their identity, atomically (a temporary file in the
     * same directory, renamed over the old one), creating the directory. Returns false, without
     * throwing, when that fails.
     */
    public boolean store(DeviceFigures figures) {
        Objects.requireNonNull(figures, "figures is null");
        try {
            CacheDirectory.writeAtomically(file(figures.identity()), serialize(figures), "calibration");
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static byte[] serialize(DeviceFigures f) throws IOException {
        Properties p = new Properties();
        p.setProperty("format", FORMAT);
        p.setProperty("identity", f.identity());
        p.setProperty("launchNanos", Double.toString(f.launchNanos()));
        p.setProperty("nanosPerByte", Double.toString(f.nanosPerByte()));
        p.setProperty("parallelNanosPerByte", Double.toString(f.parallelNanosPerByte()));
        p.setProperty("transferNanosPerByte", Double.toString(f.transferNanosPerByte()));
        p.setProperty("arithmeticNanos", Double.toString(f.arithmeticNanos()));
        p.setProperty("divideNanos", Double.toString(f.divideNanos()));
        p.setProperty("transcendentalNanos", Double.toString(f.transcendentalNanos()));
        p.setProperty("threads", Integer.toString(f.threads()));
        p.setProperty("parallelEfficiency", Double.toString(f.parallelEfficiency()));
        p.setProperty("calibratedAtMillis", Long.toString(f.calibratedAtMillis()));
        p.setProperty("calibrationMillis", Long.toString(f.calibrationMillis()));
        p.setProperty("source", f.source().name());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.store(out, "Quiver device figures (see dev.quiver.placement.DeviceFigures); delete to calibrate again");
        return out.toByteArray();
    }
}
