package dev.quiver.placement;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/** Device figures on disk, one file per device identity. (Stub: to be replaced.) */
public final class CalibrationCache {
    private final Path dir;

    public CalibrationCache(Path dir) {
        this.dir = Objects.requireNonNull(dir, "dir is null");
    }

    public static Path defaultDirectory() {
        String p = System.getProperty("quiver.calibration.dir");
        return p != null ? Path.of(p) : Path.of(System.getProperty("user.home"), ".cache", "quiver", "calibration");
    }

    public Path directory() {
        return dir;
    }

    public Optional<DeviceFigures> load(String identity) {
        return Optional.empty();
    }

    public boolean store(DeviceFigures figures) {
        return false;
    }
}
