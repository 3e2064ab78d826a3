package dev.quiver.functions.builtin;

import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;

import java.util.List;

/**
 * {@code min(a, b)}: the smaller of two numbers with Java's {@code Math.min} semantics (NaN wins,
 * -0.0 is below +0.0; NULL if either is NULL), fused into the kernels. For SQL's
 * null-skipping, any-arity form use {@code least}.
 */
final class Min extends KernelFunction {
    private static final Signature SIGNATURE = Signature.uniform(2, List.of(DataType.INT32, DataType.INT64, DataType.FLOAT32,
            DataType.FLOAT64), Volatility.IMMUTABLE).withParameterNames("a", "b");

    @Override
    public String name() {
        return "min";
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
        return "The smaller of two numbers, as Math.min (NaN wins, -0.0 < +0.0); fused into kernels.";
    }
}
