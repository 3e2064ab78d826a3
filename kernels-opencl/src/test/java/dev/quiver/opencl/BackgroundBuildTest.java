package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.jocl.CL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OpenClBackend#prepareAsync} and {@link OpenClBackend#isReady}: a program built on the
 * backend's build thread is what later runs use (nothing is built twice, whichever asks first);
 * a failed background build is remembered rather than retried, and a run then builds it itself;
 * closing waits for the build in progress and fails those not started, leaving no OpenCL object.
 * Each backend has an empty program cache of its own, so every program here is built from source.
 */
class BackgroundBuildTest {
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final long TIMEOUT_SECONDS = 120;

    private BufferAllocator allocator;
    private OpenClBackend backend;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        backend =
                OpenClBackend.open(TestDevices.require().getFirst(), TransferMode.AUTO, ProgramBinaryCache.disabled());
    }

    @AfterEach
    void close() {
        if (backend != null) {
            backend.close();
            assertEquals(
                    0, backend.liveObjects().total(), "OpenCL objects alive after close: " + backend.liveObjects());
        }
        assertEquals(0, allocator.getAllocatedMemory(), "Arrow memory leaked");
        allocator.close();
    }

    /** x * c + i, one shape per {@code i}; {@code c} a literal (not part of the shape). */
    private static KernelProgram program(int shape, double literal) {
        IrNode body = Ir.mul(X, Ir.lit(literal));
        for (int k = 0; k <= shape; k++) {
            body = Ir.add(body, X);
        }
        return new KernelProgram(List.of(ElementType.FLOAT64), body);
    }

    private void runAndCheck(KernelProgram p, int shape, double literal) {
        try (Float8Vector x = Batches.float64(allocator, 1, -2.5, 1e300, Double.NaN, -0.0);
                Batches.Output out = Batches.run(backend, allocator, p, x)) {
            Batches.assertFloat64(
                    out.vector(),
                    i -> {
                        double v = x.get(i) * literal;
                        for (int k = 0; k <= shape; k++) {
                            v += x.get(i);
                        }
                        return v;
                    },
                    "shape " + shape);
        }
    }

    private static void await(CompletableFuture<Void> f) throws Exception {
        f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void aProgramBuiltInTheBackgroundIsTheOneRunsUse() throws Exception {
        KernelProgram p = program(0, 2.0);
        assertFalse(backend.isReady(p));
        CompletableFuture<Void> build = backend.prepareAsync(p);
        assertSame(build, backend.prepareAsync(p), "asked again while it builds: the same build");
        await(build);
        assertTrue(backend.isReady(p));
        assertTrue(backend.isReady(program(0, 5.0)), "a program of the same shape, other literals: ready too");
        assertTrue(backend.prepareAsync(p).isDone());
        assertEquals(new OpenClBackend.ProgramStats(1, 0, 0, 0), backend.programStats());
        runAndCheck(p, 0, 2.0);
        runAndCheck(program(0, -3.0), 0, -3.0);
        assertEquals(1, backend.compiledPrograms(), "the runs built nothing");
        assertEquals(1, backend.programStats().built());
    }

    @Test
    void aFailedBackgroundBuildIsRememberedAndARunBuildsItAgain() throws Exception {
        KernelProgram p = program(1, 2.0);
        try (FaultInjection.Plan plan =
                FaultInjection.inject(backend, FaultInjection.Fault.of(FaultInjection.Call.BUILD_PROGRAM))) {
            CompletableFuture<Void> build = backend.prepareAsync(p);
            Exception e = assertThrows(Exception.class, () -> await(build));
            OpenClException cause = assertInstanceOf(OpenClException.class, e.getCause());
            assertEquals(CL.CL_BUILD_PROGRAM_FAILURE, cause.errorCode());
            assertFalse(backend.isReady(p));
            assertSame(build, backend.prepareAsync(p), "the failure is remembered: no second background build");
            assertEquals(1, plan.seen(0));
            assertEquals(0, backend.liveObjects().programs(), "the failed build's program object is released");
            runAndCheck(p, 1, 2.0);
            assertEquals(2, plan.seen(0), "the run built it again, and that build succeeded");
            assertTrue(backend.isReady(p));
            assertTrue(
                    backend.prepareAsync(p).isDone() && !backend.prepareAsync(p).isCompletedExceptionally());
        }
    }

    @Test
    void anUnsupportedProgramIsNotBuilt() {
        OpenClDevice device = backend.device();
        long literals = device.maxParameterBytes() / Double.BYTES + 1;
        IrNode body = X;
        for (int i = 0; i < literals; i++) {
            body = Ir.add(body, Ir.lit((double) i));
        }
        KernelProgram tooLarge = new KernelProgram(List.of(ElementType.FLOAT64), body);
        CompletableFuture<Void> f = backend.prepareAsync(tooLarge);
        CompletionException e = assertThrows(CompletionException.class, f::join);
        assertInstanceOf(UnsupportedOperationException.class, e.getCause());
        assertEquals(0, backend.programStats().built());
    }

    @Test
    void closeWaitsForTheBuildInProgressAndFailsTheOthers() {
        List<CompletableFuture<Void>> builds = new ArrayList<>();
        for (int shape = 2; shape < 6; shape++) {
            builds.add(backend.prepareAsync(program(shape, 1.0)));
        }
        backend.close();
        for (CompletableFuture<Void> f : builds) {
            assertTrue(f.isDone(), "every build ended by the time close returned");
            if (f.isCompletedExceptionally()) {
                CompletionException e = assertThrows(CompletionException.class, f::join);
                assertInstanceOf(IllegalStateException.class, e.getCause(), e.toString());
            }
        }
        assertEquals(0, backend.liveObjects().total(), backend.liveObjects().toString());
        CompletableFuture<Void> late = backend.prepareAsync(program(7, 1.0));
        assertTrue(late.isCompletedExceptionally(), "nothing is built once closed");
        assertFalse(backend.isReady(program(2, 1.0)));
    }
}
