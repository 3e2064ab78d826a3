package dev.quiver.opencl;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The generated OpenCL C, read as text (no device needed). */
class KernelSourceTest {
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final IrNode I = Ir.arg(0, ElementType.INT32);

    @Test
    void contractionIsOffAndDoublesAreEnabledOnlyWhenUsed() {
        String doubles = KernelSource.of(new KernelProgram(List.of(ElementType.FLOAT64), Ir.add(Ir.mul(X, X), X))).text();
        assertTrue(doubles.startsWith("#pragma OPENCL FP_CONTRACT OFF\n"), doubles);
        assertTrue(doubles.contains("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"), doubles);
        String ints = KernelSource.of(new KernelProgram(List.of(ElementType.INT32), Ir.mul(I, I))).text();
        assertTrue(ints.startsWith("#pragma OPENCL FP_CONTRACT OFF\n"), ints);
        assertFalse(ints.contains("cl_khr_fp64"), ints);
    }

    @Test
    void literalsAreParametersSoOneShapeIsOneSource() {
        KernelSource a = KernelSource.of(new KernelProgram(List.of(ElementType.FLOAT64), Ir.mul(X, Ir.lit(2.5))));
        KernelSource b = KernelSource.of(new KernelProgram(List.of(ElementType.FLOAT64), Ir.mul(X, Ir.lit(1e300))));
        assertFalse(a.text().contains("2.5"), a.text());
        assertEquals(a.text().replace("2.5", "1.0E300"), b.text());
    }

    @Test
    void parametersComeInTheDocumentedOrder() {
        KernelProgram program = new KernelProgram(List.of(ElementType.INT32, ElementType.INT64),
                Ir.add(Ir.div(I, Ir.lit(3)), Ir.mul(Ir.arg(1, ElementType.INT64), Ir.lit(7L))));
        KernelSource source = KernelSource.of(program);
        assertTrue(source.hasStatus());
        assertTrue(source.text().contains("__kernel void quiver_kernel(\n"
                + "        const int rows,\n"
                + "        __global const int* a0,\n"
                + "        __global const long* a1,\n"
                + "        __global long* out,\n"
                + "        __global const uchar* valid,\n"
                + "        __global int* status,\n"
                + "        const int c0,\n"
                + "        const long c1) {"), source.text());
        assertFalse(KernelSource.of(new KernelProgram(List.of(ElementType.INT32), Ir.mul(I, I))).hasStatus());
    }

    @Test
    void signedOverflowIsNeverLeftToC() {
        String text = KernelSource.of(new KernelProgram(List.of(ElementType.INT32),
                Ir.fma(Ir.neg(I), Ir.abs(I), Ir.sub(I, I)))).text();
        assertTrue(text.contains("(uint) a * (uint) b + (uint) c"), text);
        assertTrue(text.contains("(int) ((uint) 0 - (uint) a)"), text);
    }
}
