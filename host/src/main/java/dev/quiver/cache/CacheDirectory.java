package dev.quiver.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;

/**
 * Where Quiver's on-disk caches live (calibrated device figures, built OpenCL programs) and how
 * their files are replaced. Each cache is a directory of files a process may read while another
 * writes: a file is written in full under a temporary name in the same directory, then renamed
 * over the old one, so a reader sees the old file or the new one, never half of one. Every file
 * is safe to delete at any time.
 */
public final class CacheDirectory {
    private CacheDirectory() {}

    /**
     * The directory of the cache called {@code name}: the system property {@code property}, else
     * the environment variable {@code environment}, else {@code $XDG_CACHE_HOME/quiver/<name>},
     * else {@code ~/.cache/quiver/<name>}.
     *
     * <pre>{@code
     * CacheDirectory.resolve("quiver.kernel.cache.dir", "QUIVER_KERNEL_CACHE_DIR", "kernels")
     *     // ~/.cache/quiver/kernels unless one of them is set
     * }</pre>
     */
    public static Path resolve(String property, String environment, String name) {
        Objects.requireNonNull(name, "name is null");
        String p = System.getProperty(Objects.requireNonNull(property, "property is null"));
        if (nonBlank(p)) {
            return Path.of(p);
        }
        String env = System.getenv(Objects.requireNonNull(environment, "environment is null"));
        if (nonBlank(env)) {
            return Path.of(env);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (nonBlank(xdg) && Path.of(xdg).isAbsolute()) { // the XDG spec: relative values are ignored
            return Path.of(xdg, "quiver", name);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "quiver", name);
    }

    private static boolean nonBlank(String s) {
        return s != null && !s.isBlank();
    }

    /**
     * Writes {@code bytes} to {@code target} atomically: a temporary file in {@code target}'s
     * directory (created if missing, named {@code .<tempPrefix>-*.tmp}), forced to disk, then
     * renamed over {@code target}. Throws {@link IOException} when any step fails, including a
     * file system that cannot rename atomically (better no cache than torn files); the
     * temporary file is removed then.
     */
    /**
     * Creates {@code dir} (and missing parents) readable and writable by this user only where the
     * file system has POSIX permissions: what a cache holds (compiled kernels are native code) is
     * trusted, so others must not be able to plant it.
     */
    static void createPrivate(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        try {
            Files.createDirectories(
                    dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (UnsupportedOperationException e) {
            Files.createDirectories(dir); // no POSIX permissions here
        }
    }

    public static void writeAtomically(Path target, byte[] bytes, String tempPrefix) throws IOException {
        Objects.requireNonNull(bytes, "bytes is null");
        Path dir = Objects.requireNonNull(target.toAbsolutePath().getParent(), "target has no directory");
        createPrivate(dir);
        Path tmp = Files.createTempFile(dir, "." + tempPrefix + "-", ".tmp");
        try {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            try (FileChannel ch =
                    FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                while (buffer.hasRemaining()) {
                    ch.write(buffer);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + dir + " cannot rename files atomically", e);
            }
            tmp = null;
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException | RuntimeException ignored) {
                    // best effort: a stray temporary file is harmless
                }
            }
        }
    }
}
