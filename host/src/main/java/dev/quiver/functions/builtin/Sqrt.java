package dev.quiver.functions.builtin;

import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;

import java.util.List;

/** {@code sqrt}: Square root; NaN for negative numbers. */
final class Sqrt extends KernelFunction {
    private static final Signature SIGNATURE = Signature.oneOf(List.of(new TypeSignature.Exact(List.of(DataType.FLOAT64)), new TypeSignature.Exact(List.of(DataType.FLOAT32))), Volatility.IMMUTABLE);

    @Override
    public String name() {
        return "sqrt";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    IrNode body(List<IrNode> a) {
        return Ir.sqrt(a.get(0));
    }

    @Override
    public String description() {
        return "Square root; NaN for negative numbers.";
    }
}
