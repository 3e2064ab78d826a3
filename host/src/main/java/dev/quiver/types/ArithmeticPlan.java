package dev.quiver.types;

import java.util.Objects;

/**
 * How to compute one arithmetic operator on two operand types: cast the left operand to
 * {@code leftCast}, the right one to {@code rightCast}, and the result has type {@code result}.
 * Made by {@code dev.quiver.expr.ArithmeticCoercion.arithmetic}.
 *
 * <p>The casts are never dictionaries: a dictionary-encoded operand computes as its value
 * type, so a cast equal to the operand's {@link DataType#valueType()} needs no cast.
 *
 * <p>Example: {@code Decimal128(10, 2) + Int32} is planned as
 * {@code ArithmeticPlan(Decimal128(10, 2), Decimal128(10, 0), Decimal128(13, 2))}.
 */
public record ArithmeticPlan(DataType leftCast, DataType rightCast, DataType result) {
    public ArithmeticPlan {
        Objects.requireNonNull(leftCast, "leftCast is null");
        Objects.requireNonNull(rightCast, "rightCast is null");
        Objects.requireNonNull(result, "result is null");
    }
}
