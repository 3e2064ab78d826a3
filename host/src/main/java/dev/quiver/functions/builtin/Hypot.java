package dev.quiver.functions.builtin;

import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;

import java.util.List;

/** {@code hypot}: sqrt(x*x + y*y): Float32 when both are Float32, else both are read as Float64. */
final class Hypot extends KernelFunction {
    private static final Signature SIGNATURE = Signature.oneOf(List.of(
            // Float64 first: anything that needs a cast becomes Float64; two Float32s match the second exactly.
            new TypeSignature.Uniform(2, List.of(DataType.FLOAT64)),
            new TypeSignature.Exact(List.of(DataType.FLOAT32, DataType.FLOAT32))), Volatility.IMMUTABLE).withParameterNames("x", "y");

    @Override
    public String name() {
        return "hypot";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    IrNode body(List<IrNode> a) {
        return Ir.sqrt(Ir.add(Ir.mul(a.get(0), a.get(0)), Ir.mul(a.get(1), a.get(1))));
    }

    @Override
    public String description() {
        return "sqrt(x*x + y*y): Float32 when both are Float32, else both are read as Float64.";
    }
}
