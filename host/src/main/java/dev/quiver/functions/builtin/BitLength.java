package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringShapeKernels;
import java.util.List;

/**
 * {@code bit_length(s)}: eight times {@code octet_length(s)}, as Int64; NULL for NULL.
 * docs/strings.md
 */
final class BitLength extends StringLength {
    BitLength() {
        super(
                "bit_length",
                List.of(),
                "The number of bits (8 per UTF-8 byte) as Int64.",
                StringShapeKernels::bitLength);
    }
}
