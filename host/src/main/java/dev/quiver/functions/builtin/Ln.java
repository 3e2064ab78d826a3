package dev.quiver.functions.builtin;


/** {@code ln}: Natural logarithm; NaN for negative numbers, -Infinity for 0. */
final class Ln extends DoubleFunction {
    Ln() {
        super(1, "x");
    }

    @Override
    public String name() {
        return "ln";
    }

    @Override
    double apply(double a, double b) {
        return Math.log(a);
    }

    @Override
    public String description() {
        return "Natural logarithm; NaN for negative numbers, -Infinity for 0.";
    }
}
