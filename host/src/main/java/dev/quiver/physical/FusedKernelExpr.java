package dev.quiver.physical;

import dev.quiver.memory.Resources;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import org.apache.arrow.vector.FieldVector;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A numeric subtree fused into one kernel program, run on the device chosen for the batch
 * (Vector API loop on the CPU, or an OpenCL kernel). Its inputs are evaluated first, one per
 * program argument; a scalar input is broadcast (folding leaves few of those).
 */
public record FusedKernelExpr(KernelProgram program, List<PhysicalExpr> inputs, DataType dataType) implements PhysicalExpr {
    public FusedKernelExpr {
        Objects.requireNonNull(program, "program is null");
        inputs = List.copyOf(inputs);
        if (inputs.size() != program.arity()) {
            throw new IllegalArgumentException("the program takes " + program.arity() + " arguments, given " + inputs.size());
        }
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        List<ColumnarValue> values = new ArrayList<>(inputs.size());
        try {
            List<FieldVector> args = new ArrayList<>(inputs.size());
            for (PhysicalExpr in : inputs) {
                ColumnarValue v = in.evaluate(ctx);
                values.add(v);
                ColumnarValue.Array a = Values.toArray(v, ctx.rows(), ctx.allocator());
                if (a != v) {
                    values.add(a);
                }
                args.add(a.vector());
            }
            return new ColumnarValue.Array(ctx.kernels().run(program, args, ctx.rows(), ctx.allocator()));
        } finally {
            Resources.closeAll(values);
        }
    }

    /** A float-only program over cheap inputs: no integer division, nothing that can throw. */
    @Override
    public boolean isCheapAndInfallible() {
        return program.resultType().isFloatingPoint() && program.argTypes().stream().allMatch(t -> t.isFloatingPoint())
                && !program.hasIntegerDivision() && inputs.stream().allMatch(PhysicalExpr::isCheapAndInfallible);
    }

    @Override
    public List<PhysicalExpr> children() {
        return inputs;
    }

    @Override
    public String describe() {
        return "fused kernel " + program.text() + " as " + KernelProgram.render(program.root());
    }
}
