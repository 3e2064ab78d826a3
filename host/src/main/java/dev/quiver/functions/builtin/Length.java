package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringShapeKernels;
import java.util.List;

/**
 * {@code length(s)} (also {@code char_length}, {@code character_length}): the number of characters
 * (Unicode code points, not bytes or grapheme clusters) as Int64; NULL for NULL. An all-ASCII
 * batch is measured from its offsets alone. docs/strings.md
 */
final class Length extends StringLength {
    Length() {
        super(
                "length",
                List.of("char_length", "character_length"),
                "The number of characters (Unicode code points) as Int64 (alias char_length, character_length).",
                StringShapeKernels::charLength);
    }
}
