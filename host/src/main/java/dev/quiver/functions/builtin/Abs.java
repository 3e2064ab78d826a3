package dev.quiver.functions.builtin;

import dev.quiver.functions.Coercion;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.TypeSignatureClass;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;

import java.util.List;

/** {@code abs}: Absolute value; integers wrap (abs of the minimum is the minimum). */
final class Abs extends KernelFunction {
    private static final Signature SIGNATURE = Signature.oneOf(List.of(new TypeSignature.Exact(List.of(DataType.INT32)), new TypeSignature.Exact(List.of(DataType.INT64)), new TypeSignature.Exact(List.of(DataType.FLOAT32)), new TypeSignature.Exact(List.of(DataType.FLOAT64))), Volatility.IMMUTABLE);

    @Override
    public String name() {
        return "abs";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    IrNode body(List<IrNode> a) {
        return Ir.abs(a.get(0));
    }

    @Override
    public String description() {
        return "Absolute value; integers wrap (abs of the minimum is the minimum).";
    }
}
