package dev.quiver.functions.builtin;

import dev.quiver.expr.Operator;

/** {@code try_divide(x, y)}: {@code x / y} (truncating for integers, as {@code /}), or NULL where {@code y} is zero or the quotient overflows ({@code MIN / -1}). */
final class TryDivide extends TryArithmetic {
    @Override
    public String name() {
        return "try_divide";
    }

    @Override
    Operator operator() {
        return Operator.DIVIDE;
    }

    @Override
    public String description() {
        return "x / y; NULL where / would raise an error (division by zero, MIN / -1, decimal overflow).";
    }
}
