package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringSearchKernels;
import dev.quiver.types.DataType;
import java.util.List;

/**
 * {@code contains}: Whether the string contains the needle (an empty needle is in every string). NULL when either argument is NULL. A constant needle is
 * prepared once per batch; see {@link StringSearchKernels} for how the batch is searched.
 */
final class Contains extends StringSearch {
    Contains() {
        super(
                "contains",
                List.of(),
                "needle",
                DataType.BOOLEAN,
                StringSearchKernels::contains,
                "Whether the string contains the needle (an empty needle is in every string).");
    }
}
