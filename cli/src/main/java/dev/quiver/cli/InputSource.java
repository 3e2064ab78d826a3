package dev.quiver.cli;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;

/**
 * The {@code --input} of {@code quiver eval}: an Arrow IPC file or stream, at a path or on standard
 * input ({@code -}), checked before anything is opened.
 *
 * <p>A regular file is read as an IPC file when it starts with the {@code ARROW1} magic, else as an
 * IPC stream. Anything else (standard input, {@code /dev/stdin}, a FIFO, a character device) cannot
 * seek, so it is read once, front to back, as an IPC stream; an IPC <em>file</em> arriving that way
 * (recognised by its first bytes, looked at through a buffer) is read through the stream it
 * contains after its 8-byte header: the IPC file format is the stream format, with its end-of-stream
 * marker, between that header and the footer, so its batches come out in the same order and its
 * footer is never needed.
 */
final class InputSource {

    /** "ARROW1": the first bytes of an Arrow IPC file; a stream starts with a message instead. */
    private static final byte[] FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
    /** The magic and its padding to 8 bytes, before the stream inside an IPC file. */
    private static final int FILE_HEADER_BYTES = 8;
    /** Where Linux shows this process's standard input, to recognise it as a file. */
    private static final Path STDIN_LINK = Path.of("/proc/self/fd/0");

    private final Path path;
    private final boolean seekable;

    private InputSource(Path path, boolean seekable) {
        this.path = path;
        this.seekable = seekable;
    }

    /**
     * The input named by {@code given}: {@code -} is standard input; otherwise the path must exist and
     * not be a directory.
     *
     * @throws CliError of kind {@link ExitStatus.Kind#OPTION} when the path cannot be an input
     */
    static InputSource resolve(Path given) {
        if (given.toString().equals("-")) {
            return new InputSource(null, false);
        }
        if (Files.isDirectory(given)) {
            throw new CliError(
                    ExitStatus.Kind.OPTION, "--input " + given + " is a directory, not an Arrow IPC file or stream");
        }
        if (!Files.exists(given)) {
            throw new CliError(ExitStatus.Kind.OPTION, "no such file: " + given + " (--input)");
        }
        return new InputSource(given, Files.isRegularFile(given));
    }

    /** True when {@code other} is the file this input reads, through any name (symbolic or hard links). */
    boolean isSameFile(Path other) {
        Path self = path != null ? path : STDIN_LINK;
        try {
            return Files.exists(self) && Files.exists(other) && Files.isSameFile(self, other);
        } catch (IOException e) {
            return false; // one of them cannot be looked at: it cannot be shown to be the other
        }
    }

    /** A reader of the input's batches, allocating from {@code allocator}; the caller closes it. */
    ArrowReader open(BufferAllocator allocator) throws IOException {
        if (seekable) {
            return openFile(path, allocator);
        }
        InputStream in = path == null ? System.in : Files.newInputStream(path);
        try {
            BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
            buffered.mark(FILE_HEADER_BYTES);
            byte[] head = buffered.readNBytes(FILE_HEADER_BYTES);
            buffered.reset();
            if (head.length == FILE_HEADER_BYTES
                    && Arrays.equals(head, 0, FILE_MAGIC.length, FILE_MAGIC, 0, FILE_MAGIC.length)) {
                buffered.skipNBytes(FILE_HEADER_BYTES);
            }
            return new ArrowStreamReader(buffered, allocator);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /**
     * For an IPC file, checks that every block its footer lists (dictionaries, record batches) lies
     * inside the file, before the reader allocates what a block declares: a corrupt length is then an
     * input error that names it, not an attempt to allocate petabytes. Nothing to check for a stream.
     *
     * @throws CliError of kind {@link ExitStatus.Kind#INPUT} naming the first block that does not fit
     */
    void checkBlocks(ArrowReader reader) throws IOException {
        if (!(reader instanceof ArrowFileReader file)) {
            return;
        }
        long size = Files.size(path);
        check(file.getDictionaryBlocks(), "dictionary", size);
        check(file.getRecordBlocks(), "record batch", size);
    }

    private void check(List<ArrowBlock> blocks, String what, long size) {
        for (int i = 0; i < blocks.size(); i++) {
            var b = blocks.get(i);
            if (b.getOffset() < 0
                    || b.getMetadataLength() < 0
                    || b.getBodyLength() < 0
                    || b.getOffset() + (long) b.getMetadataLength() > size - b.getBodyLength()) {
                throw new CliError(
                        ExitStatus.Kind.INPUT,
                        this + " is not an Arrow IPC file or stream: its footer declares " + what
                                + " " + i + " at offset " + b.getOffset() + " with " + b.getMetadataLength()
                                + " bytes of metadata and "
                                + b.getBodyLength() + " of body, beyond the file's " + size + " bytes");
            }
        }
    }

    private static ArrowReader openFile(Path path, BufferAllocator allocator) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            ByteBuffer head = ByteBuffer.allocate(FILE_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            while (head.hasRemaining() && channel.read(head) >= 0) {
                // read until the header's length or the end of the file
            }
            channel.position(0);
            boolean file = head.position() >= FILE_MAGIC.length
                    && Arrays.equals(head.array(), 0, FILE_MAGIC.length, FILE_MAGIC, 0, FILE_MAGIC.length);
            if (!file && !head.hasRemaining()) {
                checkFirstMessage(path, head, channel.size());
            }
            return file ? new ArrowFileReader(channel, allocator) : new ArrowStreamReader(channel, allocator);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * A stream's first message declares its length in its first 8 bytes (0xFFFFFFFF, then the length;
     * before Arrow 0.15 the length alone, in 4): a length beyond the file is refused here, before the
     * reader allocates it (text read as a length asks for gigabytes).
     */
    private static void checkFirstMessage(Path path, ByteBuffer head, long size) {
        boolean continuation = head.getInt(0) == -1;
        long length = continuation ? head.getInt(4) : head.getInt(0);
        long prefix = continuation ? 8 : 4;
        if (length < 0 || prefix + length > size) {
            throw new CliError(
                    ExitStatus.Kind.INPUT,
                    path + " is not an Arrow IPC file or stream: it declares a first " + "message of " + length
                            + " bytes, more than the file's " + size + " bytes");
        }
    }

    /** How messages name the input: {@code standard input}, or the path as given. */
    @Override
    public String toString() {
        return path == null ? "standard input" : path.toString();
    }
}
