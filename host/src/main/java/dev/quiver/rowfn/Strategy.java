package dev.quiver.rowfn;

/**
 * How a batch of a kernel segment (RowFn calls and arithmetic fused together) was computed.
 * The framework chooses per batch; {@link RowFnStats} counts each choice.
 */
public enum Strategy {
    /** A constant argument was null: the result is all null, nothing is computed. */
    ALL_NULL,
    /** Every argument was a constant: the body ran once, the result is a scalar. */
    CONSTANT,
    /** The only varying argument was dictionary-encoded: the body ran once per dictionary value. */
    DICTIONARY,
    /** Every row computed without branches, validity applied afterwards (infallible segments). */
    DENSE,
    /** Only the vector steps (CPU) or rows (OpenCL) holding valid rows computed; failures count in valid rows only. */
    VALID_ROWS,
    /** Few rows valid: the valid rows were gathered, computed densely, and scattered back. */
    FILTER_SCATTER,
    /**
     * Most rows valid: computed densely without reading validity; a failure found in a null row
     * made it run again as {@link #VALID_ROWS}.
     */
    DENSE_RETRY
}
