package dev.quiver.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CalibrationCacheTest {
    private static final String ID = "cpu | amd64 | Some CPU @ 3.0GHz | processors 2 | threads 2 | quiver 1.2.3";

    private static DeviceFigures figures(String identity) {
        return new DeviceFigures(
                identity,
                1234.5,
                0.0123456789,
                0.00617,
                0.25,
                0.0111,
                0.0777,
                1.23456789012345,
                2,
                0.875,
                1_700_000_000_123L,
                321,
                DeviceFigures.Source.MEASURED);
    }

    @Test
    void roundTripsEveryField(@TempDir Path dir) throws Exception {
        CalibrationCache cache = new CalibrationCache(dir.resolve("a/b"));
        DeviceFigures f = figures(ID);
        assertTrue(cache.store(f));
        Optional<DeviceFigures> back = cache.load(ID);
        assertEquals(Optional.of(f.withSource(DeviceFigures.Source.CACHED)), back);
        // Storing again replaces the file, and no temporary file is left behind.
        DeviceFigures g = new DeviceFigures(ID, 99, 0.5, 0.5, 0, 1, 2, 3, 1, 1, 5, 6, DeviceFigures.Source.MEASURED);
        assertTrue(cache.store(g));
        assertEquals(Optional.of(g.withSource(DeviceFigures.Source.CACHED)), cache.load(ID));
        try (var files = Files.list(dir.resolve("a/b"))) {
            assertEquals(1, files.count());
        }
    }

    @Test
    void namesFilesReadablyAndByHash(@TempDir Path dir) {
        CalibrationCache cache = new CalibrationCache(dir);
        String name = cache.file(ID).getFileName().toString();
        assertTrue(name.matches("cpu-amd64-some-cpu-3\\.0ghz-[a-z0-9.-]*-[0-9a-f]{16}\\.properties"), name);
        assertFalse(name.equals(cache.file(ID + " ").getFileName().toString()));
        assertTrue(CalibrationCache.fileName("|||").matches("[0-9a-f]{16}\\.properties"));
    }

    @Test
    void missingIsEmpty(@TempDir Path dir) {
        assertEquals(Optional.empty(), new CalibrationCache(dir.resolve("none")).load(ID));
    }

    @Test
    void ignoresACorruptFile(@TempDir Path dir) throws Exception {
        CalibrationCache cache = new CalibrationCache(dir);
        assertTrue(cache.store(figures(ID)));
        Path file = cache.file(ID);
        String text = Files.readString(file, StandardCharsets.ISO_8859_1);
        Files.writeString(file, text.replaceAll("launchNanos=.*", "launchNanos=abc"), StandardCharsets.ISO_8859_1);
        assertEquals(Optional.empty(), cache.load(ID));
        Files.writeString(file, text.replaceAll("launchNanos=.*", "launchNanos=-1"), StandardCharsets.ISO_8859_1);
        assertEquals(Optional.empty(), cache.load(ID));
        Files.writeString(file, text.substring(0, text.length() / 2), StandardCharsets.ISO_8859_1);
        assertEquals(Optional.empty(), cache.load(ID));
        Files.write(file, new byte[] {0, (byte) 0xFF, '\\', 'u', 'Z', 'Z'});
        assertEquals(Optional.empty(), cache.load(ID));
    }

    @Test
    void ignoresAFileOfAnotherIdentity(@TempDir Path dir) throws Exception {
        CalibrationCache cache = new CalibrationCache(dir);
        String other = ID.replace("threads 2", "threads 3");
        assertTrue(cache.store(figures(other)));
        // The other identity's file, under this identity's name (as a hash collision would leave it).
        Files.move(cache.file(other), cache.file(ID));
        assertEquals(Optional.empty(), cache.load(ID));
        assertEquals(Optional.empty(), cache.load(other));
    }

    @Test
    void storeReturnsFalseWhenTheDirectoryCannotBeWritten(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertFalse(new CalibrationCache(file.resolve("sub")).store(figures(ID)));
        assertFalse(new CalibrationCache(file).store(figures(ID)));
    }

    @Test
    void defaultDirectoryFollowsTheSystemProperty(@TempDir Path dir) {
        String before = System.getProperty("quiver.calibration.dir");
        try {
            System.setProperty("quiver.calibration.dir", dir.toString());
            assertEquals(dir, CalibrationCache.defaultDirectory());
            System.clearProperty("quiver.calibration.dir");
            Path d = CalibrationCache.defaultDirectory();
            assertTrue(
                    d.endsWith(Path.of("quiver", "calibration")) || System.getenv("QUIVER_CALIBRATION_DIR") != null,
                    d::toString);
        } finally {
            if (before == null) {
                System.clearProperty("quiver.calibration.dir");
            } else {
                System.setProperty("quiver.calibration.dir", before);
            }
        }
    }
}
