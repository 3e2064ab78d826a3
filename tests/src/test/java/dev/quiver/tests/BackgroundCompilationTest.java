package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.ExpressionMetrics;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.opencl.FaultInjection;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.OpenClRuntime;
import dev.quiver.placement.Choice;
import dev.quiver.placement.DeviceFigures;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Background compilation under AUTO placement, with the first OpenCL device made the fastest by
 * its given figures: a new expression's first batch runs on the CPU while its OpenCL program
 * builds (EXPLAIN says so), and once built the device takes the batches; placement OPENCL, and
 * AUTO with background compilation off, build in the batch. A second Quiver on the same kernel
 * cache loads what the first built. Every result equals the CPU's, bit for bit; every Quiver ends
 * with no OpenCL object alive and its allocator at zero bytes. The scheduler's side (which device
 * is asked to build, when, and what exploration does meanwhile) is also checked deterministically
 * on a scripted device whose build the test completes.
 */
class BackgroundCompilationTest {
    private static final Schema XY = new Schema(
            List.of(TestBatches.field("x", ElementType.FLOAT64), TestBatches.field("y", ElementType.FLOAT64)));
    private static final String EXPR = "sqrt(x * x + y * y) * 3 + x / 7";
    private static final int ROWS = 10_000;
    private static final String BUILDING = "auto: the OpenCL kernel is still building in the background";

    @TempDir
    Path kernels;

    private BufferAllocator allocator;
    private final List<Quiver> opened = new ArrayList<>();

    @BeforeEach
    void allocator() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void closeAll() {
        for (Quiver q : opened) {
            List<OpenClBackend> backends = q.openClDevices().stream()
                    .map(Device::backend)
                    .filter(OpenClBackend.class::isInstance)
                    .map(OpenClBackend.class::cast)
                    .toList();
            q.close();
            for (OpenClBackend b : backends) {
                assertEquals(0, b.liveObjects().total(), "OpenCL objects alive after close: " + b.liveObjects());
            }
        }
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    /** A Quiver whose first OpenCL device wins every AUTO decision (no exploration), its programs cached in {@link #kernels}. */
    private Quiver open(UnaryOperator<Quiver.Builder> more) {
        Quiver.Builder b = Quiver.builder()
                .allocator(allocator)
                .deviceFigures("cpu", TestFigures.cpu())
                .explorationShare(0)
                .kernelCacheDirectory(kernels);
        boolean first = true;
        for (var d : OpenClRuntime.discover().devices()) {
            b.deviceFigures("opencl:" + d.name(), first ? TestFigures.instantGpu() : TestFigures.cpu());
            first = false;
        }
        Quiver q = more.apply(b).build();
        opened.add(q);
        OpenClAvailability.requireOpenCl(q);
        return q;
    }

    private static Device gpu(Quiver q) {
        return q.openClDevices().getFirst();
    }

    private static OpenClBackend backend(Quiver q) {
        return gpu(q).backend().unwrap(OpenClBackend.class).orElseThrow();
    }

    private static KernelProgram program(CompiledExpression e) {
        List<KernelProgram> programs = e.plan().programs();
        assertEquals(1, programs.size(), e.explain(false));
        return programs.getFirst();
    }

    private VectorSchemaRoot batch(int seed) {
        VectorSchemaRoot root = VectorSchemaRoot.create(XY, allocator);
        Float8Vector x = (Float8Vector) root.getVector("x"), y = (Float8Vector) root.getVector("y");
        x.allocateNew(ROWS);
        y.allocateNew(ROWS);
        for (int i = 0; i < ROWS; i++) {
            if ((i + seed) % 9 == 0) {
                x.setNull(i);
            } else {
                x.set(i, (i - ROWS / 2) * 0.731 + seed);
            }
            y.set(i, i % 4 == 0 ? -0.0 : 1e-3 * i * (seed + 1));
        }
        root.setRowCount(ROWS);
        return root;
    }

    /** Evaluates a batch under {@code placement} and checks it against the CPU, bit for bit. */
    private void evaluateAndCompare(CompiledExpression e, CompiledExpression reference, Placement placement, int seed) {
        try (VectorSchemaRoot b = batch(seed);
                FieldVector got = e.evaluate(b, placement, allocator);
                FieldVector want = reference.evaluate(b, Placement.CPU, allocator)) {
            assertEquals(ROWS, got.getValueCount());
            for (int i = 0; i < ROWS; i++) {
                assertEquals(want.isNull(i), got.isNull(i), "null at row " + i);
                if (!want.isNull(i)) {
                    assertEquals(
                            Double.doubleToRawLongBits(((Float8Vector) want).get(i)),
                            Double.doubleToRawLongBits(((Float8Vector) got).get(i)),
                            "row " + i);
                }
            }
        }
    }

    private static void awaitReady(OpenClBackend b, KernelProgram p) throws Exception {
        // The build the scheduler started: asking again starts nothing, it returns that build.
        b.prepareAsync(p).get(120, TimeUnit.SECONDS);
        assertTrue(b.isReady(p));
    }

    private static ExpressionMetrics.DeviceTotals on(CompiledExpression e, Device d) {
        return e.metrics().byDevice().get(d.name());
    }

    @Test
    void theFirstBatchRunsOnTheCpuWhileTheKernelBuildsThenTheDeviceTakesOver() throws Exception {
        Quiver q = open(b -> b);
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        CompiledExpression reference = q.compile(XY, Expr.parse(EXPR));
        KernelProgram p = program(e);
        assertFalse(backend(q).isReady(p));
        Choice next = e.choose(Placement.AUTO, ROWS);
        assertEquals("cpu", next.device().name(), next.toString());
        assertTrue(next.reason().startsWith(BUILDING), "the device would win on its figures: " + next);
        assertFalse(backend(q).isReady(p), "choose only looks: it starts no build");

        evaluateAndCompare(e, reference, Placement.AUTO, 1);
        ExpressionMetrics.DeviceTotals cpu = e.metrics().byDevice().get("cpu");
        assertEquals(1, cpu.batches(), e.explain());
        assertTrue(cpu.lastReason().startsWith(BUILDING), cpu.lastReason());
        assertNull(on(e, gpu(q)), "nothing ran on the device yet");
        assertTrue(e.explain(true).contains("(last: " + BUILDING), e.explain(true));

        awaitReady(backend(q), p);
        evaluateAndCompare(e, reference, Placement.AUTO, 2);
        evaluateAndCompare(e, reference, Placement.AUTO, 3);
        ExpressionMetrics.DeviceTotals onGpu = on(e, gpu(q));
        assertEquals(2, onGpu.batches(), e.explain());
        assertTrue(onGpu.lastReason().startsWith("auto: fastest estimate"), onGpu.lastReason());
        assertEquals(1, e.metrics().byDevice().get("cpu").batches());
        OpenClBackend.ProgramStats stats = backend(q).programStats();
        assertEquals(1, stats.built(), "one build, in the background: " + stats);
        assertEquals(0, stats.loaded(), "the kernel cache was empty: " + stats);
    }

    @Test
    void aNewQuiverOnTheSameKernelCacheLoadsTheProgramInTheBackground() throws Exception {
        Quiver first = open(b -> b);
        CompiledExpression e1 = first.compile(XY, Expr.parse(EXPR));
        evaluateAndCompare(e1, first.compile(XY, Expr.parse(EXPR)), Placement.OPENCL, 1);
        first.close(); // stores the binary before it returns
        assertEquals(1, backend(first).programStats().stored());

        Quiver second = open(b -> b);
        CompiledExpression e2 = second.compile(XY, Expr.parse(EXPR));
        evaluateAndCompare(e2, second.compile(XY, Expr.parse(EXPR)), Placement.AUTO, 2);
        assertTrue(
                e2.metrics().byDevice().get("cpu").lastReason().startsWith(BUILDING),
                "not in this backend's memory yet");
        awaitReady(backend(second), program(e2));
        assertEquals(new OpenClBackend.ProgramStats(0, 1, 0, 0), backend(second).programStats(), "loaded, not built");
        evaluateAndCompare(e2, second.compile(XY, Expr.parse(EXPR)), Placement.AUTO, 3);
        assertEquals(1, on(e2, gpu(second)).batches());
    }

    @Test
    void withTheKernelCacheOffNothingIsStored() {
        Quiver q = open(b -> b.kernelCache(false));
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        evaluateAndCompare(e, q.compile(XY, Expr.parse(EXPR)), Placement.OPENCL, 1);
        q.close();
        assertEquals(new OpenClBackend.ProgramStats(1, 0, 0, 0), backend(q).programStats());
        assertFalse(backend(q).programCache().enabled());
        assertEquals(0, kernels.toFile().list().length);
    }

    @Test
    void placementOpenClBuildsInTheBatchThatNeedsIt() {
        Quiver q = open(b -> b);
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        evaluateAndCompare(e, q.compile(XY, Expr.parse(EXPR)), Placement.OPENCL, 1);
        assertEquals(1, on(e, gpu(q)).batches());
        assertEquals("placement OPENCL", on(e, gpu(q)).lastReason().replaceAll(",.*", ""));
        assertTrue(backend(q).isReady(program(e)));
    }

    @Test
    void withBackgroundCompilationOffTheFirstAutoBatchBuildsOnTheDevice() {
        Quiver q = open(b -> b.backgroundCompilation(false));
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        evaluateAndCompare(e, q.compile(XY, Expr.parse(EXPR)), Placement.AUTO, 1);
        assertEquals(1, on(e, gpu(q)).batches(), e.explain());
        assertTrue(
                on(e, gpu(q)).lastReason().startsWith("auto: fastest estimate"),
                on(e, gpu(q)).lastReason());
        assertNull(e.metrics().byDevice().get("cpu"));
    }

    @Test
    void aFailedBackgroundBuildIsNotRetriedInTheBackgroundButByTheNextBatchOnTheDevice() throws Exception {
        Quiver q = open(b -> b.kernelCache(false));
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        CompiledExpression reference = q.compile(XY, Expr.parse(EXPR));
        KernelProgram p = program(e);
        try (FaultInjection.Plan plan =
                FaultInjection.inject(backend(q), FaultInjection.Fault.of(FaultInjection.Call.BUILD_PROGRAM))) {
            evaluateAndCompare(e, reference, Placement.AUTO, 1);
            CompletableFuture<Void> build = backend(q).prepareAsync(p); // the scheduler's build, remembered
            assertThrows(ExecutionException.class, () -> build.get(120, TimeUnit.SECONDS));
            assertEquals(1, plan.fired());
            // The device competes again; its batch builds the program itself (the fault fired once: this build works).
            evaluateAndCompare(e, reference, Placement.AUTO, 2);
            assertEquals(1, on(e, gpu(q)).batches(), e.explain());
            assertEquals(2, plan.seen(0), "one background build, one in the batch: no loop");
            assertEquals(0, q.health(gpu(q)).failures(), "the batch's own build worked");
        }
        assertEquals(1, backend(q).programStats().built());
    }

    /** A scripted device (a CPU backend underneath) whose program is built when the test says so. */
    static final class BuildingBackend extends PlacementTest.ScriptedBackend {
        volatile boolean ready;
        final AtomicInteger prepares = new AtomicInteger();
        final CompletableFuture<Void> build = new CompletableFuture<>();

        @Override
        public boolean isReady(KernelProgram program) {
            return ready;
        }

        @Override
        public CompletableFuture<Void> prepareAsync(KernelProgram program) {
            prepares.incrementAndGet();
            return build;
        }

        void built() {
            ready = true;
            build.complete(null);
        }
    }

    /** A Quiver with the scripted device {@code gpu} of the given figures, and an expression with its CPU reference. */
    private record Scripted(BuildingBackend gpu, CompiledExpression e, CompiledExpression reference) {}

    private Scripted scripted(DeviceFigures figures, double explorationShare) {
        BuildingBackend gpu = new BuildingBackend();
        Quiver q = Quiver.builder()
                .allocator(allocator)
                .openCl(false)
                .addDevice(new Device(gpu.name(), Device.Kind.OPENCL_GPU, "a scripted device that builds", gpu))
                .deviceFigures("cpu", TestFigures.cpu())
                .deviceFigures(gpu.name(), figures)
                .explorationShare(explorationShare)
                .build();
        opened.add(q);
        return new Scripted(gpu, q.compile(XY, Expr.parse(EXPR)), q.compile(XY, Expr.parse(EXPR)));
    }

    private void evaluate(Scripted s, int batches) {
        for (int i = 0; i < batches; i++) {
            evaluateAndCompare(s.e(), s.reference(), Placement.AUTO, i);
        }
    }

    @Test
    void aDeviceThatWouldWinIsAskedToBuildOnceAndTakesTheBatchesWhenBuilt() {
        Scripted s = scripted(TestFigures.instantGpu(), 0);
        assertTrue(s.e().choose(Placement.AUTO, ROWS).reason().startsWith(BUILDING));
        assertEquals(0, s.gpu().prepares.get(), "choose only looks");
        evaluate(s, 3);
        assertEquals(1, s.gpu().prepares.get(), "one build asked for, while it runs the batches stay on the cpu");
        assertEquals(3, s.e().metrics().byDevice().get("cpu").batches());
        assertEquals(0, s.gpu().runs.get());
        s.gpu().built();
        evaluate(s, 2);
        assertEquals(2, s.gpu().runs.get());
        assertTrue(s.e().metrics().byDevice().get(s.gpu().name()).lastReason().startsWith("auto: fastest estimate"));
        assertEquals(1, s.gpu().prepares.get());
    }

    @Test
    void aDeviceThatWouldNotWinIsNotAskedToBuild() {
        Scripted s = scripted(TestFigures.cpu(), 0); // the same figures as the cpu: the cpu wins the tie
        evaluate(s, 5);
        assertEquals(0, s.gpu().prepares.get());
        String reason = s.e().metrics().byDevice().get("cpu").lastReason();
        assertTrue(reason.startsWith("auto: fastest estimate"), "not 'the only device', not 'building': " + reason);
    }

    @Test
    void explorationAsksForTheBuildAndExploresOnlyOnceItIsBuilt() {
        Scripted s = scripted(TestFigures.cpu(), 0.5);
        evaluate(s, 40);
        assertEquals(1, s.gpu().prepares.get(), "exploring it came due: its build was asked for, once");
        assertEquals(0, s.gpu().attempts.get(), "never explored before it is built");
        s.gpu().built();
        evaluate(s, 40);
        assertTrue(s.e().placementStats().getFirst().on(s.gpu().name()).explorations() >= 1, s.e().explain());
        assertEquals(1, s.gpu().prepares.get());
    }

    @Test
    void aFailedBuildMakesTheDeviceCompeteAgainAndItsBatchBuildsItself() {
        Scripted s = scripted(TestFigures.instantGpu(), 0);
        evaluate(s, 1);
        s.gpu().build.completeExceptionally(new IllegalStateException("the build failed"));
        evaluate(s, 2);
        assertEquals(2, s.gpu().runs.get(), "not ready, but its build failed: the batches go to it (and build there)");
        assertEquals(1, s.gpu().prepares.get(), "no second background build");
    }

    @Test
    void closingWhileAProgramBuildsWaitsForItAndLeavesNothing() {
        Quiver q = open(b -> b.kernelCache(false));
        CompiledExpression e = q.compile(XY, Expr.parse("exp(x / 1000) + cos(y) * x"));
        try (VectorSchemaRoot b = batch(4);
                FieldVector out = e.evaluate(b, Placement.AUTO, allocator)) {
            assertEquals(ROWS, out.getValueCount());
        }
        assertTrue(e.metrics().byDevice().get("cpu").lastReason().startsWith(BUILDING));
        q.close(); // the build may still be running: close waits for it (closeAll checks that nothing is left)
    }
}
