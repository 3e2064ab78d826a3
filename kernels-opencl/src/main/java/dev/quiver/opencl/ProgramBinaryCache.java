package dev.quiver.opencl;

import dev.quiver.cache.CacheDirectory;
import dev.quiver.cache.QuiverVersion;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Built OpenCL programs on disk, so that a new process loads a kernel's binary instead of
 * compiling its source again: one file per program, named by its key, in one directory.
 *
 * <p>The key is the SHA-256 of everything the binary depends on: the kernel source, the build
 * options, the platform's name and version, the device's name, vendor and OpenCL versions, the
 * driver version and Quiver's version ({@link QuiverVersion}). Another driver, device or Quiver
 * therefore never sees a binary it did not make; the files of old versions are simply never read
 * again (delete them, or the whole directory, at any time).
 *
 * <p>A file is a header (a magic number, the format, the key, the binary's length and SHA-256)
 * followed by the binary. A file that does not match in every part (truncated, altered, of
 * another format, or named for a key it does not hold) is rejected and deleted before the driver
 * sees a byte of it: drivers do not validate binaries (PoCL crashes on a corrupt one). Files are
 * written atomically ({@link CacheDirectory#writeAtomically}), so processes share a directory
 * safely. Nothing here throws on an I/O problem: a directory that cannot be written is reported
 * once, as a warning, and the cache then only reads (a backend stops reading binaries back to store them).
 *
 * <pre>{@code
 * OpenClBackend gpu = OpenClBackend.open(device, TransferMode.AUTO, ProgramBinaryCache.at(Path.of("/var/cache/quiver")));
 * OpenClBackend uncached = OpenClBackend.open(device, TransferMode.AUTO, ProgramBinaryCache.disabled());
 * }</pre>
 */
public final class ProgramBinaryCache {
    /** The file format; part of the key, so a new format never reads old files. */
    static final int FORMAT = 1;

    private static final byte[] MAGIC = "QUIVERCL".getBytes(StandardCharsets.US_ASCII);
    static final String SUFFIX = ".clbin";
    /** The largest file read: no real binary comes near it. */
    private static final long MAX_FILE_BYTES = 1L << 30;

    private static final int SHA256_BYTES = 32;
    private static final System.Logger LOG = System.getLogger(ProgramBinaryCache.class.getName());
    private static final ProgramBinaryCache DISABLED = new ProgramBinaryCache(null);

    /** The directory, or null when disabled. */
    private final Path dir;

    private final AtomicBoolean warned = new AtomicBoolean();

    private ProgramBinaryCache(Path dir) {
        this.dir = dir;
    }

    /** A cache in {@code dir} (created when the first program is stored). */
    public static ProgramBinaryCache at(Path dir) {
        return new ProgramBinaryCache(Objects.requireNonNull(dir, "dir is null"));
    }

    /** No cache: every program is built from source. */
    public static ProgramBinaryCache disabled() {
        return DISABLED;
    }

    /** A cache in {@link #defaultDirectory()}. */
    public static ProgramBinaryCache atDefaultDirectory() {
        return at(defaultDirectory());
    }

    /**
     * Where built programs are kept unless the application says otherwise: the system property
     * {@code quiver.kernel.cache.dir}, else the environment variable {@code QUIVER_KERNEL_CACHE_DIR},
     * else {@code $XDG_CACHE_HOME/quiver/kernels}, else {@code ~/.cache/quiver/kernels}.
     */
    public static Path defaultDirectory() {
        return CacheDirectory.resolve("quiver.kernel.cache.dir", "QUIVER_KERNEL_CACHE_DIR", "kernels");
    }

    /** The directory, or empty when the cache is disabled. */
    public Optional<Path> directory() {
        return Optional.ofNullable(dir);
    }

    public boolean enabled() {
        return dir != null;
    }

    /** Whether storing is worth trying: enabled, and no store has failed yet (then the directory is taken as read-only). */
    boolean writable() {
        return dir != null && !warned.get();
    }

    /** The key of {@code source} built with {@code options} for {@code device}: 64 hex digits. */
    static String key(OpenClDevice device, String source, String options) {
        MessageDigest sha = sha256();
        for (String part : new String[] {
            "quiver opencl program",
            Integer.toString(FORMAT),
            source,
            options,
            device.platform().name(),
            device.platform().version(),
            device.name(),
            device.vendor(),
            device.version(),
            device.openClCVersion(),
            device.driverVersion(),
            QuiverVersion.get()
        }) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            // Each part with its length first, so no two lists of parts hash the same bytes.
            sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
            sha.update(bytes);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The file of {@code key} (whether or not it exists); the cache must be enabled. */
    Path file(String key) {
        if (dir == null) {
            throw new IllegalStateException("the program cache is disabled");
        }
        return dir.resolve(key + SUFFIX);
    }

    /** What {@link #load} found. */
    sealed interface Lookup {
        /** No file for the key (or the cache is disabled). */
        record Absent() implements Lookup {}

        /** The binary, checked against the header's length and SHA-256. */
        record Found(byte[] binary) implements Lookup {}

        /** A file that could not be trusted, and was deleted: {@code reason} says why. */
        record Rejected(String reason) implements Lookup {}
    }

    private static final Lookup ABSENT = new Lookup.Absent();

    /** The binary stored for {@code key}; a file that fails any check is deleted and reported as rejected. */
    Lookup load(String key) {
        Objects.requireNonNull(key, "key is null");
        if (dir == null) {
            return ABSENT;
        }
        Path file = file(key);
        byte[] bytes;
        try {
            // Not followed: a link or a special file (a FIFO would block the build, /dev/zero never end) is no binary.
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile()) {
                return reject(file, "it is not a regular file");
            }
            long size = a.size();
            if (size > MAX_FILE_BYTES) {
                return reject(file, "it holds " + size + " bytes, more than any program binary");
            }
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
            }
            if (bytes.length > MAX_FILE_BYTES) {
                return reject(file, "it grew past " + MAX_FILE_BYTES + " bytes while it was read");
            }
        } catch (NoSuchFileException e) {
            return ABSENT;
        } catch (AccessDeniedException e) {
            return ABSENT; // another user's file, or a directory not ours: not ours to judge or delete
        } catch (IOException | RuntimeException e) {
            return reject(file, "it cannot be read: " + e);
        }
        String problem = check(bytes, key);
        if (problem != null) {
            return reject(file, problem);
        }
        return new Lookup.Found(Arrays.copyOfRange(bytes, bytes.length - binaryLength(bytes), bytes.length));
    }

    /** The header: magic, format, key length, key, binary length, SHA-256 of the binary. */
    private static int headerBytes(int keyBytes) {
        return MAGIC.length + Integer.BYTES + Integer.BYTES + keyBytes + Long.BYTES + SHA256_BYTES;
    }

    private static int binaryLength(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file);
        int keyBytes = b.getInt(MAGIC.length + Integer.BYTES);
        return (int) b.getLong(MAGIC.length + 2 * Integer.BYTES + keyBytes);
    }

    /** Why {@code file} is not the binary of {@code key}, or null when it is. */
    private static String check(byte[] file, String key) {
        byte[] expectedKey = key.getBytes(StandardCharsets.US_ASCII);
        if (file.length < headerBytes(0) || !Arrays.equals(file, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return "it is not a Quiver program binary (no header)";
        }
        ByteBuffer b = ByteBuffer.wrap(file);
        b.position(MAGIC.length);
        int format = b.getInt();
        if (format != FORMAT) {
            return "its format is " + format + ", not " + FORMAT;
        }
        int keyBytes = b.getInt();
        if (keyBytes != expectedKey.length || file.length < headerBytes(keyBytes)) {
            return "its header is truncated or holds another key";
        }
        if (!Arrays.equals(file, b.position(), b.position() + keyBytes, expectedKey, 0, keyBytes)) {
            return "it holds the binary of another key";
        }
        b.position(b.position() + keyBytes);
        long length = b.getLong();
        byte[] sha = new byte[SHA256_BYTES];
        b.get(sha);
        if (length != b.remaining()) {
            return "it holds " + b.remaining() + " bytes of binary where its header says " + length + " (truncated?)";
        }
        MessageDigest digest = sha256();
        digest.update(file, b.position(), b.remaining());
        if (!MessageDigest.isEqual(sha, digest.digest())) {
            return "its binary does not match its checksum (altered or partly written)";
        }
        return null;
    }

    private Lookup reject(Path file, String reason) {
        String why = "the cached program binary " + file + " is ignored and deleted: " + reason;
        LOG.log(System.Logger.Level.INFO, why);
        delete(file);
        return new Lookup.Rejected(why);
    }

    /** The driver refused the binary of {@code key}: the file is deleted, so the program is built from source and stored again. */
    void discard(String key, String reason) {
        if (dir == null) {
            return;
        }
        Path file = file(key);
        LOG.log(
                System.Logger.Level.INFO,
                "the driver rejected the cached program binary " + file + ", deleted: " + reason);
        delete(file);
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not delete " + file + ": " + e);
        }
    }

    /**
     * Stores {@code binary} as the program of {@code key}, atomically. Returns false, without
     * throwing, when the cache is disabled or the file cannot be written (the first such failure
     * of this cache is logged as a warning).
     */
    boolean store(String key, byte[] binary) {
        Objects.requireNonNull(key, "key is null");
        Objects.requireNonNull(binary, "binary is null");
        if (dir == null) {
            return false;
        }
        Path file = file(key);
        try {
            CacheDirectory.writeAtomically(file, encode(key, binary), "kernel");
            return true;
        } catch (IOException | RuntimeException e) {
            if (warned.compareAndSet(false, true)) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "cannot store built OpenCL programs in " + dir + " (" + e
                                + "): each new process builds its kernels from source. Set -Dquiver.kernel.cache.dir or"
                                + " QUIVER_KERNEL_CACHE_DIR to a writable directory, or turn the cache off");
            } else {
                LOG.log(System.Logger.Level.DEBUG, "cannot store " + file + ": " + e);
            }
            return false;
        }
    }

    private static byte[] encode(String key, byte[] binary) throws IOException {
        byte[] keyBytes = key.getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(headerBytes(keyBytes.length) + binary.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MAGIC);
            out.writeInt(FORMAT);
            out.writeInt(keyBytes.length);
            out.write(keyBytes);
            out.writeLong(binary.length);
            out.write(sha256().digest(binary));
            out.write(binary);
        }
        return bytes.toByteArray();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e); // every JVM has it
        }
    }

    @Override
    public String toString() {
        return dir == null ? "no program cache" : "program cache in " + dir;
    }
}
