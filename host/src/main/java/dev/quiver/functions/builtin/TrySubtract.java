package dev.quiver.functions.builtin;

import dev.quiver.expr.Operator;

/** {@code try_subtract(x, y)}: {@code x - y}, or NULL where the difference does not fit its type (where {@code -} raises an error). */
final class TrySubtract extends TryArithmetic {
    @Override
    public String name() {
        return "try_subtract";
    }

    @Override
    Operator operator() {
        return Operator.MINUS;
    }

    @Override
    public String description() {
        return "x - y; NULL where - would raise an error (integer or decimal overflow, a date out of range).";
    }
}
