package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.ExpressionMetrics;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.memory.VectorView;
import dev.quiver.opencl.TransferMode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scalar reference interpreter, the fused CPU loop and every OpenCL device must give the
 * same result, bit for bit, on hostile data: nulls with garbage behind them, NaN, ±0,
 * ±infinity, subnormals, integer wrap, MIN_VALUE / -1, empty batches and lengths that are not a
 * multiple of any vector width. Every OpenCL device runs in both transfer modes: as Quiver opens
 * it (zero copy on PoCL) and, through a second Quiver, in the other mode (explicit copies on
 * PoCL, as a discrete GPU makes); each run's bytes copied must say which mode it ran in.
 * Replay with {@code -Dquiver.seed=<seed>} (printed on failure).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DifferentialTest {
    static final long SEED = Long.getLong("quiver.seed", System.nanoTime());
    static final List<String> EXPRESSIONS = List.of(
            "f1*f2+f3",
            "sqrt(f1*f1+f2*f2)",
            "fma(f1, f2, f3)",
            "min(f1, f2)",
            "max(f1, -f2)",
            "abs(f1)/f2",
            "(f1 - 2.5) / -f2",
            "f1 + 0.1 * f2 - f3 * 3",
            "i1*i2+i1",
            "i1 - i2*7",
            "-l1 + l2*l1",
            "min(i1, i2)",
            "max(l1, l2)",
            "abs(i1)",
            "abs(l2)",
            "fma(i1, i2, i1)",
            "fma(l1, l2, 3)",
            "i1 / di",
            "l1 / dl",
            "i2 / di + l1 / dl",
            "i1 + f1",
            "l1 * f1",
            "g1 + i1",
            "g1 + l1",
            "i1 + l1",
            "sqrt(i1)",
            "sqrt(l1) + f2",
            "g1*g2+g1",
            "sqrt(abs(g1))",
            "g1 / g2",
            "fma(g1, g2, g1)",
            "min(g1, g2)",
            "max(g1, CAST(-0.0 AS REAL))");
    static final int[] LENGTHS = {0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4097, 100_003};

    private BufferAllocator allocator;
    private Quiver quiver;
    /** The same OpenCL devices in the transfer mode {@link #quiver} does not use (COPY on PoCL). */
    private Quiver otherMode;

    @BeforeAll
    void open() {
        allocator = new RootAllocator();
        // The suite compares fused kernels across devices: integer arithmetic is fused when it wraps.
        quiver = Quiver.builder()
                .allocator(allocator)
                .arithmetic(ArithmeticMode.WRAPPING)
                .build();
        boolean allZeroCopy =
                quiver.openClDevices().stream().allMatch(d -> d.transferMode().orElseThrow() == TransferMode.ZERO_COPY);
        otherMode = Quiver.builder()
                .allocator(allocator)
                .arithmetic(ArithmeticMode.WRAPPING)
                .transferMode(allZeroCopy ? TransferMode.COPY : TransferMode.ZERO_COPY)
                .build();
    }

    @AfterAll
    void close() {
        otherMode.close();
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    static Stream<String> expressions() {
        return EXPRESSIONS.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("expressions")
    void everyDeviceMatchesTheReference(String text) {
        CompiledExpression expr = quiver.compile(TestBatches.SCHEMA, Expr.parse(text));
        CompiledExpression inOtherMode = otherMode.compile(TestBatches.SCHEMA, Expr.parse(text));
        Random random = new Random(SEED ^ text.hashCode());
        for (int rows : LENGTHS) {
            try (VectorSchemaRoot batch = TestBatches.hostile(allocator, rows, 0.15, random)) {
                for (Device device : quiver.devices()) {
                    check(expr, device, batch, text);
                }
                for (Device device : otherMode.openClDevices()) {
                    check(inOtherMode, device, batch, text);
                }
            }
        }
    }

    private void check(CompiledExpression expr, Device device, VectorSchemaRoot batch, String text) {
        if (device.backend().unsupportedReason(expr.program()).isPresent()) {
            return; // said so in explain(); checked in OpenClBackendTest
        }
        int rows = batch.getRowCount();
        String what = text + " on " + device.name()
                + device.transferMode().map(m -> " [" + m + "]").orElse("") + ", " + rows + " rows, seed " + SEED;
        try (FieldVector actual = expr.evaluate(batch, device, allocator)) {
            assertMatchesReference(expr, batch, actual, what);
        }
        ExpressionMetrics.BatchReport report = expr.lastBatch().orElseThrow();
        assertEquals(rows, report.rows(), what);
        if (report.kernelRuns() == 0) {
            assertEquals(List.of(), report.devices(), what);
            assertEquals(0, report.bytesCopied(), what);
            return;
        }
        assertEquals(List.of(device.name()), report.devices(), what);
        if (device.transferMode().orElse(TransferMode.ZERO_COPY) == TransferMode.ZERO_COPY) {
            // The CPU and zero-copy OpenCL read and write the Arrow buffers themselves.
            assertEquals(0, report.bytesToDevice(), what + ": bytes to the device");
            assertEquals(0, report.bytesFromDevice(), what + ": bytes from the device");
        } else if (rows > 0) {
            assertTrue(report.bytesToDevice() > 0, what + ": bytes to the device " + report);
            assertTrue(report.bytesFromDevice() > 0, what + ": bytes from the device " + report);
        }
    }

    @Test
    void everyOpenClDeviceRunsInBothTransferModes() {
        OpenClAvailability.requireOpenCl(quiver);
        assertEquals(quiver.openClDevices().size(), otherMode.openClDevices().size());
        for (int i = 0; i < quiver.openClDevices().size(); i++) {
            Device d = quiver.openClDevices().get(i),
                    o = otherMode.openClDevices().get(i);
            assertEquals(d.name(), o.name());
            assertEquals(
                    Set.of(TransferMode.ZERO_COPY, TransferMode.COPY),
                    Set.of(d.transferMode().orElseThrow(), o.transferMode().orElseThrow()),
                    d.name());
        }
    }

    @Test
    void openClDevicesRunTheWholeSuite() {
        OpenClAvailability.requireOpenCl(quiver);
        // At least one OpenCL device must be able to run every Float64/Int expression above.
        for (String text : EXPRESSIONS) {
            if (text.contains("g")) {
                continue;
            }
            CompiledExpression expr = quiver.compile(TestBatches.SCHEMA, Expr.parse(text));
            boolean any = quiver.openClDevices().stream()
                    .anyMatch(d -> d.backend().unsupportedReason(expr.program()).isEmpty());
            if (!any) {
                fail("no OpenCL device can run " + text + ":\n" + expr.explain());
            }
        }
    }

    /**
     * Checks validity against the columns' own null flags, and values against the interpreter
     * run row by row over the same Arrow memory.
     */
    static void assertMatchesReference(
            CompiledExpression expr, VectorSchemaRoot batch, FieldVector actual, String what) {
        KernelProgram program = expr.program();
        List<String> columns =
                expr.inputColumns().stream().map(f -> f.getName()).toList();
        int rows = batch.getRowCount();
        assertEquals(rows, actual.getValueCount(), what);
        ElementType rt = program.resultType();
        List<VectorView> views = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            List<MemorySegment> args = new ArrayList<>();
            for (String c : columns) {
                FieldVector field = batch.getVector(c);
                VectorView v = VectorView.of(field);
                views.add(v);
                args.add(v.data());
            }
            VectorView out = VectorView.of(actual);
            views.add(out);
            MemorySegment expected = arena.allocate(Math.max(1, (long) rows * rt.byteWidth()), 8);
            RowInterpreter.run(program, args, out.validity(), expected, rows, "reference");
            for (int i = 0; i < rows; i++) {
                boolean valid = true;
                for (String c : columns) {
                    valid &= !batch.getVector(c).isNull(i);
                }
                assertEquals(valid, !actual.isNull(i), what + ": validity of row " + i);
                if (valid) {
                    Number e = RowInterpreter.read(expected, rt, i), a = RowInterpreter.read(out.data(), rt, i);
                    if (canonicalBits(e) != canonicalBits(a)) {
                        fail(what + ": row " + i + " expected " + e + " but was " + a);
                    }
                }
            }
        } finally {
            views.forEach(VectorView::close);
        }
    }

    static long canonicalBits(Number n) {
        return switch (n) {
            case Double d -> Double.doubleToLongBits(d);
            case Float f -> Float.floatToIntBits(f);
            default -> n.longValue();
        };
    }
}
