package dev.quiver.kernels;

/**
 * What integer and decimal arithmetic does when a row's result cannot be represented (overflow)
 * or divides by zero. Floats always follow IEEE 754 (overflow gives ±Infinity, {@code x / 0.0}
 * gives ±Infinity or NaN) in every mode.
 */
public enum ArithmeticMode {
    /** Overflow and division or modulo by zero throw, naming the operation, the types and the row (SQL's rule, the default). */
    CHECKED,
    /**
     * Integers wrap at their width (two's complement; {@code MIN / -1} is {@code MIN}); division
     * or modulo by zero still throws. Decimals behave as in {@link #CHECKED}.
     */
    WRAPPING,
    /** Every row that would throw in {@link #CHECKED} is NULL instead (the {@code try_} functions). */
    NULL_ON_ERROR
}
