package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.types.DataType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;

/** Input files for the command line's tests, written with Arrow's own writers, and what the tests check files with. */
final class CliFixtures {

    /** Column x (float64) of the two-batch input, nulls as null. */
    static final Double[] X = {1.0, 3.0, null, 5.0, 2.5, null, 0.5};
    /** Column name (utf8) of the two-batch input. */
    static final String[] NAME = {"abc", "apple", "zed", null, "Ab", "a", null};
    /** Rows per batch of the two-batch input. */
    static final int[] BATCHES = {4, 3};

    private CliFixtures() {}

    /** x: float64 and name: utf8, two batches, nulls as in X and NAME, with garbage behind each null. */
    static void writeXName(Path path, boolean stream, BufferAllocator allocator) throws IOException {
        Schema schema = new Schema(List.of(DataType.FLOAT64.toField("x", true), DataType.UTF8.toField("name", true)));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                FileChannel ch = FileChannel.open(
                        path,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                ArrowWriter writer = stream
                        ? new ArrowStreamWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)
                        : new ArrowFileWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)) {
            writer.start();
            int start = 0;
            for (int n : BATCHES) {
                Float8Vector x = (Float8Vector) root.getVector("x");
                VarCharVector name = (VarCharVector) root.getVector("name");
                x.allocateNew(n);
                name.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    Double xv = X[start + i];
                    x.set(i, xv == null ? 0.0 : xv); // 0.0 behind the null
                    if (xv == null) {
                        x.setNull(i);
                    }
                    String s = NAME[start + i];
                    name.setSafe(i, (s == null ? "garbage" : s).getBytes(StandardCharsets.UTF_8));
                    if (s == null) {
                        name.setNull(i);
                    }
                }
                x.setValueCount(n);
                name.setValueCount(n);
                root.setRowCount(n);
                writer.writeBatch();
                start += n;
            }
            writer.end();
        }
    }

    /** An IPC file with one int32 column {@code column}, one batch per array of {@code batches}, no nulls. */
    static void writeInts(Path path, String column, int[][] batches, BufferAllocator allocator) throws IOException {
        Schema schema = new Schema(List.of(DataType.INT32.toField(column, true)));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                FileChannel ch = FileChannel.open(
                        path,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                ArrowWriter writer = new ArrowFileWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)) {
            writer.start();
            for (int[] batch : batches) {
                IntVector v = (IntVector) root.getVector(column);
                v.allocateNew(batch.length);
                for (int i = 0; i < batch.length; i++) {
                    v.set(i, batch[i]);
                }
                v.setValueCount(batch.length);
                root.setRowCount(batch.length);
                writer.writeBatch();
            }
            writer.end();
        }
    }

    /**
     * An IPC file with one utf8 column {@code name}, one batch of three rows over the bytes "abcdefgh"
     * whose offsets decrease (0, 3, 1, 8): row 1 ends before it starts. Arrow writes and reads it as it is.
     */
    static void writeDecreasingOffsets(Path path, BufferAllocator allocator) throws IOException {
        Schema schema = new Schema(List.of(DataType.UTF8.toField("name", true)));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                FileChannel ch = FileChannel.open(
                        path,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                ArrowWriter writer = new ArrowFileWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)) {
            VarCharVector name = (VarCharVector) root.getVector("name");
            name.allocateNew(3);
            name.setSafe(0, "abc".getBytes(StandardCharsets.UTF_8));
            name.setSafe(1, "de".getBytes(StandardCharsets.UTF_8));
            name.setSafe(2, "fgh".getBytes(StandardCharsets.UTF_8));
            name.setValueCount(3);
            name.getOffsetBuffer().setInt(2L * Integer.BYTES, 1);
            root.setRowCount(3);
            writer.start();
            writer.writeBatch();
            writer.end();
        }
    }

    /** Rows of {@link #writePatched}'s column: a float64 data buffer of 8008 bytes and a body of 8136, lengths found nowhere else. */
    static final int PATCHED_ROWS = 1001;

    /**
     * One float64 column {@code x} of {@link #PATCHED_ROWS} rows, one batch, as an IPC file or stream,
     * with the one 8-byte little-endian occurrence of {@code find} in the bytes replaced by {@code replace}:
     * 8008 is the data buffer's length in the batch's metadata, 8136 the stream message's body length.
     * Fails when {@code find} is not there exactly once (the layout changed).
     */
    static void writePatched(Path path, boolean stream, long find, long replace, BufferAllocator allocator)
            throws IOException {
        Schema schema = new Schema(List.of(DataType.FLOAT64.toField("x", true)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                var ch = Channels.newChannel(bytes);
                ArrowWriter writer = stream
                        ? new ArrowStreamWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)
                        : new ArrowFileWriter(root, new DictionaryProvider.MapDictionaryProvider(), ch)) {
            Float8Vector x = (Float8Vector) root.getVector("x");
            x.allocateNew(PATCHED_ROWS);
            for (int i = 0; i < PATCHED_ROWS; i++) {
                x.set(i, i);
            }
            x.setValueCount(PATCHED_ROWS);
            root.setRowCount(PATCHED_ROWS);
            writer.start();
            writer.writeBatch();
            writer.end();
        }
        ByteBuffer b = ByteBuffer.wrap(bytes.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i + Long.BYTES <= b.capacity(); i++) {
            if (b.getLong(i) == find) {
                at.add(i);
            }
        }
        assertEquals(1, at.size(), find + " occurs once in the fixture, at " + at);
        b.putLong(at.getFirst(), replace);
        Files.write(path, b.array());
    }

    /** Makes a FIFO at {@code path} with mkfifo(1). */
    static void mkfifo(Path path) throws IOException {
        Process p = new ProcessBuilder("mkfifo", path.toString())
                .redirectErrorStream(true)
                .start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("mkfifo " + path + " failed: "
                        + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** The values of column {@code result}, the only column, of the IPC file in {@code bytes}; strings as String, booleans as Boolean. */
    static List<Object> readResult(byte[] bytes, BufferAllocator allocator) throws IOException {
        List<Object> values = new ArrayList<>();
        try (ArrowFileReader reader = new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(bytes), allocator)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            assertEquals(
                    List.of("result"),
                    root.getSchema().getFields().stream().map(f -> f.getName()).toList());
            while (reader.loadNextBatch()) {
                FieldVector v = root.getVector(0);
                for (int i = 0; i < root.getRowCount(); i++) {
                    values.add(
                            switch (v) {
                                case VarCharVector s ->
                                    s.isNull(i) ? null : new String(s.get(i), StandardCharsets.UTF_8);
                                case BitVector b -> b.isNull(i) ? null : b.get(i) != 0;
                                default -> v.getObject(i);
                            });
                }
            }
        }
        return values;
    }

    /**
     * Every entry under {@code dir}, by its path relative to it, described without following links:
     * a file by its SHA-256, a directory, a symbolic link by its target, a FIFO or other by its kind
     * (never opened, so a FIFO cannot block). Two snapshots are equal when nothing was lost or changed.
     */
    static Map<String, String> snapshot(Path dir) {
        Map<String, String> entries = new TreeMap<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.filter(p -> !p.equals(dir)).toList()) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                String what = a.isSymbolicLink()
                        ? "symlink -> " + Files.readSymbolicLink(p)
                        : a.isDirectory()
                                ? "directory"
                                : a.isRegularFile()
                                        ? "file sha256 " + sha256(Files.readAllBytes(p)) + " inode " + a.fileKey()
                                        : "other (" + a.fileKey() + ")";
                entries.put(dir.relativize(p).toString(), what);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
