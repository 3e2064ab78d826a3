package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringSearchKernels;
import dev.quiver.types.DataType;
import java.util.List;

/**
 * {@code starts_with}: Whether the string starts with the prefix (every string starts with the empty one). NULL when either argument is NULL. A constant needle is
 * prepared once per batch; see {@link StringSearchKernels} for how the batch is searched.
 */
final class StartsWith extends StringSearch {
    StartsWith() {
        super(
                "starts_with",
                List.of(),
                "prefix",
                DataType.BOOLEAN,
                StringSearchKernels::startsWith,
                "Whether the string starts with the prefix (every string starts with the empty one).");
    }
}
