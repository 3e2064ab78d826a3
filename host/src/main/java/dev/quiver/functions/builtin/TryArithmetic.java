package dev.quiver.functions.builtin;

import dev.quiver.expr.ArithmeticCoercion;
import dev.quiver.expr.Operator;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.ArithmeticPlan;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;

/**
 * The {@code try_} forms of the arithmetic operators (Spark's names): {@code try_add(x, y)}
 * is {@code x + y}, typed exactly as the operator is ({@link ArithmeticCoercion#arithmetic}), except
 * that a row whose result does not fit its integer or decimal type, leaves Date32's range, or
 * divides by zero is NULL instead of an error ({@link ArithmeticMode#NULL_ON_ERROR}). Floats
 * follow IEEE 754 as the operators do. Never fused into the numeric kernels, which wrap.
 */
abstract sealed class TryArithmetic implements ScalarFunction
        permits TryAdd, TrySubtract, TryMultiply, TryDivide, TryMod {
    private static final Signature SIGNATURE =
            Signature.userDefined(Volatility.IMMUTABLE).withParameterNames("x", "y");

    /** The operator this function is the try_ form of. */
    abstract Operator operator();

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    private ArithmeticPlan plan(List<DataType> argTypes) {
        if (argTypes.size() != 2) {
            throw new PlanningException(name() + " takes 2 arguments (x, y), got " + argTypes.size() + ": " + name()
                    + argTypes.toString().replace('[', '(').replace(']', ')'));
        }
        DataType l = argTypes.get(0);
        DataType r = argTypes.get(1);
        return ArithmeticCoercion.arithmetic(operator(), l, r)
                .orElseThrow(() -> new PlanningException(name() + " cannot apply "
                        + operator().sql() + " to " + l + " and " + r + ": " + name() + "(" + l + ", " + r + ")"));
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        ArithmeticPlan p = plan(argTypes);
        return List.of(p.leftCast(), p.rightCast());
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return plan(argTypes).result();
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        DataType result = DataType.fromField(call.returnField());
        return Kernels.arithmetic(
                operator(),
                call.arg(0),
                call.arg(1),
                result,
                ArithmeticMode.NULL_ON_ERROR,
                call.numberRows(),
                call.config().allocator());
    }
}
