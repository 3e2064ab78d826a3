package dev.quiver.errors;

import java.util.Objects;

/**
 * The root of everything Quiver throws on purpose. Every such exception has a stable
 * {@link #kind()} and carries where it happened as data rather than only as text: the
 * expression, and where known the column, the batch, the row and the device. A program catches
 * {@code QuiverException} (or one of its subclasses) and reads those; it never needs to parse a
 * message. An exception that is not a {@code QuiverException} (a {@code NullPointerException}
 * from an argument check, say) is a misuse of the API or a bug in Quiver.
 *
 * <p>The subclasses, one per kind family:
 * <ul>
 *   <li>{@link dev.quiver.functions.PlanningException}: {@link ErrorKind#PLANNING}, raised only by
 *       planning ({@code Quiver.compile}, the SQL parser), never by a batch;</li>
 *   <li>{@link InputException}: {@link ErrorKind#INPUT}, a batch that does not fit the plan or is
 *       malformed ({@code dev.quiver.strings.InvalidUtf8Exception} is one);</li>
 *   <li>{@link EvaluationException}: {@link ErrorKind#EVALUATION}, or {@link ErrorKind#ARITHMETIC}
 *       for {@code dev.quiver.errors.KernelArithmeticException};</li>
 *   <li>{@link ResourceException}: {@link ErrorKind#RESOURCE} ({@code QuiverOutOfMemoryException});</li>
 *   <li>{@link DeviceException}: {@link ErrorKind#DEVICE} ({@code OpenClException});</li>
 *   <li>{@link CancelledException}: {@link ErrorKind#CANCELLED}.</li>
 * </ul>
 *
 * <p>{@link #getMessage()} is {@link #detail()} followed by the batch and the device where they
 * are known: {@code division by zero in (a / b) at row 13 in batch 2 (on cpu)}. The detail is
 * the same on every device, so two placements of one expression can be compared by
 * {@code kind()}, {@code detail()} and {@code row()}.
 *
 * <p>The location fields are filled in as the exception travels up through Quiver's entry
 * points (each is set at most once, by the innermost place that knows it); after it has left
 * Quiver it does not change.
 */
public abstract class QuiverException extends RuntimeException {
    private final ErrorKind kind;
    private volatile String detail;
    private volatile String expression;
    private volatile String column;
    private volatile long batch = -1;
    private volatile long row = -1;
    private volatile String device;

    protected QuiverException(ErrorKind kind, String detail, Throwable cause) {
        super(detail);
        if (cause != null) {
            initCause(cause); // left unset otherwise, so a kernel can still name the cause later
        }
        this.kind = Objects.requireNonNull(kind, "kind is null");
        this.detail = detail;
    }

    /** The kind of failure. */
    public final ErrorKind kind() {
        return kind;
    }

    /** The message without the batch and the device: the same text on every device. */
    public final String detail() {
        return detail;
    }

    /** The expression being planned or evaluated, as its plan writes it; null when not known. */
    public String expression() {
        return expression;
    }

    /** The column (or argument) whose value or buffers failed; null when not known. */
    public String column() {
        return column;
    }

    /** The batch, counted from 0 by whoever fed the batches (the CLI, a pipeline); -1 when not known. */
    public long batch() {
        return batch;
    }

    /** The first failing row of the batch; -1 when not known. */
    public long row() {
        return row;
    }

    /** The device it happened on ({@code cpu}, an OpenCL device's name); null when not known. */
    public String device() {
        return device;
    }

    /** Sets the expression if it is not set yet; returns this. */
    public final QuiverException fillExpression(String expression) {
        if (this.expression == null && expression != null) {
            this.expression = expression;
        }
        return this;
    }

    /** Sets the column if it is not set yet; returns this. */
    public final QuiverException fillColumn(String column) {
        if (this.column == null && column != null) {
            this.column = column;
        }
        return this;
    }

    /** Sets the batch if it is not set yet (and {@code batch >= 0}); returns this. */
    public final QuiverException fillBatch(long batch) {
        if (this.batch < 0 && batch >= 0) {
            this.batch = batch;
        }
        return this;
    }

    /** Sets the row if it is not set yet (and {@code row >= 0}); returns this. */
    public final QuiverException fillRow(long row) {
        if (this.row < 0 && row >= 0) {
            this.row = row;
        }
        return this;
    }

    /**
     * Names the failure at row {@code enclosingRow} of the batch that encloses the one it was raised
     * in (a selection of it, whose row {@link #row()} is the enclosing batch's {@code enclosingRow}):
     * the row and the "row N" of the detail follow. Returns this; does nothing when no row is known.
     */
    public final QuiverException mapRow(long enclosingRow) {
        long r = row;
        if (r < 0 || enclosingRow < 0 || r == enclosingRow) {
            return this;
        }
        detail = detail == null ? null : detail.replaceAll("\\brow " + r + "\\b", "row " + enclosingRow);
        row = enclosingRow;
        return this;
    }

    /** Sets the device if it is not set yet; returns this. */
    public final QuiverException fillDevice(String device) {
        if (this.device == null && device != null) {
            this.device = device;
        }
        return this;
    }

    @Override
    public String getMessage() {
        long b = batch;
        String d = device;
        if (b < 0 && d == null) {
            return detail;
        }
        StringBuilder m = new StringBuilder(String.valueOf(detail));
        if (b >= 0) {
            m.append(" in batch ").append(b);
        }
        if (d != null) {
            m.append(" (on ").append(d).append(')');
        }
        return m.toString();
    }
}
