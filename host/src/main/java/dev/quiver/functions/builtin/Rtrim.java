package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringShapeKernels;

/**
 * {@code rtrim(s[, characters])}: {@code s} without the characters of {@code characters} (a set of
 * code points; spaces when absent) at the end; NULL when an argument is NULL. Only U+0020 is a
 * space here, as in DuckDB. docs/strings.md
 */
final class Rtrim extends StringTrim {
    Rtrim() {
        super(
                "rtrim",
                StringShapeKernels.TrimSide.TRAILING,
                "Removes the given characters (default: spaces) from the end.");
    }
}
