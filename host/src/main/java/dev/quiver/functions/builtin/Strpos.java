package dev.quiver.functions.builtin;

import dev.quiver.kernels.StringSearchKernels;
import dev.quiver.types.DataType;
import java.util.List;

/**
 * {@code strpos}: The 1-based position in characters of the needle's first occurrence, 0 when absent, 1 for an empty needle (aliases instr, position). NULL when either argument is NULL. A constant needle is
 * prepared once per batch; see {@link StringSearchKernels} for how the batch is searched.
 */
final class Strpos extends StringSearch {
    Strpos() {
        super(
                "strpos",
                List.of("instr", "position"),
                "needle",
                DataType.INT64,
                StringSearchKernels::position,
                "The 1-based position in characters of the needle's first occurrence, 0 when absent, 1 for an empty needle (aliases instr, position).");
    }
}
