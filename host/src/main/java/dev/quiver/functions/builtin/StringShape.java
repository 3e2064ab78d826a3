package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.Coercion;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.TypeSignatureClass;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * What the character-shaping string functions (length, upper, trim, substring, lpad, repeat,
 * ...) share: their argument coercions, and how a call reaches its kernel in
 * {@link dev.quiver.kernels.StringShapeKernels}. Every argument is passed as it is: a column,
 * or a scalar as a one-row vector the kernel reads once ({@link ArrayFunctions.Hint#ACCEPTS_SINGULAR});
 * a call of scalars only runs once and gives a scalar.
 */
final class StringShape {
    /** A Utf8 or LargeUtf8 argument, kept as it is (a NULL literal becomes Utf8). */
    static final Coercion TEXT = Coercion.exact(TypeSignatureClass.Family.STRING);
    /** An integer argument, cast to Int64. */
    static final Coercion INTEGER = Coercion.implicit(
            TypeSignatureClass.of(DataType.INT64), List.of(TypeSignatureClass.Family.INTEGER), DataType.INT64);

    private static final ArrayFunctions.Hint[] SINGULAR = new ArrayFunctions.Hint[3];

    static {
        Arrays.fill(SINGULAR, ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    private StringShape() {}

    /** An immutable signature with one form per list of coercions. */
    @SafeVarargs
    static Signature signature(List<Coercion>... forms) {
        if (forms.length == 1) {
            return Signature.coercible(forms[0], Volatility.IMMUTABLE);
        }
        return Signature.oneOf(
                Arrays.stream(forms)
                        .<TypeSignature>map(TypeSignature.Coercible::new)
                        .toList(),
                Volatility.IMMUTABLE);
    }

    /** The result type of a function whose result is a string of its first argument's type. */
    static DataType sameString(List<DataType> argTypes) {
        return argTypes.getFirst().valueType();
    }

    /** A kernel over the call's arguments (borrowed) for a batch of {@code rows} rows. */
    @FunctionalInterface
    interface Kernel {
        FieldVector apply(List<FieldVector> args, int rows, BufferAllocator allocator);
    }

    /** Runs {@code kernel} for one batch. */
    static ColumnarValue invoke(ScalarFunctionArgs call, Kernel kernel) {
        boolean allScalar = call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar);
        int rows = allScalar ? 1 : call.numberRows();
        return ArrayFunctions.invoke(
                call, (arrays, c) -> kernel.apply(arrays, rows, c.config().allocator()), SINGULAR);
    }
}
