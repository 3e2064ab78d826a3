package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.ExpressionMetrics;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.TransferMode;
import dev.quiver.placement.DeviceIdentity;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The OpenCL transfer mode as configuration ({@code Quiver.builder().transferMode},
 * {@code -Dquiver.opencl.transfer}), as each device reports it (description, EXPLAIN, calibration
 * identity), and the bytes each mode moves per batch, against a count made by hand.
 */
class TransferModeTest extends QuiverTestBase {
    private static final Schema XY = TestBatches.XY;

    /** A Quiver of the test's allocator in {@code mode} (null: as configured), with rough figures (no calibration). */
    private Quiver quiver(TransferMode mode) {
        Quiver.Builder b = Quiver.builder().allocator(allocator).calibration(false);
        return (mode == null ? b : b.transferMode(mode)).build();
    }

    /** x = 0.5 * i, y = i - 3 over {@code rows} rows, no nulls. */
    private VectorSchemaRoot batch(int rows) {
        return TestBatches.xy(allocator, rows, i -> 0.5 * i, i -> i - 3.0);
    }

    @Test
    void parsesTheConfigurationNamesAndRejectsOthersNamingTheAllowedValues() {
        assertEquals(TransferMode.AUTO, TransferMode.parse("auto"));
        assertEquals(TransferMode.ZERO_COPY, TransferMode.parse("zero-copy"));
        assertEquals(TransferMode.ZERO_COPY, TransferMode.parse(" Zero_Copy "));
        assertEquals(TransferMode.COPY, TransferMode.parse("COPY"));
        for (TransferMode m : TransferMode.values()) {
            assertEquals(m, TransferMode.parse(m.label()));
            assertEquals(m.label(), m.toString());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TransferMode.parse("dma"));
        assertEquals("unknown OpenCL transfer mode 'dma': use auto, zero-copy or copy", e.getMessage());
    }

    @Test
    void theBuilderModeIsEveryOpenClDevicesModeAndShowsInTheDescriptionAndExplain() {
        for (TransferMode mode : List.of(TransferMode.ZERO_COPY, TransferMode.COPY)) {
            try (Quiver quiver = quiver(mode)) {
                OpenClAvailability.requireOpenCl(quiver);
                assertEquals(mode, quiver.transferMode());
                CompiledExpression e = quiver.compile(XY, Expr.parse("x * y + 1.0"));
                String explain = e.explain(false);
                for (Device d : quiver.openClDevices()) {
                    assertEquals(mode, d.transferMode().orElseThrow(), d.name());
                    assertEquals(
                            mode,
                            d.backend()
                                    .unwrap(OpenClBackend.class)
                                    .orElseThrow()
                                    .transferMode(),
                            d.name());
                    assertTrue(
                            d.description().contains(", transfer " + mode.label() + " (configured)"), d.description());
                    assertTrue(
                            explain.contains(
                                    "  " + d.name() + ": can run every kernel; transfer " + mode.label() + "; "),
                            explain);
                }
                assertEquals(Optional.empty(), quiver.cpu().transferMode());
            }
        }
    }

    @Test
    void autoPicksZeroCopyExactlyWhereTheDeviceSharesHostMemory() {
        // The test base's Quiver has the default configuration.
        if (System.getProperty(TransferMode.PROPERTY) == null) {
            assertEquals(TransferMode.AUTO, quiver.transferMode());
        }
        OpenClAvailability.requireOpenCl(quiver);
        for (Device d : quiver.openClDevices()) {
            boolean shared = d.backend()
                    .unwrap(OpenClBackend.class)
                    .orElseThrow()
                    .device()
                    .hostUnifiedMemory();
            TransferMode expected = shared ? TransferMode.ZERO_COPY : TransferMode.COPY;
            assertEquals(expected, d.transferMode().orElseThrow(), d.name());
            assertTrue(
                    d.description()
                            .contains((shared ? "host-unified" : "discrete") + " memory, transfer " + expected.label()
                                    + " (auto)"),
                    d.description());
        }
    }

    @Test
    void theSystemPropertySetsTheModeTheBuilderWinsAndABadValueIsAClearError() {
        String before = System.getProperty(TransferMode.PROPERTY);
        try {
            System.setProperty(TransferMode.PROPERTY, "sometimes");
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> quiver(null).close());
            assertEquals(
                    "-Dquiver.opencl.transfer: unknown OpenCL transfer mode 'sometimes': use auto, zero-copy or copy",
                    e.getMessage());
            // The builder wins: the property is not even read.
            quiver(TransferMode.COPY).close();

            System.setProperty(TransferMode.PROPERTY, "copy");
            try (Quiver fromProperty = quiver(null);
                    Quiver fromBuilder = quiver(TransferMode.ZERO_COPY)) {
                assertEquals(TransferMode.COPY, fromProperty.transferMode());
                assertEquals(TransferMode.ZERO_COPY, fromBuilder.transferMode());
                OpenClAvailability.requireOpenCl(fromProperty);
                fromProperty
                        .openClDevices()
                        .forEach(d ->
                                assertEquals(TransferMode.COPY, d.transferMode().orElseThrow()));
                fromBuilder
                        .openClDevices()
                        .forEach(d -> assertEquals(
                                TransferMode.ZERO_COPY, d.transferMode().orElseThrow()));
            }
        } finally {
            if (before == null) {
                System.clearProperty(TransferMode.PROPERTY);
            } else {
                System.setProperty(TransferMode.PROPERTY, before);
            }
        }
    }

    @Test
    void eachModeHasItsOwnCalibrationIdentity() {
        try (Quiver zeroCopy = quiver(TransferMode.ZERO_COPY);
                Quiver copy = quiver(TransferMode.COPY)) {
            OpenClAvailability.requireOpenCl(zeroCopy);
            for (int i = 0; i < zeroCopy.openClDevices().size(); i++) {
                Device z = zeroCopy.openClDevices().get(i),
                        c = copy.openClDevices().get(i);
                String zi = DeviceIdentity.of(z), ci = DeviceIdentity.of(c);
                assertNotEquals(zi, ci);
                assertTrue(zi.contains(" | zero copy | quiver "), zi);
                assertTrue(ci.contains(" | copies | quiver "), ci);
                // The figures a Quiver estimates with are keyed by that identity (the cache's key too).
                assertEquals(zi, zeroCopy.figures(z).identity());
                assertEquals(ci, copy.figures(c).identity());
            }
            assertEquals(
                    DeviceIdentity.of(zeroCopy.cpu()),
                    DeviceIdentity.of(copy.cpu()),
                    "the CPU is the same device in both");
        }
    }

    /**
     * {@code x * y + 1.0} over Float64 without nulls is one dense kernel: the copy path writes both
     * inputs and reads the output back, and nothing else; zero copy moves nothing. Per batch, in the
     * totals and in EXPLAIN ANALYZE.
     */
    @Test
    void bytesEachWayPerBatchAreCountedInMetricsLastBatchAndExplainAnalyze() {
        int[] sizes = {1000, 4097};
        for (TransferMode mode : List.of(TransferMode.ZERO_COPY, TransferMode.COPY)) {
            try (Quiver quiver = quiver(mode)) {
                OpenClAvailability.requireOpenCl(quiver);
                Device d = quiver.openClDevices().getFirst();
                CompiledExpression e = quiver.compile(XY, Expr.parse("x * y + 1.0"));
                assertTrue(e.lastBatch().isEmpty());
                long to = 0, from = 0;
                for (int rows : sizes) {
                    try (VectorSchemaRoot b = batch(rows);
                            FieldVector out = e.evaluate(b, d, allocator)) {
                        Float8Vector r = (Float8Vector) out;
                        for (int i = 0; i < rows; i++) {
                            assertEquals(0.5 * i * (i - 3.0) + 1.0, r.get(i), "row " + i + " " + mode);
                        }
                    }
                    long expectTo = mode == TransferMode.COPY ? 2L * rows * Double.BYTES : 0;
                    long expectFrom = mode == TransferMode.COPY ? (long) rows * Double.BYTES : 0;
                    ExpressionMetrics.BatchReport last = e.lastBatch().orElseThrow();
                    assertEquals(rows, last.rows());
                    assertEquals(List.of(d.name()), last.devices());
                    assertEquals(1, last.kernelRuns());
                    assertEquals(expectTo, last.bytesToDevice(), mode + " " + rows);
                    assertEquals(expectFrom, last.bytesFromDevice(), mode + " " + rows);
                    assertEquals(expectTo + expectFrom, last.bytesCopied());
                    assertTrue(last.nanos() >= last.kernelNanos() && last.kernelNanos() > 0, last.toString());
                    to += expectTo;
                    from += expectFrom;
                }
                ExpressionMetrics m = e.metrics();
                assertEquals(2, m.batches());
                assertEquals(1000 + 4097, m.rows());
                assertEquals(to, m.bytesToDevice());
                assertEquals(from, m.bytesFromDevice());
                assertEquals(to + from, m.bytesCopied());
                ExpressionMetrics.DeviceTotals t = m.byDevice().get(d.name());
                assertEquals(2, t.batches());
                assertEquals(to, t.bytesToDevice());
                assertEquals(from, t.bytesFromDevice());
                assertEquals(to / 2.0, t.bytesToDevicePerBatch());
                assertEquals(from / 2.0, t.bytesFromDevicePerBatch());
                Function<Double, String> avg = v -> String.format(Locale.ROOT, "%.0f", v);
                String analyze = e.explain(true);
                assertTrue(analyze.contains("  ran on " + d.name() + ": 2 batches, 5097 rows, "), analyze);
                assertTrue(
                        analyze.contains(
                                " ms, " + to + " B to device, " + from + " B from device; per batch 2549 rows, "),
                        analyze);
                assertTrue(
                        analyze.contains(" ms, " + avg.apply(to / 2.0) + " B to device, " + avg.apply(from / 2.0)
                                + " B from device (last: device requested)"),
                        analyze);
                assertTrue(analyze.contains("  batches: 2 evaluated, 5097 rows, "), analyze);
                assertTrue(
                        analyze.contains("  last batch: 4097 rows on " + d.name() + ", 1 kernel run, "
                                + 2L * 4097 * 8 * (mode == TransferMode.COPY ? 1 : 0) + " B to device, "
                                + 4097L * 8 * (mode == TransferMode.COPY ? 1 : 0)
                                + " B from device, "),
                        analyze);
                assertFalse(analyze.contains("bytes copied"), analyze);
            }
        }
    }

    /**
     * A pipeline's EXPLAIN ANALYZE shows, per operator, the bytes its expressions' kernels copied: the
     * filter's comparison reads x and y and writes a bitmap; the projection reads them on the rows kept.
     */
    @Test
    void aPipelinesExplainAnalyzeShowsTheBytesEachOperatorsKernelsCopied() {
        int rows = 1000, batches = 2;
        long kept = IntStream.range(0, rows)
                .filter(i -> 0.5 * i * (i - 3.0) + 1.0 > 10.0)
                .count();
        try (Quiver copying = quiver(TransferMode.COPY);
                QueryRuntime runtime = QueryRuntime.create(1)) {
            OpenClAvailability.requireOpenCl(copying);
            String device = copying.openClDevices().getFirst().name();
            PipelinePlan plan = Pipeline.from(XY)
                    .filter("x * y + 1.0 > 10.0")
                    // Nothing in common with the filter (a shared subtree would be the filter's, computed once).
                    .project("x + y AS z")
                    .placement(Placement.OPENCL)
                    .plan(copying);
            String explain;
            try (QueryExecution q =
                    plan.execute(runtime, BatchStreams.generate(XY, batches, i -> batch(rows), runtime.executor()))) {
                assertEquals(batches * kept, BatchStreams.drain(q.stream(), b -> {}));
                explain = q.explain(true);
            }
            String filter = String.format(
                    Locale.ROOT,
                    "kernels: %s %d batches, %d B to device, %d B from device" + " (per batch %d B to, %d B from)",
                    device,
                    batches,
                    batches * 16L * rows,
                    batches * (rows / 8L),
                    16L * rows,
                    rows / 8);
            String project = String.format(
                    Locale.ROOT,
                    "kernels: %s %d batches, %d B to device, %d B from device" + " (per batch %d B to, %d B from)",
                    device,
                    batches,
                    batches * 16L * kept,
                    batches * 8L * kept,
                    16L * kept,
                    8L * kept);
            assertTrue(explain.contains(filter), filter + " in\n" + explain);
            assertTrue(explain.contains(project), project + " in\n" + explain);
            assertTrue(
                    explain.indexOf(project) < explain.indexOf(filter),
                    "the projection is above the filter: " + explain);
        }
    }

    @Test
    void aBatchWithoutKernelsReportsNoDeviceAndNoBytes() {
        try (Quiver quiver = quiver(TransferMode.COPY)) {
            CompiledExpression e = quiver.compile(XY, Expr.parse("x IS NULL"));
            try (VectorSchemaRoot b = batch(10);
                    FieldVector out = e.evaluate(b)) {
                assertEquals(10, out.getValueCount());
            }
            ExpressionMetrics.BatchReport last = e.lastBatch().orElseThrow();
            assertEquals(new ExpressionMetrics.BatchReport(10, List.of(), 0, 0, 0, 0, last.nanos()), last);
            assertEquals(1, e.metrics().batches());
            assertTrue(
                    e.explain(true)
                            .contains("  last batch: 10 rows on host kernels only, 0 kernel runs, 0 B to device"),
                    e.explain(true));
        }
    }
}
