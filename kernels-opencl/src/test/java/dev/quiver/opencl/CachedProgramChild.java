package dev.quiver.opencl;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.IntToDoubleFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;

/**
 * Run in a child JVM by {@link ProgramCacheAcrossProcessesTest}: opens a backend on the first
 * OpenCL device with the program cache in {@code args[0]}, runs {@link #PROGRAM} over
 * {@link #x}/{@link #y}, closes the backend (which waits until the binary is stored) and prints
 * {@code RESULT <digest>} (SHA-256 of the output's bits, null rows as NaN-free markers, see
 * {@link #digest}), {@code STATS <built> <loaded> <rejected> <stored>} and {@code LEFT <objects> <bytes>}
 * (OpenCL objects and Arrow bytes alive at the end: both 0).
 */
public final class CachedProgramChild {
    static final int ROWS = 4096;
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final IrNode Y = Ir.arg(1, ElementType.FLOAT64);
    /** (x * y + sqrt(|x|)) / (y - 0.75): exact operations, so Java's values are the reference. */
    static final KernelProgram PROGRAM = new KernelProgram(
            List.of(ElementType.FLOAT64, ElementType.FLOAT64),
            Ir.div(Ir.add(Ir.mul(X, Y), Ir.sqrt(Ir.abs(X))), Ir.sub(Y, Ir.lit(0.75))));

    private CachedProgramChild() {}

    static double x(int i) {
        return (i - ROWS / 2) * 1.25e-3;
    }

    static double y(int i) {
        return i % 5 == 0 ? 0.75 : Math.scalb(1.0 + i, -(i % 40));
    }

    static boolean isNull(int i) {
        return i % 17 == 3;
    }

    /** What Java computes for row {@code i}. */
    static double expected(int i) {
        return (x(i) * y(i) + Math.sqrt(Math.abs(x(i)))) / (y(i) - 0.75);
    }

    /** SHA-256 over each row's raw bits, a null row as the marker 1 followed by zeros instead. */
    static String digest(IntPredicate isNull, IntToDoubleFunction value) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            ByteBuffer row = ByteBuffer.allocate(9);
            for (int i = 0; i < ROWS; i++) {
                row.clear();
                boolean nul = isNull.test(i);
                row.put((byte) (nul ? 1 : 0)).putLong(nul ? 0 : Double.doubleToRawLongBits(value.applyAsDouble(i)));
                sha.update(row.array());
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) {
        OpenClDevice device = OpenClRuntime.discover().devices().getFirst();
        OpenClBackend backend = OpenClBackend.open(device, TransferMode.AUTO, ProgramBinaryCache.at(Path.of(args[0])));
        String result;
        long bytesLeft;
        try (BufferAllocator allocator = new RootAllocator()) {
            try (backend;
                    Float8Vector xs = new Float8Vector("x", allocator);
                    Float8Vector ys = new Float8Vector("y", allocator)) {
                xs.allocateNew(ROWS);
                ys.allocateNew(ROWS);
                for (int i = 0; i < ROWS; i++) {
                    if (isNull(i)) {
                        xs.setNull(i);
                    } else {
                        xs.set(i, x(i));
                    }
                    ys.set(i, y(i));
                }
                xs.setValueCount(ROWS);
                ys.setValueCount(ROWS);
                try (Batches.Output out = Batches.run(backend, allocator, PROGRAM, xs, ys)) {
                    Float8Vector o = (Float8Vector) out.vector();
                    result = digest(o::isNull, o::get);
                }
            }
            bytesLeft = allocator.getAllocatedMemory();
        }
        OpenClBackend.ProgramStats stats = backend.programStats();
        System.out.println("RESULT " + result);
        System.out.println(
                "STATS " + stats.built() + " " + stats.loaded() + " " + stats.rejected() + " " + stats.stored());
        System.out.println("LEFT " + backend.liveObjects().total() + " " + bytesLeft);
    }
}
