package dev.quiver.functions.builtin;

import dev.quiver.expr.Operator;

/** {@code try_add(x, y)}: {@code x + y}, or NULL where the sum does not fit its type (where {@code +} raises an error). */
final class TryAdd extends TryArithmetic {
    @Override
    public String name() {
        return "try_add";
    }

    @Override
    Operator operator() {
        return Operator.PLUS;
    }

    @Override
    public String description() {
        return "x + y; NULL where + would raise an error (integer or decimal overflow, a date out of range).";
    }
}
