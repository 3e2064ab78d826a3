package dev.quiver.functions.builtin;

import dev.quiver.expr.Operator;

/** {@code try_mod(x, y)}: {@code x % y} (with the sign of {@code x}, as {@code %}), or NULL where {@code y} is zero. */
final class TryMod extends TryArithmetic {
    @Override
    public String name() {
        return "try_mod";
    }

    @Override
    Operator operator() {
        return Operator.MODULO;
    }

    @Override
    public String description() {
        return "x % y; NULL where % would raise an error (modulo by zero).";
    }
}
