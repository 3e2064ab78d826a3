package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringShapeKernels;

/**
 * {@code ltrim(s[, characters])}: {@code s} without the characters of {@code characters} (a set of
 * code points; spaces when absent) at the start; NULL when an argument is NULL. Only U+0020 is a
 * space here, as in DuckDB. docs/strings.md
 */
final class Ltrim extends StringTrim {
    Ltrim() {
        super(
                "ltrim",
                StringShapeKernels.TrimSide.LEADING,
                "Removes the given characters (default: spaces) from the start.");
    }
}
