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
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.cpu.CpuBackend;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.opencl.ClErrorCodes;
import dev.quiver.opencl.OpenClException;
import dev.quiver.placement.Choice;
import dev.quiver.placement.DeviceFigures;
import dev.quiver.placement.DeviceHealth;
import dev.quiver.placement.SegmentStats;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The placement decisions that must hold on any machine, with real devices where the answer does
 * not depend on the machine (a 100-row batch of a cheap kernel) and with a scripted test device
 * (a CPU backend underneath that can be made slow or failing, with given figures) elsewhere:
 * AUTO follows the estimates and the learnt corrections, explores within its budget, recomputes
 * failed batches on the CPU with the same result, fences a failing device and probes it again.
 */
class PlacementTest extends QuiverTestBase {
    private static final Schema XY = new Schema(
            List.of(TestBatches.field("x", ElementType.FLOAT64), TestBatches.field("y", ElementType.FLOAT64)));
    private static final String GPU = "opencl:scripted-gpu";

    /** A device that computes with a CPU backend, optionally slowly or failing, counting what it was asked. */
    static class ScriptedBackend implements KernelBackend {
        final CpuBackend cpu = new CpuBackend(1);
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger runs = new AtomicInteger();
        volatile long sleepNanos;
        /** The OpenCL error code every run fails with, or 0 to run. */
        volatile int failWith;
        /** Every run throws this instead, when set. */
        volatile RuntimeException throwing;

        @Override
        public String name() {
            return GPU;
        }

        @Override
        public Optional<String> unsupportedReason(KernelProgram program) {
            return Optional.empty();
        }

        @Override
        public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
            attempts.incrementAndGet();
            if (throwing != null) {
                throw throwing;
            }
            if (failWith != 0) {
                // Scribble over the output first, as a half-finished device run would.
                invocation.out().fill((byte) 0x5A);
                invocation.validity().fill((byte) 0);
                throw new OpenClException("clEnqueueNDRangeKernel", failWith, "scripted failure");
            }
            long t0 = System.nanoTime();
            KernelRun r = cpu.execute(program, invocation);
            while (System.nanoTime() - t0 < sleepNanos) {
                Thread.onSpinWait();
            }
            runs.incrementAndGet();
            return new KernelRun(GPU, 0, 0, System.nanoTime() - t0, r.rowsComputed());
        }

        @Override
        public void close() {
            cpu.close();
        }
    }

    private static final class ManualClock {
        final AtomicLong now = new AtomicLong(1_000_000_000L);

        long get() {
            return now.get();
        }

        void advance(Duration d) {
            now.addAndGet(d.toNanos());
        }
    }

    private Quiver scripted(ScriptedBackend gpu, ManualClock clock, double explorationShare) {
        return scripted(gpu, clock, explorationShare, TestFigures.fastGpu());
    }

    private Quiver scripted(ScriptedBackend gpu, ManualClock clock, double explorationShare, DeviceFigures gpuFigures) {
        return Quiver.builder()
                .allocator(allocator)
                .openCl(false)
                .addDevice(new Device(GPU, Device.Kind.OPENCL_GPU, "a scripted test GPU", gpu))
                .deviceFigures("cpu", TestFigures.cpu())
                .deviceFigures(GPU, gpuFigures)
                .healthPolicy(new DeviceHealth.Policy(3, Duration.ofSeconds(10), Duration.ofSeconds(40)))
                .clock(clock::get)
                .explorationShare(explorationShare)
                .build();
    }

    private VectorSchemaRoot batch(int rows) {
        return batchIn(allocator, rows);
    }

    /** (x * y + 1) / (y - 0.5), in Java, null where x is: the independent reference. */
    private static void assertReference(VectorSchemaRoot b, FieldVector out, String what) {
        Float8Vector x = (Float8Vector) b.getVector("x"), y = (Float8Vector) b.getVector("y");
        Float8Vector o = (Float8Vector) out;
        assertEquals(b.getRowCount(), o.getValueCount(), what);
        for (int i = 0; i < b.getRowCount(); i++) {
            if (x.isNull(i)) {
                assertTrue(o.isNull(i), what + ": row " + i + " is null");
            } else {
                double want = (x.get(i) * y.get(i) + 1) / (y.get(i) - 0.5);
                assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(o.get(i)), what + ": row " + i);
            }
        }
    }

    private static final String EXPR = "(x * y + 1) / (y - 0.5)";

    @Test
    void aHundredRowBatchOfACheapKernelRunsOnTheCpuWithTheRealDevices() {
        CompiledExpression e = quiver.compile(XY, Expr.parse("x * y + 1"));
        assertEquals("cpu", e.choose(Placement.AUTO, 100).device().name(), e.explain(false, 100));
        try (VectorSchemaRoot b = batch(100)) {
            for (int i = 0; i < 50; i++) {
                try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                    assertEquals(-100 * 3 + 1, ((Float8Vector) out).get(0));
                }
            }
        }
        ExpressionMetrics.DeviceTotals cpu = e.metrics().byDevice().get("cpu");
        // Exploration may try another device now and then, within its 1% budget: a handful at most.
        assertTrue(cpu.batches() >= 48, e.explain());
        assertTrue(cpu.lastReason().startsWith("auto: "), cpu.lastReason());
    }

    @Test
    void autoFollowsTheEstimatesAndExplainShowsThemWithTheCrossover() {
        ScriptedBackend gpu = new ScriptedBackend();
        quiver.close();
        quiver = scripted(gpu, new ManualClock(), 0);
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        Choice small = e.choose(Placement.AUTO, 1000);
        Choice large = e.choose(Placement.AUTO, 1 << 20);
        assertEquals("cpu", small.device().name(), small.toString());
        assertEquals(GPU, large.device().name(), large.toString());
        assertTrue(large.reason().startsWith("auto: fastest estimate, estimated "), large.reason());
        // With the given figures: cpu 2 us + rows * max(4 ops... ) and gpu 50 us + copies; the crossover lies between.
        String explain = e.explain(false, 1 << 20);
        assertTrue(explain.contains("Placement (auto) at 1048576 rows per batch:"), explain);
        assertTrue(explain.contains("3 arith, 1 div, 0 transcendental"), explain);
        assertTrue(explain.matches("(?s).*" + GPU + ": [0-9.]+ ms \\(launch 0\\.050 ms.*<- auto.*"), explain);
        assertTrue(
                explain.matches("(?s).*" + GPU + " is estimated faster than the cpu from [0-9]+ rows per batch.*"),
                explain);
        long crossover = Long.parseLong(explain.replaceAll("(?s).*faster than the cpu from ([0-9]+) rows.*", "$1"));
        assertTrue(crossover > 1000 && crossover < 1 << 20, explain);
        assertEquals(
                "cpu",
                e.choose(Placement.AUTO, (int) (crossover - crossover / 32 - 1))
                        .device()
                        .name());
        assertEquals(GPU, e.choose(Placement.AUTO, (int) crossover + 1).device().name());
        try (VectorSchemaRoot b = batch(1 << 16)) {
            try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                assertReference(b, out, "auto");
            }
        }
        assertEquals(GPU.equals(e.choose(Placement.AUTO, 1 << 16).device().name()) ? 1 : 0, gpu.runs.get());
    }

    @Test
    void learningMovesBatchesOffADeviceSlowerThanItsFiguresAndExplorationKeepsCheckingIt() {
        ScriptedBackend gpu = new ScriptedBackend();
        gpu.sleepNanos = 2_000_000; // the figures promise ~0.14 ms for 32K rows; it takes over 2 ms
        quiver.close();
        quiver = scripted(gpu, new ManualClock(), 0.5);
        int rows = 1 << 15;
        try (VectorSchemaRoot b = batch(rows)) {
            // The JIT compiles the CPU's loop first (another expression of the same shape shares it), so the CPU's
            // times below are its own and not the interpreter's.
            CompiledExpression warmUp = quiver.compile(XY, Expr.parse(EXPR));
            for (int i = 0; i < 300; i++) {
                warmUp.evaluate(b, Placement.CPU).close();
            }
            CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
            assertEquals(GPU, e.choose(Placement.AUTO, rows).device().name(), "the figures favour the device at first");
            int batches = 600;
            for (int i = 0; i < batches; i++) {
                try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                    assertReference(b, out, "batch " + i);
                }
            }
            SegmentStats.OnDevice onGpu = e.placementStats().getFirst().on(GPU);
            // The CPU may appear twice (on its threads and on one thread, where the machine has spare cores).
            long onCpu = e.placementStats().getFirst().devices().stream()
                    .filter(d -> d.device().equals("cpu") || d.device().startsWith("cpu, "))
                    .mapToLong(SegmentStats.OnDevice::batches)
                    .sum();
            assertEquals(batches, onGpu.batches() + onCpu, e.explain(true));
            // The first run on a device is not learnt from (build, JIT); the second moves the estimate.
            assertTrue(onGpu.batches() - onGpu.explorations() <= 3, e.explain());
            assertTrue(onGpu.correction() > 5, e.explain());
            assertEquals("cpu", e.choose(Placement.AUTO, rows).device().name(), e.explain());
            // Exploration retries the slow device now and then (every 32 batches at most, as its credit allows).
            assertTrue(onGpu.explorations() >= 1 && onGpu.explorations() <= batches / 32 + 1, e.explain());
            String analyze = e.explain(true);
            assertTrue(
                    analyze.matches("(?s).*segment .* \\([0-9]+ auto decisions\\):.*" + GPU + ": [0-9]+ batches.*"
                            + "[1-9][0-9]* explorations.*correction x[0-9.]+.*"),
                    analyze);
            assertTrue(analyze.contains("scheduler: " + batches + " kernel runs placed"), analyze);
        }
    }

    @Test
    void withoutExplorationCreditAStaleEstimateIsNeverRevisited() {
        ScriptedBackend gpu = new ScriptedBackend();
        gpu.sleepNanos = 3_000_000;
        quiver.close();
        quiver = scripted(gpu, new ManualClock(), 0);
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        try (VectorSchemaRoot b = batch(1 << 13)) {
            for (int i = 0; i < 80; i++) {
                e.evaluate(b, Placement.AUTO).close();
            }
        }
        assertEquals(0, e.placementStats().getFirst().on(GPU).explorations());
        assertTrue(e.placementStats().getFirst().on(GPU).batches() <= 3, e.explain());
    }

    @Test
    void aFailingDeviceNeverLosesABatchAndIsFencedThenProbedAgain() {
        ScriptedBackend gpu = new ScriptedBackend();
        ManualClock clock = new ManualClock();
        quiver.close();
        quiver = scripted(gpu, clock, 0, TestFigures.instantGpu());
        Device device = quiver.device(GPU).orElseThrow();
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        int rows = 1 << 20;
        try (VectorSchemaRoot b = batch(rows)) {
            gpu.failWith = ClErrorCodes.OUT_OF_RESOURCES - 1000; // not a memory code: a failure of the device
            for (int i = 0; i < 5; i++) {
                try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                    assertReference(b, out, "failed batch " + i + ", recomputed");
                }
            }
            assertEquals(3, gpu.attempts.get(), "fenced after 3 failures in a row, then left alone");
            DeviceHealth.Snapshot h = quiver.health(device);
            assertEquals(DeviceHealth.State.FENCED, h.state(), h.describe());
            assertEquals(3, h.failures());
            assertEquals(1, h.fences());
            assertTrue(h.lastFailure().contains("scripted failure"), h.lastFailure());
            assertEquals(3, e.metrics().byDevice().get(GPU).fallbacks());
            assertEquals(5, e.metrics().byDevice().get("cpu").batches());
            assertTrue(e.explain().contains("3 failed and recomputed on the cpu"), e.explain());
            assertEquals("cpu", e.choose(Placement.AUTO, rows).device().name());
            assertEquals("cpu", e.choose(Placement.OPENCL, rows).device().name(), "OPENCL falls back while fenced");

            // The fence ends: the next batch probes the device; a failed probe fences it twice as long.
            clock.advance(Duration.ofSeconds(10));
            assertEquals(DeviceHealth.State.PROBE_DUE, quiver.health(device).state());
            try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                assertReference(b, out, "failed probe, recomputed");
            }
            assertEquals(4, gpu.attempts.get());
            assertEquals(DeviceHealth.State.FENCED, quiver.health(device).state());
            assertEquals(2, quiver.health(device).fences());
            clock.advance(Duration.ofSeconds(19));
            assertEquals(DeviceHealth.State.FENCED, quiver.health(device).state(), "the second fence lasts 20 s");
            clock.advance(Duration.ofSeconds(1));

            // The device recovers: the probe succeeds and it takes batches again.
            gpu.failWith = 0;
            try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                assertReference(b, out, "successful probe");
            }
            assertEquals(DeviceHealth.State.HEALTHY, quiver.health(device).state());
            assertEquals(1, gpu.runs.get());
            assertEquals(2, quiver.health(device).probes(), "two probes: one failed, one passed");
            try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                assertReference(b, out, "healthy again");
            }
            assertEquals(2, gpu.runs.get());
        }
    }

    @Test
    void placementOpenClRecomputesAFailedBatchOnTheCpu() {
        ScriptedBackend gpu = new ScriptedBackend();
        quiver.close();
        quiver = scripted(gpu, new ManualClock(), 0);
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        try (VectorSchemaRoot b = batch(1000)) {
            try (FieldVector out = e.evaluate(b, Placement.OPENCL)) {
                assertReference(b, out, "opencl");
            }
            assertEquals(1, gpu.runs.get());
            gpu.failWith = ClErrorCodes.INVALID_KERNEL;
            try (FieldVector out = e.evaluate(b, Placement.OPENCL)) {
                assertReference(b, out, "opencl failed, recomputed on the cpu");
            }
            assertEquals(1, e.metrics().fallbacks());
            assertTrue(
                    e.metrics()
                            .byDevice()
                            .get("cpu")
                            .lastReason()
                            .startsWith("recomputed on the cpu after the device failed"),
                    e.metrics().byDevice().get("cpu").lastReason());
            // A requested device gets no fallback: the caller asked for that device.
            Device device = quiver.device(GPU).orElseThrow();
            assertThrows(OpenClException.class, () -> e.evaluate(b, device, allocator));
        }
    }

    @Test
    void aDeviceOutOfMemorySendsTheBatchToTheCpuWithoutBeingFenced() {
        ScriptedBackend gpu = new ScriptedBackend();
        quiver.close();
        quiver = scripted(gpu, new ManualClock(), 0, TestFigures.instantGpu());
        Device device = quiver.device(GPU).orElseThrow();
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        gpu.failWith = ClErrorCodes.MEM_OBJECT_ALLOCATION_FAILURE;
        try (VectorSchemaRoot b = batch(1 << 20)) {
            for (int i = 0; i < 6; i++) {
                try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                    assertReference(b, out, "out of device memory, recomputed");
                }
            }
        }
        DeviceHealth.Snapshot h = quiver.health(device);
        assertEquals(DeviceHealth.State.HEALTHY, h.state(), h.describe());
        assertEquals(6, h.memoryFallbacks());
        assertEquals(0, h.failures());
    }

    @Test
    void aCpuOnlyFunctionNeverLeavesTheCpu() {
        ScriptedBackend gpu = new ScriptedBackend();
        quiver.close();
        quiver = scripted(gpu, new ManualClock(), 0);
        RowFn exact = RowFn.declare("exact_ratio")
                .arg("x", RowType.FLOAT64)
                .arg("y", RowType.FLOAT64)
                .returns(RowType.FLOAT64)
                .cpuOnly()
                .body((x, y) -> x.mul(y).add(1).div(y.sub(0.5)));
        quiver.functions().register(exact);
        CompiledExpression e = quiver.compile(XY, Expr.parse("exact_ratio(x, y)"));
        assertEquals("cpu", e.choose(Placement.AUTO, 1 << 20).device().name());
        assertEquals("cpu", e.choose(Placement.OPENCL, 1 << 20).device().name());
        try (VectorSchemaRoot b = batch(1 << 20)) {
            for (Placement p : Placement.values()) {
                try (FieldVector out = e.evaluate(b, p)) {
                    assertReference(b, out, p.name());
                }
            }
        }
        try (VectorSchemaRoot b = batch(1000);
                FieldVector out = e.evaluate(b, quiver.device(GPU).orElseThrow(), allocator)) {
            assertReference(b, out, "requested device, cpuOnly function");
        }
        assertEquals(0, gpu.attempts.get());
        assertTrue(e.metrics().byDevice().get("cpu").lastReason().startsWith("a function of the segment is cpuOnly"));
        assertTrue(e.explain().contains("runs on the cpu only: exact_ratio cpuOnly"), e.explain());
    }

    @Test
    void everyPathGivesTheSameBitsOnEveryRealDevice() {
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        try (VectorSchemaRoot b = batch(50_001)) {
            for (Placement p : Placement.values()) {
                if (p == Placement.OPENCL && quiver.openClDevices().isEmpty()) {
                    continue;
                }
                try (FieldVector out = e.evaluate(b, p)) {
                    assertReference(b, out, p.name());
                }
            }
            for (Device d : quiver.devices()) {
                try (FieldVector out = e.evaluate(b, d, allocator)) {
                    assertReference(b, out, d.name());
                }
            }
        }
    }

    @Test
    void threadsShareOneRuntimeWhileADeviceFailsNowAndThen() throws Exception {
        ScriptedBackend gpu = new ScriptedBackend() {
            final AtomicInteger n = new AtomicInteger();

            @Override
            public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
                failWith = n.incrementAndGet() % 5 == 0 ? ClErrorCodes.INVALID_COMMAND_QUEUE : 0;
                return super.execute(program, invocation);
            }
        };
        quiver.close();
        quiver = Quiver.builder()
                .allocator(allocator)
                .openCl(false)
                .addDevice(new Device(GPU, Device.Kind.OPENCL_GPU, "a scripted test GPU", gpu))
                .deviceFigures("cpu", TestFigures.cpu())
                .deviceFigures(GPU, TestFigures.fastGpu())
                .healthPolicy(new DeviceHealth.Policy(1000, Duration.ofSeconds(10), Duration.ofSeconds(40)))
                .build();
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        int threads = 6, batches = 12;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int rows = t % 2 == 0 ? 1 << 20 : 1000 + t;
                done.add(pool.submit(() -> {
                    try (BufferAllocator child = allocator.newChildAllocator("thread", 0, Long.MAX_VALUE);
                            VectorSchemaRoot b = batchIn(child, rows)) {
                        for (int i = 0; i < batches; i++) {
                            for (Placement p : Placement.values()) {
                                try (FieldVector out = e.evaluate(b, p, child)) {
                                    assertReference(b, out, p + " on a thread");
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        long ran = e.metrics().byDevice().values().stream()
                .mapToLong(ExpressionMetrics.DeviceTotals::batches)
                .sum();
        assertEquals((long) threads * batches * Placement.values().length, ran, e.explain());
        assertEquals(e.metrics().fallbacks(), gpu.attempts.get() - gpu.runs.get());
        assertNotEquals(0, e.metrics().fallbacks());
        assertFalse(quiver.health(quiver.device(GPU).orElseThrow()).state() == DeviceHealth.State.FENCED);
    }

    private static VectorSchemaRoot batchIn(BufferAllocator a, int rows) {
        VectorSchemaRoot b = VectorSchemaRoot.create(XY, a);
        Float8Vector x = (Float8Vector) b.getVector("x"), y = (Float8Vector) b.getVector("y");
        x.allocateNew(rows);
        y.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            if (i % 7 == 3) {
                x.setNull(i);
            } else {
                x.set(i, i * 0.25 - 100);
            }
            y.set(i, 3 - i * 0.5);
        }
        b.setRowCount(rows);
        return b;
    }

    @Test
    void aBatchTooBigForTheDeviceGoesToTheCpuWithoutCountingAgainstIt() {
        ScriptedBackend gpu = new ScriptedBackend();
        gpu.throwing = new IllegalArgumentException("buffers over 2 GiB are not supported");
        quiver.close();
        quiver = scripted(gpu, new ManualClock(), 0, TestFigures.instantGpu());
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        try (VectorSchemaRoot b = batch(1 << 16)) {
            for (int i = 0; i < 5; i++) {
                try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                    assertReference(b, out, "too big, recomputed");
                }
            }
        }
        DeviceHealth.Snapshot h = quiver.health(quiver.device(GPU).orElseThrow());
        assertEquals(DeviceHealth.State.HEALTHY, h.state(), h.describe());
        assertEquals(0, h.failures());
        assertEquals(5, e.metrics().fallbacks());
    }

    @Test
    void aProbeThatNeverRunsIsNotLeftClaimed() {
        ScriptedBackend gpu = new ScriptedBackend();
        ManualClock clock = new ManualClock();
        quiver.close();
        quiver = scripted(gpu, clock, 0, TestFigures.instantGpu());
        Device device = quiver.device(GPU).orElseThrow();
        CompiledExpression e = quiver.compile(XY, Expr.parse(EXPR));
        try (VectorSchemaRoot b = batch(1 << 16)) {
            gpu.failWith = ClErrorCodes.INVALID_KERNEL;
            for (int i = 0; i < 3; i++) {
                e.evaluate(b, Placement.AUTO).close();
            }
            assertEquals(DeviceHealth.State.FENCED, quiver.health(device).state());
            clock.advance(Duration.ofSeconds(10));
            gpu.failWith = 0;
            // The result cannot be allocated: the batch fails before any device runs it.
            try (BufferAllocator tiny = allocator.newChildAllocator("tiny", 0, 1024)) {
                assertThrows(QuiverException.class, () -> e.evaluate(b, Placement.AUTO, tiny));
            }
            assertEquals(
                    DeviceHealth.State.PROBE_DUE,
                    quiver.health(device).state(),
                    quiver.health(device).describe());
            try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                assertReference(b, out, "the probe");
            }
            assertEquals(DeviceHealth.State.HEALTHY, quiver.health(device).state());
            assertEquals(1, gpu.runs.get());
        }
    }

    @Test
    void openClPlacementRunsOnOpenClAndTheMetricsAndExplainSaySo() {
        OpenClAvailability.requireOpenCl(quiver);
        CompiledExpression e = quiver.compile(XY, Expr.parse("x*y + 1"));
        Device chosen = e.choose(Placement.OPENCL, 10).device();
        assertTrue(chosen.isOpenCl());
        try (VectorSchemaRoot b = VectorSchemaRoot.create(XY, allocator)) {
            Float8Vector x = (Float8Vector) b.getVector("x"), y = (Float8Vector) b.getVector("y");
            x.allocateNew(3);
            y.allocateNew(3);
            for (int i = 0; i < 3; i++) {
                x.set(i, i);
                y.set(i, 10);
            }
            b.setRowCount(3);
            try (FieldVector a = e.evaluate(b, Placement.OPENCL);
                    FieldVector c = e.evaluate(b, Placement.CPU)) {
                assertEquals(21.0, ((Float8Vector) a).get(2));
                assertEquals(21.0, ((Float8Vector) c).get(2));
            }
        }
        assertEquals(1, e.metrics().byDevice().get(chosen.name()).batches());
        assertEquals(1, e.metrics().byDevice().get("cpu").batches());
        assertEquals(
                "placement OPENCL", e.metrics().byDevice().get(chosen.name()).lastReason());
        String explain = e.explain();
        assertTrue(explain.contains("kernel segment ((x * y) + 1.0) as (($0 * $1) + 1.0) [dense] -> Float64"), explain);
        assertTrue(explain.contains("ran on " + chosen.name() + ": 1 batches, 3 rows"), explain);
        assertTrue(explain.contains("ran on cpu: 1 batches, 3 rows"), explain);
    }
}
