package dev.quiver.errors;

/**
 * What kind of failure a {@link QuiverException} is. The names are stable: a program may switch
 * on them, log them or map them to exit codes (the CLI exits 2 for {@link #isCallerError()
 * caller errors} and 1 for the others).
 */
public enum ErrorKind {
    /** The expression cannot be planned: a syntax error, an unknown column or function, types, a limit. */
    PLANNING(true),
    /** A batch does not fit the plan or is malformed: a missing column, a wrong type, bad buffers, invalid UTF-8. */
    INPUT(true),
    /** A row's arithmetic is undefined: a division by zero, an overflow of checked arithmetic, a RowFn check. */
    ARITHMETIC(false),
    /** A row's value cannot be computed otherwise: a failed CAST, an invalid pattern in a column, a function's error. */
    EVALUATION(false),
    /** Memory or a size limit ran out: an allocator at its limit, a result larger than Arrow can hold. */
    RESOURCE(false),
    /** A device failed, or the placement asked for a device that cannot run the expression. */
    DEVICE(false),
    /** The evaluation was cancelled (a cancel handle or an interrupt) before it ended. */
    CANCELLED(false);

    private final boolean callerError;

    ErrorKind(boolean callerError) {
        this.callerError = callerError;
    }

    /**
     * Whether the failure is in what the caller gave (the expression, the schema, the batch),
     * so that running again unchanged fails again; the others happen while running.
     */
    public boolean isCallerError() {
        return callerError;
    }
}
