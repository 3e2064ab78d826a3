package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.float64;
import static dev.quiver.opencl.Batches.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.apache.arrow.vector.Float8Vector;
import org.junit.jupiter.api.Test;

/** Every way a run can fail says what failed, and never leaves a half-released resource behind. */
class ErrorTest extends DeviceTestBase {
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final KernelProgram DOUBLE_IT = new KernelProgram(List.of(ElementType.FLOAT64), Ir.add(X, X));

    @OnEveryDevice
    void aBuildFailureCarriesTheBuildLog(OpenClBackend backend) {
        KernelSource broken =
                new KernelSource("__kernel void quiver_kernel(__global int* out) { out[0] = undeclared_name; }", false);
        OpenClException e = assertThrows(
                OpenClException.class, () -> backend.compile(broken).close());
        assertEquals("clBuildProgram", e.call());
        assertEquals(-11, e.errorCode());
        assertTrue(
                e.getMessage().startsWith("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11): "), e.getMessage());
        assertTrue(e.getMessage().contains("undeclared_name"), "the build log names the culprit: " + e.getMessage());
    }

    @OnEveryDevice
    void tooManyLiteralsForOneKernelIsRefused(OpenClBackend backend) {
        long literals = backend.device().maxParameterBytes() / Double.BYTES + 1;
        IrNode node = X;
        for (int i = 0; i < literals; i++) {
            node = Ir.add(node, Ir.lit((double) i));
        }
        KernelProgram program = new KernelProgram(List.of(ElementType.FLOAT64), node);
        String reason = backend.unsupportedReason(program).orElseThrow();
        assertTrue(reason.contains("bytes of kernel arguments"), reason);
        try (Float8Vector x = float64(allocator, 1.0)) {
            UnsupportedOperationException e = assertThrows(
                    UnsupportedOperationException.class,
                    () -> run(backend, allocator, program, x).close());
            assertEquals(reason, e.getMessage());
        }
        assertTrue(backend.unsupportedReason(DOUBLE_IT).isEmpty());
    }

    @OnEveryDevice
    void invocationsThatDoNotFitAreRejected(OpenClBackend backend) {
        try (Float8Vector x = float64(allocator, 1, 2, 3);
                VectorView v = VectorView.of(x);
                Float8Vector out = float64(allocator, 0, 0, 0);
                VectorView o = VectorView.of(out)) {
            IllegalArgumentException arity = assertThrows(
                    IllegalArgumentException.class,
                    () -> backend.execute(
                            DOUBLE_IT, new KernelInvocation(List.of(v.data(), v.data()), o.validity(), o.data(), 3)));
            assertTrue(arity.getMessage().contains("takes 1 argument(s), the invocation has 2"), arity.getMessage());
            IllegalArgumentException tooShort = assertThrows(
                    IllegalArgumentException.class,
                    () -> backend.execute(
                            DOUBLE_IT, new KernelInvocation(List.of(v.data()), o.validity(), o.data(), 4)));
            assertTrue(tooShort.getMessage().startsWith("argument 0 holds 24 bytes"), tooShort.getMessage());
            IllegalArgumentException heap = assertThrows(
                    IllegalArgumentException.class,
                    () -> backend.execute(
                            DOUBLE_IT,
                            new KernelInvocation(
                                    List.of(MemorySegment.ofArray(new double[3])), o.validity(), o.data(), 3)));
            assertTrue(heap.getMessage().contains("heap segment"), heap.getMessage());
        }
    }

    @OnEveryDevice
    void closingTwiceIsFineAndAClosedBackendRefusesWork(OpenClBackend shared) {
        OpenClBackend backend = OpenClBackend.open(shared.device());
        try (Float8Vector x = float64(allocator, 1.5);
                var out = run(backend, allocator, DOUBLE_IT, x)) {
            assertEquals(3.0, ((Float8Vector) out.vector()).get(0));
        }
        backend.close();
        backend.close();
        try (Float8Vector x = float64(allocator, 1.5);
                Float8Vector empty = float64(allocator)) {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> run(backend, allocator, DOUBLE_IT, x).close());
            assertEquals("backend " + backend.name() + " is closed", e.getMessage());
            assertThrows(
                    IllegalStateException.class,
                    () -> run(backend, allocator, DOUBLE_IT, empty).close());
        }
    }

    @OnEveryDevice
    void nameIsOpenClAndTheDeviceName(OpenClBackend backend) {
        assertEquals("opencl:" + backend.device().name(), backend.name());
        assertFalse(backend.name().endsWith(" "));
    }

    @Test
    void exceptionNamesCallAndCode() {
        TestDevices.require(); // the symbolic names come from JOCL, which needs the OpenCL library
        OpenClException e = new OpenClException("clCreateBuffer", -61, "");
        assertEquals("clCreateBuffer failed: CL_INVALID_BUFFER_SIZE (-61)", e.getMessage());
        assertEquals(
                "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5): while running x",
                new OpenClException("clEnqueueNDRangeKernel", -5, "while running x").getMessage());
    }
}
