package dev.quiver.opencl;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides whether a device can compute a program exactly as Java does: what
 * {@link OpenClBackend#unsupportedReason} answers. Owns no state; plain constants and the
 * device's reported traits, so that deciding needs no OpenCL library.
 */
final class DeviceSupport {
    private DeviceSupport() {}

    /** Why {@code device} cannot compute {@code program} exactly as Java does, or empty; see {@link OpenClBackend#unsupportedReason}. */
    static Optional<String> unsupportedReason(OpenClDevice device, KernelProgram program) {
        Objects.requireNonNull(program, "program is null");
        String on = " on OpenCL device " + device.name();
        if (!device.fp64() && uses(program, ElementType.FLOAT64)) {
            return Optional.of(program.text() + " computes with Float64, but" + on
                    + " there is no double precision (cl_khr_fp64)");
        }
        if (!device.fp32CorrectlyRoundedDivideSqrt()
                && program.anyNode(n -> n.type() == ElementType.FLOAT32
                        && (n instanceof IrNode.Binary b && b.op() == BinaryOp.DIV
                                || n instanceof IrNode.Unary u && u.op() == UnaryOp.SQRT))) {
            return Optional.of(program.text() + " divides or takes a square root in Float32, but" + on
                    + " these are not correctly rounded (no CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)");
        }
        if (!device.fp32Denormals() && uses(program, ElementType.FLOAT32)) {
            return Optional.of(program.text() + " computes with Float32, but" + on
                    + " subnormal Float32 values are flushed to zero (no CL_FP_DENORM)");
        }
        if (!device.fullProfile()
                && program.anyNode(n -> isMathBuiltin(n)
                        || n instanceof IrNode.Fma f && f.type().isFloatingPoint())) {
            return Optional.of(program.text() + " calls a floating-point math function, but" + on
                    + " (embedded profile) its accuracy and special cases (infinities, NaN) are not those of the"
                    + " full profile, which Quiver needs to match Java");
        }
        long parameterBytes = parameterBytes(program);
        if (parameterBytes > device.maxParameterBytes()) {
            return Optional.of(program.text() + " needs " + parameterBytes + " bytes of kernel arguments ("
                    + program.arity() + " columns, " + program.constants().size() + " literals), but" + on
                    + " a kernel takes at most " + device.maxParameterBytes());
        }
        return Optional.empty();
    }

    /** A function computed by an OpenCL builtin with the full profile's ulp bound (not exact, unlike sqrt or floor). */
    static boolean isMathBuiltin(IrNode node) {
        return node instanceof IrNode.Unary u && u.type().isFloatingPoint() && !u.op().isExact()
                || node instanceof IrNode.Binary b
                        && (b.op() == BinaryOp.POW || b.op() == BinaryOp.ATAN2 || b.op() == BinaryOp.HYPOT);
    }

    private static boolean uses(KernelProgram program, ElementType type) {
        return program.argTypes().contains(type) || program.anyNode(n -> n.type() == type);
    }

    private static long parameterBytes(KernelProgram program) {
        // rows and all_rows, then one buffer per argument, the output, the validity and the status when the program
        // can fail: device pointers of at most 8 bytes. Plain constants, so that deciding needs no OpenCL library.
        long bytes = 2L * Integer.BYTES + (long) Long.BYTES * (program.arity() + 2 + (program.isFallible() ? 1 : 0));
        for (IrNode.Const c : program.constants()) {
            bytes += c.type() == ElementType.BOOL ? Integer.BYTES : c.type().byteWidth();
        }
        return bytes;
    }
}
