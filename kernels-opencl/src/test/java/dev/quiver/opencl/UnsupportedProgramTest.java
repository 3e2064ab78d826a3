package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which programs a device with fewer capabilities refuses, decided from its description alone (no device needed). */
class UnsupportedProgramTest {
    private static final IrNode F = Ir.arg(0, ElementType.FLOAT32);
    private static final IrNode I = Ir.arg(0, ElementType.INT32);

    private static OpenClDevice device(boolean fp64, boolean fp32CorrectlyRounded, boolean fp32Denormals) {
        return device(fp64, fp32CorrectlyRounded, fp32Denormals, true);
    }

    private static OpenClDevice device(
            boolean fp64, boolean fp32CorrectlyRounded, boolean fp32Denormals, boolean fullProfile) {
        return new OpenClDevice(
                null,
                null,
                new OpenClPlatform("Test Platform", "Test", "OpenCL 1.2"),
                "test-gpu",
                "Test",
                OpenClDevice.Type.GPU,
                "1.0",
                "OpenCL 1.2 test",
                "OpenCL C 1.2",
                8,
                1L << 32,
                1L << 30,
                1024,
                false,
                fp64,
                fp32CorrectlyRounded,
                fp32Denormals,
                fullProfile);
    }

    private static KernelProgram float32(IrNode node) {
        return new KernelProgram(List.of(ElementType.FLOAT32), node);
    }

    @Test
    void float64NeedsDoublePrecision() {
        OpenClDevice noDoubles = device(false, true, true);
        KernelProgram sqrtOfInt = new KernelProgram(List.of(ElementType.INT32), Ir.sqrt(I));
        String reason = DeviceSupport.unsupportedReason(noDoubles, sqrtOfInt).orElseThrow();
        assertEquals(
                "sqrt(cast($0 as Float64)) computes with Float64, but on OpenCL device test-gpu"
                        + " there is no double precision (cl_khr_fp64)",
                reason);
        KernelProgram unusedDoubleColumn =
                new KernelProgram(List.of(ElementType.INT32, ElementType.FLOAT64), Ir.neg(I));
        assertTrue(
                DeviceSupport.unsupportedReason(noDoubles, unusedDoubleColumn).isPresent());
        assertFalse(DeviceSupport.unsupportedReason(noDoubles, float32(Ir.div(F, F)))
                .isPresent());
        assertFalse(DeviceSupport.unsupportedReason(device(true, true, true), sqrtOfInt)
                .isPresent());
    }

    @Test
    void float32DivisionAndSqrtNeedCorrectRounding() {
        OpenClDevice sloppy = device(true, false, true);
        assertTrue(DeviceSupport.unsupportedReason(sloppy, float32(Ir.div(F, Ir.lit(3f))))
                .orElseThrow()
                .contains("not correctly rounded"));
        assertTrue(DeviceSupport.unsupportedReason(sloppy, float32(Ir.sqrt(F))).isPresent());
        assertFalse(DeviceSupport.unsupportedReason(sloppy, float32(Ir.fma(F, F, Ir.max(F, Ir.lit(1f)))))
                .isPresent());
        // Float64 division is correctly rounded on every OpenCL device with fp64.
        assertFalse(DeviceSupport.unsupportedReason(
                        sloppy, float32(Ir.div(Ir.cast(F, ElementType.FLOAT64), Ir.lit(3.0))))
                .isPresent());
    }

    @Test
    void float32NeedsSubnormals() {
        assertTrue(DeviceSupport.unsupportedReason(device(true, true, false), float32(Ir.mul(F, F)))
                .orElseThrow()
                .contains("flushed to zero"));
        assertFalse(DeviceSupport.unsupportedReason(
                        device(true, true, false), new KernelProgram(List.of(ElementType.INT32), Ir.mul(I, I)))
                .isPresent());
    }

    @Test
    void mathFunctionsNeedTheFullProfile() {
        OpenClDevice embedded = device(true, true, true, false);
        String reason = DeviceSupport.unsupportedReason(
                        embedded, new KernelProgram(List.of(ElementType.FLOAT32), Ir.unary(UnaryOp.EXP, F)))
                .orElseThrow();
        assertTrue(reason.contains("embedded profile"), reason);
        assertTrue(DeviceSupport.unsupportedReason(embedded, float32(Ir.fma(F, F, F)))
                .isPresent());
        // Everything else the IR has runs there: arithmetic, Booleans, comparisons, checks, remainders, shifts.
        IrNode j = Ir.arg(1, ElementType.INT32);
        KernelProgram ints = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT32),
                Ir.select(
                        Ir.compare(CmpOp.LT, I, j),
                        new IrNode.Binary(BinaryOp.REM, I, j),
                        new IrNode.Binary(BinaryOp.SHL, I, j)),
                Ir.compare(CmpOp.EQ, j, Ir.lit(0)),
                true,
                "f($0, $1)");
        assertFalse(DeviceSupport.unsupportedReason(embedded, ints).isPresent());
        assertFalse(DeviceSupport.unsupportedReason(embedded, float32(Ir.unary(UnaryOp.FLOOR, Ir.sqrt(Ir.mul(F, F)))))
                .isPresent());
        assertFalse(DeviceSupport.unsupportedReason(device(true, true, true), float32(Ir.unary(UnaryOp.EXP, F)))
                .isPresent());
    }

    @Test
    void aDeviceNotFoundByDiscoveryCannotBeOpened() {
        OpenClDevice fake = device(true, true, true);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OpenClBackend.open(fake));
        assertTrue(e.getMessage().contains("not found by OpenClRuntime.discover()"));
    }

    @Test
    void versionsAreCompared() {
        OpenClDevice v12 = device(true, true, true);
        assertTrue(v12.versionAtLeast(1, 2));
        assertTrue(v12.versionAtLeast(1, 1));
        assertFalse(v12.versionAtLeast(2, 0));
    }
}
