package dev.quiver.functions.builtin;


/** {@code exp}: e raised to x. */
final class Exp extends DoubleFunction {
    Exp() {
        super(1, "x");
    }

    @Override
    public String name() {
        return "exp";
    }

    @Override
    double apply(double a, double b) {
        return Math.exp(a);
    }

    @Override
    public String description() {
        return "e raised to x.";
    }
}
