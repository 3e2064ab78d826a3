package dev.quiver.functions;

import dev.quiver.memory.Resources;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.arrow.vector.FieldVector;

/**
 * Adapts a function written as arrays in, array out to the per-batch contract of
 * {@link ScalarFunction#invoke}:
 * <ul>
 *   <li>when every argument is a scalar, each becomes a one-row array, the function runs
 *   once, and its one-row result becomes a scalar again;</li>
 *   <li>otherwise each scalar argument is expanded according to its {@link Hint}:
 *   {@link Hint#PAD} (the default) broadcasts it to the batch's length,
 *   {@link Hint#ACCEPTS_SINGULAR} passes it as a one-row array (for arguments such as a
 *   pattern or a format that the function reads once).</li>
 * </ul>
 *
 * <pre>{@code
 * ScalarFunction upper = ArrayFunctions.adapt("upper", Signature.string(1, Volatility.IMMUTABLE),
 *         types -> types.get(0), (arrays, call) -> upperCase((VarCharVector) arrays.get(0), call.config().allocator()));
 * }</pre>
 */
public final class ArrayFunctions {
    private ArrayFunctions() {}

    /** How a scalar argument reaches an array function. */
    public enum Hint {
        /** Broadcast to the batch's row count. */
        PAD,
        /** Passed as a one-row array. */
        ACCEPTS_SINGULAR
    }

    /**
     * The function body: arrays in (borrowed, not to be closed), a new array out, owned by the
     * caller, with as many rows as the longest argument (one row when all arguments have one).
     */
    @FunctionalInterface
    public interface ArrayFunction {
        FieldVector apply(List<FieldVector> arrays, ScalarFunctionArgs call);
    }

    /**
     * Runs {@code body} for one batch as described above. {@code hints} are per argument; a
     * missing hint is {@link Hint#PAD}.
     */
    public static ColumnarValue invoke(ScalarFunctionArgs call, ArrayFunction body, Hint... hints) {
        boolean allScalar =
                !call.args().isEmpty() && call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar);
        List<ColumnarValue> made = new ArrayList<>();
        try {
            List<FieldVector> arrays = new ArrayList<>(call.args().size());
            for (int i = 0; i < call.args().size(); i++) {
                ColumnarValue v = call.arg(i);
                Hint hint = i < hints.length ? hints[i] : Hint.PAD;
                int rows = allScalar || hint == Hint.ACCEPTS_SINGULAR ? 1 : call.numberRows();
                ColumnarValue.Array a = Values.toArray(v, rows, call.config().allocator());
                if (a != v) {
                    made.add(a);
                }
                arrays.add(a.vector());
            }
            FieldVector out = Objects.requireNonNull(body.apply(arrays, call), "the array function returned null");
            // The body may hand back one of its inputs unchanged: it then keeps that input's ownership.
            int same = -1;
            for (int i = 0; i < arrays.size() && same < 0; i++) {
                if (arrays.get(i) == out) {
                    same = i;
                }
            }
            if (allScalar) {
                if (out.getValueCount() != 1) {
                    if (same < 0) {
                        out.close();
                    }
                    throw new IllegalStateException(
                            "an array function given one-row arrays returned " + out.getValueCount() + " rows");
                }
                if (same < 0 && Values.bufferBytes(out) > call.config().maxFoldedValueBytes()) {
                    // Too large to hold as one Java value: the caller copies it to each row in Arrow memory.
                    return new ColumnarValue.Array(out);
                }
                try {
                    return new ColumnarValue.Scalar(Values.get(out, 0, DataType.fromField(call.returnField())));
                } finally {
                    if (same < 0) {
                        out.close();
                    }
                }
            }
            if (same >= 0) {
                ColumnarValue input = call.arg(same);
                if (input instanceof ColumnarValue.Array a) {
                    // The argument itself, owned as it was: the caller hands an owned one over to the result
                    // (ScalarFunctionExpr stops closing it), and a batch column stays borrowed.
                    return a;
                }
                // A scalar broadcast here: it leaves the list of vectors to free and becomes the result.
                made.removeIf(m -> m instanceof ColumnarValue.Array a && a.vector() == out);
                return new ColumnarValue.Array(out);
            }
            return new ColumnarValue.Array(out);
        } finally {
            Resources.closeAll(made);
        }
    }

    /** A whole {@link ScalarFunction} from a name, a signature, a return-type rule and an array body. */
    public static ScalarFunction adapt(
            String name,
            Signature signature,
            Function<List<DataType>, DataType> returnType,
            ArrayFunction body,
            Hint... hints) {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(signature, "signature is null");
        Objects.requireNonNull(returnType, "returnType is null");
        Objects.requireNonNull(body, "body is null");
        Hint[] h = hints.clone();
        return new ScalarFunction() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Signature signature() {
                return signature;
            }

            @Override
            public DataType returnType(List<DataType> argTypes) {
                return returnType.apply(argTypes);
            }

            @Override
            public ColumnarValue invoke(ScalarFunctionArgs args) {
                return ArrayFunctions.invoke(args, body, h);
            }

            @Override
            public String toString() {
                return name + Arrays.toString(h);
            }
        };
    }
}
