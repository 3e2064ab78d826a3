package dev.quiver.cli;

import dev.quiver.CompiledExpression;
import dev.quiver.Quiver;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.OpenClDevice;
import dev.quiver.opencl.OpenClRuntime;
import dev.quiver.opencl.TransferMode;
import dev.quiver.rowfn.ir.KernelProgram;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code quiver bench --overlap}: how much of the copy path's transfer time the overlapped
 * chunks hide, for one transcendental kernel segment on the first OpenCL device. Times the same
 * segment over the same Arrow columns on three backends of that device, round robin: COPY with
 * overlapped chunks, COPY with one transfer each way (serial), and ZERO_COPY, which on a device
 * that shares host memory is the kernel alone. Transfer time = serial - kernel alone; hidden =
 * serial - overlapped; the share hidden = hidden / transfer. On a device without host-unified
 * memory there is no transfer-free run to subtract, so only the two COPY figures are reported.
 * Every backend's output is compared bit for bit with the serial one's.
 */
final class OverlapBench {
    static final String EXPRESSION = "sin(x) * cos(y) + exp(x * 0.001)";
    private final BenchCommand cmd;

    OverlapBench(BenchCommand cmd) {
        this.cmd = cmd;
    }

    private record Run(String name, OpenClBackend backend, long[] nanos, KernelRun last) {}

    int call() {
        List<OpenClDevice> devices = OpenClRuntime.discover().devices();
        if (devices.isEmpty()) {
            cmd.progress.println("error: --overlap needs an OpenCL device: "
                    + OpenClRuntime.discover().problems());
            return 1;
        }
        OpenClDevice device = devices.getFirst();
        int rows = cmd.given("--rows") ? cmd.rows.getFirst() : 16 << 20;
        int iterations = Math.max(3, cmd.iterations);
        Schema schema = new Schema(List.of(
                new Field("x", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field(
                        "y", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
        try (BufferAllocator allocator = new RootAllocator();
                Quiver quiver = Quiver.builder()
                        .allocator(allocator)
                        .openCl(false)
                        .calibration(false)
                        .build()) {
            CompiledExpression e = quiver.compile(schema, EXPRESSION);
            if (e.programs().size() != 1) {
                throw new IllegalStateException(
                        EXPRESSION + " planned into " + e.programs().size() + " kernel segments, not one");
            }
            KernelProgram program = e.programs().getFirst();
            List<OpenClBackend> opened = new ArrayList<>();
            try (Float8Vector x = column("x", rows, 1, allocator);
                    Float8Vector y = column("y", rows, 2, allocator)) {
                OpenClBackend overlapped = track(opened, OpenClBackend.open(device, TransferMode.COPY));
                if (overlapped.overlapChunkRows() == 0) {
                    // Off by default on a CPU device (PoCL): measured here all the same, which is how that default was
                    // chosen.
                    overlapped.overlapChunkRows(OpenClBackend.DEFAULT_CHUNK_ROWS);
                }
                if (!overlapped.overlaps(rows)) {
                    cmd.progress.println(
                            "error: " + rows + " rows are too few to overlap: give --rows of more than two chunks ("
                                    + 2 * overlapped.overlapChunkRows() + " rows)");
                    return 2;
                }
                List<Run> runs = new ArrayList<>();
                runs.add(new Run(
                        "copy, overlapped (" + overlapped.overlapChunkRows() + "-row chunks)",
                        overlapped,
                        new long[iterations],
                        null));
                runs.add(new Run(
                        "copy, serial",
                        track(
                                opened,
                                OpenClBackend.open(device, TransferMode.COPY).overlapChunkRows(0)),
                        new long[iterations],
                        null));
                if (device.hostUnifiedMemory()) {
                    runs.add(new Run(
                            "zero copy (the kernel alone)",
                            track(opened, OpenClBackend.open(device, TransferMode.ZERO_COPY)),
                            new long[iterations],
                            null));
                }
                cmd.out.printf(
                        Locale.ROOT,
                        "# overlap of transfers: %s over %d rows of Float64 x, y (%d MB in, %d MB out)%n",
                        EXPRESSION,
                        rows,
                        rows * 16L >> 20,
                        rows * 8L >> 20);
                cmd.out.printf(
                        Locale.ROOT,
                        "# device: %s (%s), %s memory; %d timed runs per mode after %d untimed, round robin%n",
                        device.name(),
                        device.driverVersion().trim(),
                        device.hostUnifiedMemory() ? "host-unified" : "discrete",
                        iterations,
                        Math.max(1, cmd.warmup));
                List<FieldVector> outs = new ArrayList<>();
                try {
                    for (Run _ : runs) {
                        Float8Vector out = new Float8Vector("out", allocator);
                        out.allocateNew(rows);
                        out.setValueCount(rows);
                        outs.add(out);
                    }
                    KernelRun[] last = new KernelRun[runs.size()];
                    for (int it = -Math.max(1, cmd.warmup); it < iterations; it++) {
                        for (int k = 0; k < runs.size(); k++) {
                            long t0 = System.nanoTime();
                            last[k] = execute(runs.get(k).backend(), program, x, y, outs.get(k), rows);
                            long t = System.nanoTime() - t0;
                            if (it >= 0) {
                                runs.get(k).nanos()[it] = t;
                            }
                        }
                        cmd.progress.print(it < 0 ? "w" : ".");
                    }
                    cmd.progress.println();
                    for (int k = 0; k < runs.size(); k++) {
                        if (!sameBits(outs.get(1), outs.get(k), rows)) {
                            throw new IllegalStateException(runs.get(k).name() + " computed other values than "
                                    + runs.get(1).name());
                        }
                    }
                    double[] median = new double[runs.size()];
                    cmd.out.printf(
                            Locale.ROOT,
                            "%-40s %12s %14s %16s%n",
                            "mode",
                            "median ms",
                            "MB to device",
                            "MB from device");
                    for (int k = 0; k < runs.size(); k++) {
                        median[k] = median(runs.get(k).nanos()) / 1e6;
                        cmd.out.printf(
                                Locale.ROOT,
                                "%-40s %12.1f %14.1f %16.1f%n",
                                runs.get(k).name(),
                                median[k],
                                last[k].bytesToDevice() / 1e6,
                                last[k].bytesFromDevice() / 1e6);
                    }
                    cmd.out.printf(Locale.ROOT, "overlapped / serial: %.2fx the time%n", median[0] / median[1]);
                    if (runs.size() == 3) {
                        double transfer = median[1] - median[2], hidden = median[1] - median[0];
                        cmd.out.printf(
                                Locale.ROOT,
                                "transfer time (serial - kernel alone): %.1f ms; hidden by overlap (serial - "
                                        + "overlapped): %.1f ms; share of transfer hidden: %.0f%%%n",
                                transfer,
                                hidden,
                                transfer > 0 ? 100 * hidden / transfer : 0);
                    }
                } finally {
                    outs.forEach(FieldVector::close);
                }
            } finally {
                opened.forEach(OpenClBackend::close);
            }
        }
        return 0;
    }

    private static OpenClBackend track(List<OpenClBackend> opened, OpenClBackend b) {
        opened.add(b);
        return b;
    }

    private static Float8Vector column(String name, int rows, long seed, BufferAllocator allocator) {
        Float8Vector v = new Float8Vector(name, allocator);
        v.allocateNew(rows);
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < rows; i++) {
            v.set(i, (r.nextDouble() - 0.5) * 200);
        }
        v.setValueCount(rows);
        return v;
    }

    private static KernelRun execute(
            OpenClBackend backend, KernelProgram program, Float8Vector x, Float8Vector y, FieldVector out, int rows) {
        try (VectorView vx = VectorView.of(x);
                VectorView vy = VectorView.of(y);
                VectorView vo = VectorView.of(out)) {
            ValidityBitmaps.and(vo.validity(), List.of(), rows);
            List<MemorySegment> args = List.of(vx.data(), vy.data());
            return backend.execute(
                    program, new KernelInvocation(args, vo.validity(), vo.data(), rows, RowMode.ALL_ROWS));
        }
    }

    private static boolean sameBits(FieldVector a, FieldVector b, int rows) {
        try (VectorView va = VectorView.of(a);
                VectorView vb = VectorView.of(b)) {
            return va.data().asSlice(0, rows * 8L).mismatch(vb.data().asSlice(0, rows * 8L)) < 0;
        }
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}
