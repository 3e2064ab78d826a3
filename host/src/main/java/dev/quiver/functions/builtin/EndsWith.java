package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringSearchKernels;
import dev.quiver.types.DataType;
import java.util.List;

/**
 * {@code ends_with}: Whether the string ends with the suffix (every string ends with the empty one). NULL when either argument is NULL. A constant needle is
 * prepared once per batch; see {@link StringSearchKernels} for how the batch is searched.
 */
final class EndsWith extends StringSearch {
    EndsWith() {
        super(
                "ends_with",
                List.of("suffix"),
                "suffix",
                DataType.BOOLEAN,
                StringSearchKernels::endsWith,
                "Whether the string ends with the suffix (every string ends with the empty one).");
    }
}
