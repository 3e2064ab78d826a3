package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringShapeKernels;

/**
 * {@code trim(s[, characters])}: {@code s} without the characters of {@code characters} (a set of
 * code points; spaces when absent) at both ends; NULL when an argument is NULL. Only U+0020 is a
 * space here, as in DuckDB. docs/strings.md
 */
final class Trim extends StringTrim {
    Trim() {
        super(
                "trim",
                StringShapeKernels.TrimSide.BOTH,
                "Removes the given characters (default: spaces) from both ends.");
    }
}
