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

/** {@code least}: The smaller of two numbers (alias min). */
final class Least extends KernelFunction {
    @Override
    public List<String> aliases() {
        return List.of("min");
    }
    private static final Signature SIGNATURE = Signature.uniform(2, List.of(DataType.INT32, DataType.INT64, DataType.FLOAT32, DataType.FLOAT64), Volatility.IMMUTABLE).withParameterNames("a", "b");

    @Override
    public String name() {
        return "least";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    IrNode body(List<IrNode> a) {
        return Ir.min(a.get(0), a.get(1));
    }

    @Override
    public String description() {
        return "The smaller of two numbers (alias min).";
    }
}
