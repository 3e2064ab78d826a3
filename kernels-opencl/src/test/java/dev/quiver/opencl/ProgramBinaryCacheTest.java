package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntToDoubleFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The on-disk {@link ProgramBinaryCache} behind {@link OpenClBackend}: a program built by one
 * backend is loaded, not built, by the next one on the same device (each with an empty in-memory
 * cache), with the same results; a file that is truncated, altered, of another key or refused by
 * the driver is rejected, deleted, built from source and stored again; a directory that cannot be
 * written costs nothing but the storing. Every backend ends with no OpenCL object alive, every
 * allocator at zero bytes.
 */
class ProgramBinaryCacheTest {
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final IrNode Y = Ir.arg(1, ElementType.FLOAT64);
    /** sqrt(x*x + y*y) * 2.5 + x: exact operations (sqrt is correctly rounded), so Java's values are the reference. */
    private static final KernelProgram PROGRAM = new KernelProgram(
            List.of(ElementType.FLOAT64, ElementType.FLOAT64),
            Ir.add(Ir.mul(Ir.sqrt(Ir.add(Ir.mul(X, X), Ir.mul(Y, Y))), Ir.lit(2.5)), X));

    private static final KernelProgram OTHER =
            new KernelProgram(List.of(ElementType.FLOAT64, ElementType.FLOAT64), Ir.sub(Ir.mul(X, Y), Ir.lit(1.0)));
    private static final int ROWS = 1000;

    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private OpenClDevice device;

    @BeforeEach
    void setUp() {
        device = TestDevices.require().getFirst();
        allocator = new RootAllocator();
    }

    @AfterEach
    void noLeaks() {
        assertEquals(0, allocator.getAllocatedMemory(), "Arrow memory leaked");
        allocator.close();
    }

    private static double x(int i) {
        return i % 7 == 0 ? -0.0 : i % 11 == 0 ? Double.NaN : (i - 500) * 0.37;
    }

    private static double y(int i) {
        return i % 13 == 0 ? Double.POSITIVE_INFINITY : 1e150 / (i + 1);
    }

    /**
     * Opens a backend on the test's device with {@code cache}, runs {@code program} once (checking
     * every valid row against Java), closes it (which waits for the binary to be stored) and
     * returns what it did.
     */
    private OpenClBackend.ProgramStats runInNewBackend(ProgramBinaryCache cache, KernelProgram program) {
        OpenClBackend backend = OpenClBackend.open(device, TransferMode.AUTO, cache);
        try (backend;
                Float8Vector xs = column("x", ProgramBinaryCacheTest::x);
                Float8Vector ys = column("y", ProgramBinaryCacheTest::y)) {
            Batches.withNulls(xs, 3, 500, ROWS - 1);
            try (Batches.Output out = Batches.run(backend, allocator, program, xs, ys)) {
                Batches.assertFloat64(
                        out.vector(),
                        program == PROGRAM
                                ? i -> Math.sqrt(x(i) * x(i) + y(i) * y(i)) * 2.5 + x(i)
                                : i -> x(i) * y(i) - 1.0,
                        "after " + backend.programStats());
                for (int row : new int[] {3, 500, ROWS - 1}) {
                    assertTrue(out.vector().isNull(row), "row " + row + " is null");
                }
            }
            assertEquals(1, backend.compiledPrograms());
        }
        assertEquals(0, backend.liveObjects().total(), "OpenCL objects alive after close: " + backend.liveObjects());
        return backend.programStats();
    }

    private Float8Vector column(String name, IntToDoubleFunction values) {
        Float8Vector v = new Float8Vector(name, allocator);
        v.allocateNew(ROWS);
        for (int i = 0; i < ROWS; i++) {
            v.set(i, values.applyAsDouble(i));
        }
        v.setValueCount(ROWS);
        return v;
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(ProgramBinaryCache.SUFFIX))
                    .toList();
        }
    }

    /** The one file the first backend stored. */
    private Path storedFile() throws IOException {
        List<Path> files = files();
        assertEquals(1, files.size(), "one program, one file: " + files);
        return files.getFirst();
    }

    @Test
    void aProgramBuiltOnceIsLoadedByTheNextBackendWithTheSameResults() throws IOException {
        ProgramBinaryCache cache = ProgramBinaryCache.at(dir);
        assertEquals(new OpenClBackend.ProgramStats(1, 0, 0, 1), runInNewBackend(cache, PROGRAM));
        Path file = storedFile();
        assertTrue(Files.size(file) > 100, "a header and a binary");
        assertEquals(
                new OpenClBackend.ProgramStats(0, 1, 0, 0),
                runInNewBackend(cache, PROGRAM),
                "loaded from the disk, not built");
        assertEquals(
                new OpenClBackend.ProgramStats(0, 1, 0, 0),
                runInNewBackend(ProgramBinaryCache.at(dir), PROGRAM),
                "another cache object on the same directory reads the same file");
        assertEquals(
                new OpenClBackend.ProgramStats(1, 0, 0, 1),
                runInNewBackend(cache, OTHER),
                "another shape, another file");
        assertEquals(2, files().size());
        try (Stream<Path> all = Files.list(dir)) {
            assertEquals(2, all.count(), "no temporary file is left behind");
        }
    }

    private void rejectedThenRebuilt(Consumer<Path> damage, String what) throws IOException {
        ProgramBinaryCache cache = ProgramBinaryCache.at(dir);
        runInNewBackend(cache, PROGRAM);
        Path file = storedFile();
        long size = Files.size(file);
        damage.accept(file);
        assertEquals(
                new OpenClBackend.ProgramStats(1, 0, 1, 1),
                runInNewBackend(cache, PROGRAM),
                what + ": rejected, built from source (right results) and stored again");
        assertEquals(file, storedFile());
        assertTrue(Files.size(file) > size / 2, what + ": a whole file again");
        assertEquals(
                new OpenClBackend.ProgramStats(0, 1, 0, 0), runInNewBackend(cache, PROGRAM), what + ": loaded again");
    }

    @Test
    void aTruncatedFileIsRejectedAndRebuilt() throws IOException {
        rejectedThenRebuilt(
                file -> {
                    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                        ch.truncate(ch.size() / 2);
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                "truncated to half");
    }

    @Test
    void aLinkOrASpecialFileInPlaceOfTheBinaryIsRejectedWithoutBeingRead() throws IOException {
        // A link to /dev/zero would never end; a FIFO would block the build. Neither is followed or read.
        rejectedThenRebuilt(
                file -> {
                    try {
                        Files.delete(file);
                        Files.createSymbolicLink(file, Path.of("/dev/zero"));
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                "a link to /dev/zero");
        rejectedThenRebuilt(
                file -> {
                    try {
                        Files.delete(file);
                        Process p = new ProcessBuilder("mkfifo", file.toString()).start();
                        assertEquals(0, p.waitFor());
                    } catch (IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                "a FIFO");
    }

    @Test
    void theCacheDirectoryIsCreatedForThisUserOnly() throws IOException {
        Path fresh = dir.resolve("new/kernels");
        runInNewBackend(ProgramBinaryCache.at(fresh), PROGRAM);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)));
    }

    @Test
    void aFileCutInsideItsHeaderIsRejectedAndRebuilt() throws IOException {
        rejectedThenRebuilt(file -> overwrite(file, bytes -> Arrays.copyOf(bytes, 20)), "cut to 20 bytes");
    }

    @Test
    void flippedBytesInTheBinaryAreRejectedBeforeTheDriverSeesThem() throws IOException {
        // PoCL crashes the process on a corrupt binary: only the checksum stands between it and these bytes.
        rejectedThenRebuilt(
                file -> overwrite(file, bytes -> {
                    for (int i = bytes.length - 1; i > bytes.length / 2; i -= 97) {
                        bytes[i] ^= 0x5A;
                    }
                    return bytes;
                }),
                "bytes flipped");
    }

    @Test
    void aFileWithAnotherFormatIsRejectedAndRebuilt() throws IOException {
        rejectedThenRebuilt(
                file -> overwrite(file, bytes -> {
                    bytes[11] ^= 0x7; // the format number's last byte, after the 8-byte magic
                    return bytes;
                }),
                "format changed");
    }

    @Test
    void theBinaryOfAnotherProgramUnderThisProgramsNameIsRejected() throws IOException {
        ProgramBinaryCache cache = ProgramBinaryCache.at(dir);
        runInNewBackend(cache, OTHER);
        Path other = storedFile();
        String key;
        try (OpenClBackend b = OpenClBackend.open(device, TransferMode.AUTO, cache)) {
            key = b.programKey(KernelSource.of(PROGRAM));
        }
        // A valid file in every part but its key: loaded, it would compute x * y - 1 for PROGRAM.
        Files.copy(other, cache.file(key));
        assertEquals(new OpenClBackend.ProgramStats(1, 0, 1, 1), runInNewBackend(cache, PROGRAM));
        assertEquals(new OpenClBackend.ProgramStats(0, 1, 0, 0), runInNewBackend(cache, PROGRAM));
        assertEquals(
                new OpenClBackend.ProgramStats(0, 1, 0, 0), runInNewBackend(cache, OTHER), "the other file is intact");
    }

    @Test
    void aBinaryTheDriverRefusesIsDeletedAndRebuilt() throws IOException {
        ProgramBinaryCache cache = ProgramBinaryCache.at(dir);
        String key;
        try (OpenClBackend b = OpenClBackend.open(device, TransferMode.AUTO, cache)) {
            key = b.programKey(KernelSource.of(PROGRAM));
        }
        // A well-formed file (header, length and checksum right) whose binary no driver takes.
        assertTrue(cache.store(key, "not a program binary".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(new OpenClBackend.ProgramStats(1, 0, 1, 1), runInNewBackend(cache, PROGRAM));
        assertEquals(new OpenClBackend.ProgramStats(0, 1, 0, 0), runInNewBackend(cache, PROGRAM));
    }

    @Test
    void aDirectoryThatCannotBeWrittenOnlyMeansNothingIsStored() throws IOException {
        // Under a regular file: no directory can be created there, whoever runs the test (root ignores permissions).
        Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
        ProgramBinaryCache cache = ProgramBinaryCache.at(file.resolve("kernels"));
        assertEquals(new OpenClBackend.ProgramStats(1, 0, 0, 0), runInNewBackend(cache, PROGRAM));
        assertEquals(
                new OpenClBackend.ProgramStats(1, 0, 0, 0),
                runInNewBackend(cache, PROGRAM),
                "built again: nothing was stored");
        assertTrue(Files.isRegularFile(file));
    }

    @Test
    void aDisabledCacheBuildsEveryTimeAndWritesNothing() throws IOException {
        assertFalse(ProgramBinaryCache.disabled().enabled());
        assertEquals(
                new OpenClBackend.ProgramStats(1, 0, 0, 0), runInNewBackend(ProgramBinaryCache.disabled(), PROGRAM));
        assertEquals(
                new OpenClBackend.ProgramStats(1, 0, 0, 0), runInNewBackend(ProgramBinaryCache.disabled(), PROGRAM));
        assertEquals(List.of(), files());
    }

    @Test
    void theKeyCoversTheSourceTheOptionsAndTheDevice() {
        String source = KernelSource.of(PROGRAM).text();
        String key = ProgramBinaryCache.key(device, source, "");
        assertTrue(key.matches("[0-9a-f]{64}"), key);
        assertEquals(key, ProgramBinaryCache.key(device, source, ""));
        assertNotEquals(key, ProgramBinaryCache.key(device, source + " ", ""));
        assertNotEquals(key, ProgramBinaryCache.key(device, source, "-cl-fp32-correctly-rounded-divide-sqrt"));
        // The parts are length-prefixed: moving text from one to the next changes the key.
        assertNotEquals(ProgramBinaryCache.key(device, "ab", "c"), ProgramBinaryCache.key(device, "a", "bc"));
        assertEquals(
                KernelSource.of(PROGRAM),
                KernelSource.of(new KernelProgram(
                        PROGRAM.argTypes(),
                        Ir.add(Ir.mul(Ir.sqrt(Ir.add(Ir.mul(X, X), Ir.mul(Y, Y))), Ir.lit(4.0)), X))),
                "literals are not in the source: one key serves every literal");
    }

    private static void overwrite(Path file, UnaryOperator<byte[]> change) {
        try {
            Files.write(file, change.apply(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
