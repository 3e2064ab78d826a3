package dev.quiver.functions.builtin;

import dev.quiver.functions.Coercion;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignatureClass;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;

import java.util.List;

/** {@code hypot}: sqrt(x*x + y*y) of two floating-point numbers; integers and decimals are read as Float64. */
final class Hypot extends KernelFunction {
    private static final Coercion FLOAT_ARG = Coercion.implicit(TypeSignatureClass.Family.FLOAT,
            List.of(TypeSignatureClass.Family.NUMERIC), DataType.FLOAT64);
    private static final Signature SIGNATURE = Signature.coercible(List.of(FLOAT_ARG, FLOAT_ARG), Volatility.IMMUTABLE).withParameterNames("x", "y");

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
        return "sqrt(x*x + y*y) of two floating-point numbers; integers and decimals are read as Float64.";
    }
}
