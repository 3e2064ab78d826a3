package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringShapeKernels;
import java.util.List;

/**
 * {@code octet_length(s)}: the number of bytes of the UTF-8 text as Int64, from the offsets
 * alone; NULL for NULL. docs/strings.md
 */
final class OctetLength extends StringLength {
    OctetLength() {
        super("octet_length", List.of(), "The number of bytes (UTF-8) as Int64.", StringShapeKernels::octetLength);
    }
}
