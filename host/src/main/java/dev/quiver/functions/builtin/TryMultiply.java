package dev.quiver.functions.builtin;

import dev.quiver.expr.Operator;

/** {@code try_multiply(x, y)}: {@code x * y}, or NULL where the product does not fit its type (where {@code *} raises an error). */
final class TryMultiply extends TryArithmetic {
    @Override
    public String name() {
        return "try_multiply";
    }

    @Override
    Operator operator() {
        return Operator.MULTIPLY;
    }

    @Override
    public String description() {
        return "x * y; NULL where * would raise an error (integer or decimal overflow).";
    }
}
