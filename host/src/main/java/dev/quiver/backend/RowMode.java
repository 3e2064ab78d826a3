package dev.quiver.backend;

/** Which rows of an invocation a backend computes, and where a failing row counts. */
public enum RowMode {
    /**
     * Every row is computed, without reading the validity bitmap for it; a row that fails is
     * reported whether or not it is null (the caller decides what a failure in a null row means).
     * The fastest loop; what infallible programs always use.
     */
    ALL_ROWS,
    /**
     * Only rows valid in the validity bitmap need computing (the CPU skips vector steps with no
     * valid row and writes zeros there; OpenCL work items of null rows write zero and stop), and
     * only valid rows can fail.
     */
    VALID_ROWS
}
