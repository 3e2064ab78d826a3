package dev.quiver.cache;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version of Quiver this code belongs to, from {@code quiver-version.properties} (written
 * by Maven's resource filtering at build time); {@code dev} when the file is missing or was not
 * filtered (running from an IDE's own build, for example). Part of every on-disk cache key: a
 * new version may generate other kernels or run the same ones at another speed, so it
 * calibrates and builds again.
 */
public final class QuiverVersion {
    static final String RESOURCE = "/quiver-version.properties";
    private static final String VERSION = read();

    private QuiverVersion() {}

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}, or {@code dev}. */
    public static String get() {
        return VERSION;
    }

    private static String read() {
        try (InputStream in = QuiverVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "dev";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "").strip();
            return v.isEmpty() || v.contains("${") ? "dev" : v;
        } catch (IOException | IllegalArgumentException e) {
            return "dev";
        }
    }
}
