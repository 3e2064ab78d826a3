package dev.quiver.functions.builtin;

import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;

import java.util.List;

/** {@code fma}: a * b + c, rounded once. */
final class Fma extends KernelFunction {
    private static final Signature SIGNATURE = Signature.uniform(3, List.of(DataType.FLOAT32, DataType.FLOAT64), Volatility.IMMUTABLE).withParameterNames("a", "b", "c");

    @Override
    public String name() {
        return "fma";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    IrNode body(List<IrNode> a) {
        return Ir.fma(a.get(0), a.get(1), a.get(2));
    }

    @Override
    public String description() {
        return "a * b + c, rounded once.";
    }
}
