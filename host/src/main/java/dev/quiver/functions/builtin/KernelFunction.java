package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.memory.Resources;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import org.apache.arrow.vector.FieldVector;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A numeric function defined by its kernel IR. Inside a fused expression it runs as part of
 * the kernel (CPU or OpenCL); {@link #invoke} (literals at planning, or arguments the
 * kernels cannot take) runs the same IR through the reference interpreter, so both paths
 * compute the same values.
 */
abstract class KernelFunction implements ScalarFunction {

    /** The function body over lowered arguments. */
    abstract IrNode body(List<IrNode> args);

    @Override
    public Optional<IrNode> kernel(List<IrNode> args) {
        return Optional.of(body(args));
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        List<IrNode> args = new ArrayList<>();
        for (int i = 0; i < argTypes.size(); i++) {
            args.add(Ir.arg(i, element(argTypes.get(i))));
        }
        return DataType.fromArrow(body(args).type().arrowType());
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        int n = call.args().size();
        List<IrNode> irArgs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            irArgs.add(Ir.arg(i, element(DataType.fromField(call.argFields().get(i)))));
        }
        IrNode root = body(irArgs);
        DataType out = DataType.fromArrow(root.type().arrowType());
        boolean allScalar = call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar);
        int rows = allScalar ? 1 : call.numberRows();
        List<ColumnarValue> made = new ArrayList<>();
        FieldVector result = null;
        try {
            List<FieldVector> arrays = new ArrayList<>();
            for (ColumnarValue v : call.args()) {
                ColumnarValue.Array a = Values.toArray(v, rows, call.config().allocator());
                if (a != v) {
                    made.add(a);
                }
                arrays.add(a.vector());
            }
            result = Values.allocate(out, name(), rows, call.config().allocator());
            Number[] row = new Number[n];
            for (int r = 0; r < rows; r++) {
                boolean isNull = false;
                for (int i = 0; i < n && !isNull; i++) {
                    ScalarValue v = Values.get(arrays.get(i), r, DataType.fromField(call.argFields().get(i)));
                    isNull = v.isNull();
                    row[i] = (Number) v.value();
                }
                Values.set(result, r, isNull ? ScalarValue.nullOf(out) : new ScalarValue(out, RowInterpreter.evaluate(root, row)));
            }
            result.setValueCount(rows);
            if (allScalar) {
                try (FieldVector r = result) {
                    result = null;
                    return new ColumnarValue.Scalar(Values.get(r, 0, out));
                }
            }
            FieldVector r = result;
            result = null;
            return new ColumnarValue.Array(r);
        } finally {
            if (result != null) {
                result.close();
            }
            Resources.closeAll(made);
        }
    }

    static ElementType element(DataType t) {
        return t.elementType().orElseThrow(() -> new IllegalArgumentException("no kernel element type for " + t));
    }
}
