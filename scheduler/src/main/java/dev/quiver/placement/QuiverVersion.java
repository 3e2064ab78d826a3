package dev.quiver.placement;

/**
 * The version of Quiver this code belongs to: {@link dev.quiver.cache.QuiverVersion#get()}, kept
 * here for callers of this package. Part of every {@link DeviceIdentity}: a new version may run
 * the same programs faster or slower, so it calibrates again.
 */
public final class QuiverVersion {
    private QuiverVersion() {}

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}, or {@code dev}. */
    @SuppressWarnings("checkstyle:inlinefqn") // host's QuiverVersion, of the same name as this one
    public static String get() {
        return dev.quiver.cache.QuiverVersion.get();
    }
}
