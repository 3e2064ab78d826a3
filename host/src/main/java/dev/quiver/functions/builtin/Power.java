package dev.quiver.functions.builtin;

import java.util.List;

/** {@code power}: x raised to the power y (alias pow), as Math.pow. */
final class Power extends DoubleFunction {
    Power() {
        super(2, "x", "y");
    }

    @Override
    public String name() {
        return "power";
    }

    @Override
    public List<String> aliases() {
        return List.of("pow");
    }

    @Override
    double apply(double a, double b) {
        return Math.pow(a, b);
    }

    @Override
    public String description() {
        return "x raised to the power y (alias pow), as Math.pow.";
    }
}
