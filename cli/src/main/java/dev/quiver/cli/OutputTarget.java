package dev.quiver.cli;

import static java.util.Objects.requireNonNull;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where a command writes a file it was given ({@code eval --output}, {@code bench --chart}),
 * decided before anything is opened, so that a failed run loses nothing:
 *
 * <ul>
 *   <li>a new or existing regular file is written to a temporary file beside it (same directory,
 *   so the same file system), which replaces it by an atomic rename only once everything is
 *   written; on failure only that temporary file is removed, and the target keeps its old contents
 *   (or still does not exist); a JVM that exits before (Ctrl-C, SIGTERM) removes it too. A symbolic
 *   link to a regular file is followed: the file it points to is replaced, the link stays;</li>
 *   <li>anything else that exists (a device such as {@code /dev/null}, a FIFO, {@code /dev/stdout}
 *   on a pipe) is written in place, as a shell redirection would; a failure leaves it as it is, and
 *   what was written stops before the IPC file's footer, so it is never a valid file;</li>
 *   <li>{@code -} is standard output, written in place;</li>
 *   <li>refused (exit status 2, before anything is opened): the input itself under any name
 *   (symbolic or hard link), a directory, a path whose directory is missing or not a directory, a
 *   dangling symbolic link.</li>
 * </ul>
 */
final class OutputTarget {

    private static final int TEMPORARY_NAME_ATTEMPTS = 100;
    /** Where Linux shows this process's standard output, to recognise it as the input's file. */
    private static final Path STDOUT = Path.of("/proc/self/fd/1");

    private final String option;
    private final Path given;
    /** The regular file replaced on success; null when written in place. */
    private final Path replaced;
    /** The existing non-regular file written in place; null for a regular file or standard output. */
    private final Path inPlace;

    private OutputTarget(String option, Path given, Path replaced, Path inPlace) {
        this.option = option;
        this.given = given;
        this.replaced = replaced;
        this.inPlace = inPlace;
    }

    /**
     * The target named by {@code argument} for {@code option} (as messages name it).
     *
     * @param argument the path as the command line gave it ({@code -} is standard output): a trailing
     *                 {@code /}, which {@link Path#of} drops, names a directory and is refused
     * @param input    the command's input, refused as the output under any name, standard output
     *                 included (redirected onto the input's file); null when there is none
     * @throws CliError of kind {@link ExitStatus.Kind#OPTION} when the path cannot be written safely
     */
    static OutputTarget resolve(String option, String argument, InputSource input) {
        requireNonNull(option, "option is null");
        requireNonNull(argument, "argument is null");
        String shown = option + " " + argument;
        if (argument.equals("-")) {
            if (input != null && input.isSameFile(STDOUT) && Files.isRegularFile(STDOUT)) {
                throw new CliError(
                        ExitStatus.Kind.OPTION,
                        shown + ": standard output is the input (" + input + "), under this or "
                                + "another name (a redirection such as >> on the input); writing it would destroy the input: "
                                + "choose another output file");
            }
            return new OutputTarget(option, Path.of(argument), null, null);
        }
        Path given;
        try {
            given = Path.of(argument);
        } catch (InvalidPathException e) {
            throw new CliError(ExitStatus.Kind.OPTION, shown + " is not a valid path: " + e.getReason(), e);
        }
        if (argument.endsWith("/")) {
            // Path.of drops the slash; the shell and the kernel read it as "a directory", and so does this.
            throw new CliError(
                    ExitStatus.Kind.OPTION, shown + " ends in '/', so it names a directory; name a file to write");
        }
        if (input != null && input.isSameFile(given)) {
            throw new CliError(
                    ExitStatus.Kind.OPTION,
                    shown + " is the input (" + input + "), under this or another name; "
                            + "writing it would destroy the input: choose another output file");
        }
        if (Files.isDirectory(given)) {
            throw new CliError(ExitStatus.Kind.OPTION, shown + " is a directory; name a file to write");
        }
        try {
            if (Files.exists(given)) {
                return Files.isRegularFile(given)
                        ? new OutputTarget(option, given, given.toRealPath(), null)
                        : new OutputTarget(option, given, null, given);
            }
            if (Files.isSymbolicLink(given)) {
                throw new CliError(
                        ExitStatus.Kind.OPTION,
                        shown + " is a symbolic link to a missing file (" + Files.readSymbolicLink(given)
                                + "); name the file itself");
            }
            Path parent = given.toAbsolutePath().getParent();
            if (parent == null || !Files.exists(parent)) {
                throw new CliError(ExitStatus.Kind.OPTION, shown + ": no such directory: " + parent);
            }
            if (!Files.isDirectory(parent)) {
                throw new CliError(ExitStatus.Kind.OPTION, shown + ": " + parent + " is not a directory");
            }
            return new OutputTarget(option, given, parent.toRealPath().resolve(given.getFileName()), null);
        } catch (IOException e) {
            throw new CliError(ExitStatus.Kind.OPTION, shown + " cannot be written: " + reason(e), e);
        }
    }

    /** Starts writing: creates the temporary file (or opens the target in place). The caller closes the result. */
    Writing open() {
        if (replaced == null) {
            try {
                WritableByteChannel channel = inPlace == null
                        ? Channels.newChannel(new Unclosed(System.out))
                        : FileChannel.open(inPlace, StandardOpenOption.WRITE);
                return new Writing(channel, null);
            } catch (IOException e) {
                throw new CliError(
                        ExitStatus.Kind.OPTION,
                        option + " " + given + " cannot be opened for writing: " + reason(e),
                        e);
            }
        }
        for (int attempt = 0; ; attempt++) {
            Path temporary = replaced.resolveSibling(
                    "." + replaced.getFileName() + "." + ProcessHandle.current().pid() + "."
                            + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
            try {
                FileChannel channel =
                        FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                copyPermissions(replaced, temporary);
                return new Writing(channel, temporary);
            } catch (FileAlreadyExistsException e) {
                if (attempt >= TEMPORARY_NAME_ATTEMPTS) {
                    throw new CliError(
                            ExitStatus.Kind.OUTPUT, "cannot create a temporary file beside " + option + " " + given, e);
                }
            } catch (IOException e) {
                throw new CliError(
                        ExitStatus.Kind.OPTION,
                        option + " " + given + ": cannot create a file in " + replaced.getParent()
                                + " (the output is written there first, then renamed into place): " + reason(e),
                        e);
            }
        }
    }

    /** Writes {@code bytes} as the whole content of the target, through {@link #open()}. */
    void write(byte[] bytes) {
        try (Writing w = open()) {
            try {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    w.channel().write(buffer);
                }
            } catch (IOException e) {
                throw w.failure(e);
            }
            w.commit();
        }
    }

    /** How messages name the target: the option and the path as given. */
    @Override
    public String toString() {
        return option + " " + given;
    }

    /** A target being written: commit it, or close it to give up (removing only its own temporary file). */
    final class Writing implements AutoCloseable {
        private final WritableByteChannel channel;
        private final Path temporary;
        /** Removes the temporary file when the JVM exits before a commit or close (Ctrl-C, SIGTERM). */
        private final Thread onExit;

        private boolean committed;
        private boolean closed;

        private Writing(WritableByteChannel channel, Path temporary) {
            this.channel = channel;
            this.temporary = temporary;
            this.onExit = temporary == null
                    ? null
                    : new Thread(
                            () -> {
                                try {
                                    Files.deleteIfExists(
                                            temporary); // only the temporary file: the target is untouched until the
                                    // rename
                                } catch (IOException e) {
                                    // the JVM is exiting; nothing is left to report to
                                }
                            },
                            "quiver-remove-temporary-output");
            if (onExit != null) {
                Runtime.getRuntime().addShutdownHook(onExit);
            }
        }

        private void forgetExitHook() {
            if (onExit != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(onExit);
                } catch (IllegalStateException e) {
                    // the JVM is already exiting: the hook runs, and finds the file moved or removed
                }
            }
        }

        /** Where to write; channel writes that fail should be reported through {@link #failure}. */
        WritableByteChannel channel() {
            return channel;
        }

        /** A failure of writing, as an output error naming the target. */
        CliError failure(IOException e) {
            return new CliError(ExitStatus.Kind.OUTPUT, "writing " + OutputTarget.this + ": " + reason(e), e);
        }

        /** Everything is written: makes it durable and moves it into place. */
        void commit() {
            try {
                if (temporary != null) {
                    ((FileChannel) channel).force(true);
                }
                closed = true;
                channel.close();
                if (inPlace == null && replaced == null && System.out.checkError()) {
                    throw new IOException("standard output refused the data");
                }
                if (temporary != null) {
                    try {
                        Files.move(
                                temporary,
                                replaced,
                                StandardCopyOption.ATOMIC_MOVE,
                                StandardCopyOption.REPLACE_EXISTING);
                    } catch (AtomicMoveNotSupportedException e) {
                        Files.move(temporary, replaced, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                committed = true;
                forgetExitHook();
            } catch (IOException e) {
                throw failure(e);
            }
        }

        /** Without a commit: closes the channel and removes the temporary file, never anything else. */
        @Override
        public void close() {
            if (committed) {
                return;
            }
            if (!closed) {
                closed = true;
                try {
                    channel.close();
                } catch (IOException e) {
                    // giving up anyway; the failure that led here is the one reported
                }
            }
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException e) {
                    System.err.println("warning: could not remove the temporary file " + temporary + ": " + reason(e));
                }
                forgetExitHook();
            }
        }
    }

    private static void copyPermissions(Path from, Path to) {
        if (!Files.exists(from)) {
            return; // a new file: the process's umask decides, as for any file it creates
        }
        try {
            Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from));
        } catch (IOException | UnsupportedOperationException e) {
            // not a POSIX file system, or not ours to change: the new file keeps the default permissions
        }
    }

    /** An exception's reason as a person reads it: NoSuchFileException and friends carry only the path. */
    static String reason(IOException e) {
        String name = e.getClass().getSimpleName();
        String message = e.getMessage();
        if (e instanceof FileSystemException fs) {
            String why = fs.getReason();
            String kind = switch (e) {
                case NoSuchFileException _ -> "no such file or directory";
                case AccessDeniedException _ -> "permission denied";
                case NotDirectoryException _ -> "not a directory";
                case FileAlreadyExistsException _ -> "already exists";
                default -> name;
            };
            return why != null ? why + " (" + fs.getFile() + ")" : kind + " (" + fs.getFile() + ")";
        }
        return message != null ? message : name;
    }

    /** Standard output as a stream that closing does not close (a later line still reaches it). */
    private static final class Unclosed extends FilterOutputStream {
        Unclosed(PrintStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ((PrintStream) out).write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
