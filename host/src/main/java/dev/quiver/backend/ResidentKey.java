package dev.quiver.backend;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Says that a kernel argument may stay in a device's own memory beyond one run, and names it:
 * a backend that copies arguments to its device (a discrete GPU) uploads an argument with a key
 * once and reuses the copy while the key is valid. Backends that read host memory ignore keys.
 *
 * <p>Two lifetimes:
 * <ul>
 *   <li>{@link #inScope}: a batch's input column, read by several kernel segments of one
 *       evaluation. The key is the memory's address and size, valid until the
 *       {@link ResidencyScope} closes (the evaluation ends); the caller promises the memory does
 *       not change in the meantime.</li>
 *   <li>{@link #constant}: memory whose contents recur across batches (a dictionary's values, a
 *       lookup table). The key is the contents themselves (SHA-256 and length), so a copy is
 *       reused wherever the same bytes come again, and never where they differ. It lives until
 *       the device's budget evicts it (least recently used) or the backend closes.</li>
 * </ul>
 *
 * @param scope    the scope the key is valid in, or null for a constant
 * @param identity what equal keys share: address and size in a scope, contents for a constant
 * @param bytes    the argument's size in bytes
 */
public record ResidentKey(ResidencyScope scope, Object identity, long bytes) {
    public ResidentKey {
        Objects.requireNonNull(identity, "identity is null");
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
    }

    /** The {@code bytes} at {@code data}'s address, valid while {@code scope} is open. */
    public static ResidentKey inScope(ResidencyScope scope, MemorySegment data, long bytes) {
        Objects.requireNonNull(scope, "scope is null");
        return new ResidentKey(scope, new Address(data.address(), bytes), bytes);
    }

    /** The first {@code bytes} of {@code data}, by contents: hashed now (SHA-256, about 1 GB/s). */
    public static ResidentKey constant(MemorySegment data, long bytes) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        // ByteBuffers end at 2 GiB; hash in pieces.
        for (long at = 0; at < bytes; at += Integer.MAX_VALUE) {
            long n = Math.min(Integer.MAX_VALUE, bytes - at);
            ByteBuffer piece = data.asSlice(at, n).asByteBuffer();
            sha.update(piece);
        }
        return new ResidentKey(null, new Contents(sha.digest(), bytes), bytes);
    }

    /** Whether the key outlives one evaluation. */
    public boolean isConstant() {
        return scope == null;
    }

    record Address(long address, long bytes) {}

    /** A content digest: equal when the digests are. */
    record Contents(byte[] sha256, long bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Contents c && c.bytes == bytes && Arrays.equals(c.sha256, sha256);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(sha256);
        }

        @Override
        public String toString() {
            return "sha256:" + HexFormat.of().formatHex(sha256, 0, 8) + ".. (" + bytes + " B)";
        }
    }
}
