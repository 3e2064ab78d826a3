package dev.quiver.functions.builtin;

import dev.quiver.kernels.ConcatKernels;

/**
 * {@code strict_concat(a, b, ...)}: what the {@code a || b} operator means (the SQL parser turns
 * {@code a || b || c} into {@code strict_concat(a, b, c)}): like {@link Concat}, but NULL when
 * any argument is NULL, as in DuckDB and the SQL standard.
 */
final class StrictConcat extends Concat {
    @Override
    public String name() {
        return "strict_concat";
    }

    @Override
    ConcatKernels.Nulls nulls() {
        return ConcatKernels.Nulls.STRICT;
    }

    @Override
    public String description() {
        return "The arguments as strings, joined; NULL when any is NULL (what a || b means).";
    }
}
