package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The generated OpenCL C, read as text (no device needed). */
class KernelSourceTest {
    private static final IrNode X = Ir.arg(0, ElementType.FLOAT64);
    private static final IrNode I = Ir.arg(0, ElementType.INT32);

    @Test
    void contractionIsOffAndDoublesAreEnabledOnlyWhenUsed() {
        String doubles = KernelSource.of(new KernelProgram(List.of(ElementType.FLOAT64), Ir.add(Ir.mul(X, X), X)))
                .text();
        assertTrue(doubles.startsWith("#pragma OPENCL FP_CONTRACT OFF\n"), doubles);
        assertTrue(doubles.contains("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"), doubles);
        String ints = KernelSource.of(new KernelProgram(List.of(ElementType.INT32), Ir.mul(I, I)))
                .text();
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
        KernelProgram program = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT64),
                Ir.add(Ir.div(I, Ir.lit(3)), Ir.mul(Ir.arg(1, ElementType.INT64), Ir.lit(7L))));
        KernelSource source = KernelSource.of(program);
        assertTrue(source.hasStatus());
        assertTrue(
                source.text()
                        .contains("__kernel void quiver_kernel(\n"
                                + "        const int rows,\n"
                                + "        const int all_rows,\n"
                                + "        __global const int* a0,\n"
                                + "        __global const long* a1,\n"
                                + "        __global long* out,\n"
                                + "        __global const uchar* valid,\n"
                                + "        __global int* status,\n"
                                + "        const int c0,\n"
                                + "        const long c1) {"),
                source.text());
        assertFalse(KernelSource.of(new KernelProgram(List.of(ElementType.INT32), Ir.mul(I, I)))
                .hasStatus());
    }

    @Test
    void signedOverflowIsNeverLeftToC() {
        String text = KernelSource.of(
                        new KernelProgram(List.of(ElementType.INT32), Ir.fma(Ir.neg(I), Ir.abs(I), Ir.sub(I, I))))
                .text();
        assertTrue(text.contains("(uint) a * (uint) b + (uint) c"), text);
        assertTrue(text.contains("(int) ((uint) 0 - (uint) a)"), text);
    }

    @Test
    void booleansAreBitmapsAndBitmapOutputsTakeEightRowsPerWorkItem() {
        IrNode b = Ir.arg(1, ElementType.BOOL);
        KernelProgram program = new KernelProgram(
                List.of(ElementType.FLOAT64, ElementType.BOOL), Ir.and(b, Ir.compare(CmpOp.LT, X, Ir.lit(1.0))));
        KernelSource source = KernelSource.of(program);
        assertEquals(8, source.rowsPerItem());
        assertFalse(source.hasStatus());
        assertTrue(
                source.text()
                        .contains("__global const uchar* a1,\n        __global uchar* out,\n"
                                + "        __global const uchar* valid,\n        const double c0) {"),
                source.text());
        assertTrue(source.text().contains("const int x1 = (a1[i >> 3] >> (i & 7)) & 1;"), source.text());
        // Whole bytes, keeping the bits past the last row.
        assertTrue(source.text().contains("out[g] = (uchar) ((out[g] & ~live) | bits);"), source.text());
        assertEquals(
                1,
                KernelSource.of(new KernelProgram(List.of(ElementType.FLOAT64), Ir.mul(X, X)))
                        .rowsPerItem());
    }

    @Test
    void aNullConditionWritesTheValidity() {
        KernelProgram program = new KernelProgram(
                List.of(ElementType.FLOAT64),
                Ir.sqrt(X),
                Ir.compare(CmpOp.LT, X, Ir.lit(0.0)),
                true,
                "sqrt_or_null($0)");
        KernelSource source = KernelSource.of(program);
        assertEquals(8, source.rowsPerItem());
        assertTrue(source.text().contains("__global uchar* valid,"), source.text());
        assertTrue(source.text().contains("valid[g] = (uchar) (v & ~nulls);"), source.text());
    }

    @Test
    void equalLiteralsShareOneParameterAndEqualSubtreesOneTemporary() {
        // ($0 * 2.0 + 2.0) / ($0 * 2.0): the literal twice, the product twice (built separately).
        KernelProgram program = new KernelProgram(
                List.of(ElementType.FLOAT64),
                Ir.div(Ir.add(Ir.mul(X, Ir.lit(2.0)), Ir.lit(2.0)), Ir.mul(X, Ir.lit(2.0))));
        String text = KernelSource.of(program).text();
        assertTrue(text.contains("const double c0) {"), text);
        assertFalse(text.contains("double c1"), text);
        assertEquals(text.indexOf("x0 * c0"), text.lastIndexOf("x0 * c0"), text);
    }

    @Test
    void failuresAreKeptPerRowAndShiftsAndRemaindersAreJavas() {
        IrNode j = Ir.arg(1, ElementType.INT32);
        KernelProgram program = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT32),
                new IrNode.Binary(
                        BinaryOp.REM, new IrNode.Binary(BinaryOp.SHL, I, j), new IrNode.Binary(BinaryOp.SHR, I, j)));
        KernelSource source = KernelSource.of(program);
        assertTrue(source.hasStatus());
        String text = source.text();
        assertTrue(text.contains("(int) ((uint) x0 << (x1 & 31))"), text);
        assertTrue(text.contains("a < 0 ? ~(~a >> n) : a >> n"), text);
        assertTrue(text.contains("q_rem_int(t0, t1, &failed)"), text);
        assertTrue(text.contains("atomic_min(status, i);"), text);
    }

    @Test
    void powHasJavasSpecialCases() {
        String text = KernelSource.of(
                        new KernelProgram(List.of(ElementType.FLOAT64), new IrNode.Binary(BinaryOp.POW, X, X)))
                .text();
        assertTrue(text.contains("if (isnan(y))"), text);
        assertTrue(text.contains("if (isinf(y) && fabs(x) == (double) 1)"), text);
    }
}
