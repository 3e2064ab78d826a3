package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.int64;
import static dev.quiver.opencl.Batches.run;
import static dev.quiver.opencl.Batches.withNulls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.jocl.CL;
import org.junit.jupiter.api.Test;

/**
 * Every occurrence of every call a run makes, made to fail in turn, on both transfer paths: the
 * run throws the call's {@link OpenClException} with the injected code, releases every kernel and
 * buffer it created ({@link OpenClBackend#liveObjects()}), and the next run is right.
 */
class FaultInjectionTest extends DeviceTestBase {
    private static final IrNode X = Ir.arg(0, ElementType.INT64);
    private static final IrNode Y = Ir.arg(1, ElementType.INT64);
    /**
     * x / y, null where x < 0: every kind of buffer and command a run has (arguments, output,
     * validity written back by the null condition, the status word of a fallible program).
     */
    private static final KernelProgram PROGRAM = new KernelProgram(
            List.of(ElementType.INT64, ElementType.INT64),
            Ir.div(X, Y),
            Ir.compare(CmpOp.LT, X, Ir.lit(ElementType.INT64, 0L)),
            true,
            "x / y, null when x < 0");

    @OnEveryDevice
    void everyOccurrenceOfEveryCallCanFailAndTheRunLeavesNothingBehind(OpenClBackend backend) {
        runAndCheck(backend); // builds the program
        OpenClBackend.LiveObjects idle = backend.liveObjects();
        assertEquals(0, idle.runScoped(), idle.toString());

        // Count each call's occurrences in one run, with faults that never fire.
        FaultInjection.Call[] calls = {
            FaultInjection.Call.CREATE_BUFFER,
            FaultInjection.Call.ENQUEUE_KERNEL,
            FaultInjection.Call.READ_BACK,
            FaultInjection.Call.DEVICE_LOST
        };
        long[] perRun = new long[calls.length];
        try (FaultInjection.Plan counting = FaultInjection.inject(
                backend,
                Arrays.stream(calls)
                        .map(c -> FaultInjection.Fault.of(c).after(Long.MAX_VALUE - 1))
                        .toArray(FaultInjection.Fault[]::new))) {
            runAndCheck(backend);
            for (int i = 0; i < calls.length; i++) {
                perRun[i] = counting.seen(i);
            }
        }
        assertTrue(
                perRun[0] >= 4 && perRun[1] == 1 && perRun[2] >= 2 && perRun[3] >= 4,
                "buffers, launches, read-backs, queue commands per run: " + Arrays.toString(perRun));

        for (int i = 0; i < calls.length; i++) {
            for (long k = 0; k < perRun[i]; k++) {
                String what = calls[i] + " #" + k + " on " + backend;
                int code = calls[i].defaultError();
                try (FaultInjection.Plan plan = FaultInjection.inject(
                        backend, FaultInjection.Fault.of(calls[i]).after(k))) {
                    OpenClException e = assertThrows(OpenClException.class, () -> runAndCheck(backend), what);
                    assertEquals(code, e.errorCode(), what);
                    assertTrue(e.getMessage().endsWith("(injected fault)"), e.getMessage());
                    assertTrue(
                            calls[i] == FaultInjection.Call.DEVICE_LOST
                                    || calls[i].calls().contains(e.call()),
                            what + ": " + e.call());
                    assertEquals(1, plan.fired(), what);
                }
                assertEquals(idle, backend.liveObjects(), what + ": every object of the failed run is released");
                runAndCheck(backend);
            }
        }
    }

    @OnEveryDevice
    void aFailedBuildReleasesItsProgramAndIsNotCached(OpenClBackend backend) {
        KernelProgram fresh = new KernelProgram(
                List.of(ElementType.INT64, ElementType.INT64),
                Ir.add(Ir.mul(X, Y), Ir.lit(ElementType.INT64, 0x5eedL)));
        long programs = backend.liveObjects().programs();
        try (FaultInjection.Plan plan = FaultInjection.inject(
                backend,
                FaultInjection.Fault.of(FaultInjection.Call.BUILD_PROGRAM).times(2))) {
            for (int i = 0; i < 2; i++) {
                try (BigIntVector x = int64(allocator, 1, 2);
                        BigIntVector y = int64(allocator, 3, 4)) {
                    OpenClException e = assertThrows(
                            OpenClException.class,
                            () -> run(backend, allocator, fresh, x, y).close());
                    assertEquals("clBuildProgram", e.call());
                    assertEquals(CL.CL_BUILD_PROGRAM_FAILURE, e.errorCode());
                    assertTrue(e.getMessage().contains("(injected fault)"), e.getMessage());
                }
                assertEquals(
                        programs,
                        backend.liveObjects().programs(),
                        "the program object of the failed build is released");
                assertEquals(0, backend.liveObjects().runScoped());
            }
            // The fault has fired its 2 times: the third build succeeds and is cached.
            try (BigIntVector x = int64(allocator, 1, 2);
                    BigIntVector y = int64(allocator, 3, 4);
                    var out = run(backend, allocator, fresh, x, y)) {
                assertEquals(3L + 0x5eed, ((BigIntVector) out.vector()).get(0));
                assertEquals(8L + 0x5eed, ((BigIntVector) out.vector()).get(1));
            }
            assertEquals(2, plan.fired());
            assertEquals(3, plan.seen(0));
        }
        assertEquals(programs + 1, backend.liveObjects().programs());
    }

    @Test
    void aBackendCountsItsObjectsAndReleasesAllOfThemOnClose() {
        OpenClDevice device = TestDevices.require().getFirst();
        OpenClBackend backend = OpenClBackend.open(device);
        assertEquals(new OpenClBackend.LiveObjects(1, 1, 0, 0, 0), backend.liveObjects());
        runAndCheck(backend);
        assertEquals(new OpenClBackend.LiveObjects(1, 1, 1, 0, 0), backend.liveObjects());
        backend.close();
        assertEquals(0, backend.liveObjects().total(), backend.liveObjects().toString());
    }

    @Test
    void aClosedPlanInjectsNothingAndAReplacedPlanIsNotRemovedByItsClose() {
        OpenClBackend backend = OpenClBackend.open(TestDevices.require().getFirst());
        try {
            FaultInjection.Plan first =
                    FaultInjection.inject(backend, FaultInjection.Fault.of(FaultInjection.Call.ENQUEUE_KERNEL));
            FaultInjection.Plan second = FaultInjection.inject(
                    backend,
                    FaultInjection.Fault.of(FaultInjection.Call.ENQUEUE_KERNEL).withError(CL.CL_OUT_OF_RESOURCES));
            first.close(); // no longer installed: leaves the second alone
            OpenClException e = assertThrows(OpenClException.class, () -> runAndCheck(backend));
            assertEquals(CL.CL_OUT_OF_RESOURCES, e.errorCode());
            assertEquals(0, first.fired());
            second.close();
            runAndCheck(backend);
            assertEquals(1, second.fired());
        } finally {
            backend.close();
        }
    }

    private void runAndCheck(OpenClBackend backend) {
        // Zero divisors only behind nulls (row 3), and a row made null by the null condition (row 1).
        try (BigIntVector x = withNulls(int64(allocator, 10, -3, 7, 0, 100, Long.MIN_VALUE + 1), 3);
                BigIntVector y = int64(allocator, 2, 1, -7, 0, 3, -1);
                var out = run(backend, allocator, PROGRAM, x, y)) {
            BigIntVector v = (BigIntVector) out.vector();
            long[] expected = {5, 0, -1, 0, 33, Long.MAX_VALUE};
            boolean[] isNull = {false, true, false, true, false, true};
            for (int i = 0; i < expected.length; i++) {
                assertEquals(isNull[i], v.isNull(i), "null at row " + i);
                if (!isNull[i]) {
                    assertEquals(expected[i], v.get(i), "row " + i);
                }
            }
            assertFalse(v.isNull(0));
        }
    }
}
