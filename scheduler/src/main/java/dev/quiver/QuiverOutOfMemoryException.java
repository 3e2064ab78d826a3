package dev.quiver;

import dev.quiver.errors.ResourceException;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.AllocationOutcomeDetails;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * An allocator could not give the memory one evaluation of an expression needed. Raised by
 * {@link CompiledExpression#evaluate} (and {@code evaluateValue}, {@code filter}, {@code select})
 * in place of Arrow's {@link OutOfMemoryException}, which stays its {@link #getCause() cause}.
 *
 * <p>The message names the expression, the bytes asked for, the allocator that refused (its
 * limit and what it held then), the batch's rows and where the batch ran, for example:
 * <pre>
 * out of memory evaluating upper(s) (needed 65536 bytes; allocator 'results' limit 40000 bytes,
 * 32768 allocated) at a batch of 4096 rows on cpu (host kernels)
 * </pre>
 *
 * <p>When it is thrown, everything the evaluation had allocated has been freed (the allocator
 * holds what it held before the call), and the {@link CompiledExpression} works as before: the
 * same batch evaluates again into an allocator with room, or a smaller batch into the same one.
 * Its kind is {@link dev.quiver.errors.ErrorKind#RESOURCE}.
 */
public final class QuiverOutOfMemoryException extends ResourceException {
    private final String expression;
    private final long neededBytes;
    private final String allocatorName;
    private final long limit;
    private final long allocated;
    private final int rows;
    private final String device;

    QuiverOutOfMemoryException(
            String expression,
            long neededBytes,
            String allocatorName,
            long limit,
            long allocated,
            int rows,
            String device,
            OutOfMemoryException cause) {
        super(message(expression, neededBytes, allocatorName, limit, allocated, rows, device), cause);
        this.expression = Objects.requireNonNull(expression, "expression is null");
        this.neededBytes = neededBytes;
        this.allocatorName = allocatorName;
        this.limit = limit;
        this.allocated = allocated;
        this.rows = rows;
        this.device = Objects.requireNonNull(device, "device is null");
        fillExpression(expression);
    }

    private static final Pattern NEEDED = Pattern.compile("buffer of size (\\d+)");
    private static final Pattern HELD = Pattern.compile("Current allocation: (\\d+)");

    /**
     * Arrow's {@code oom}, raised evaluating {@code expression} over {@code rows} rows from
     * {@code allocator} at {@code where}, as one that says what was needed and held. Arrow says
     * the size and what the allocator held only in its message; the allocator that refused (the
     * one passed, or an ancestor at its limit) is in the outcome details.
     */
    static QuiverOutOfMemoryException of(
            OutOfMemoryException oom, String expression, int rows, BufferAllocator allocator, String where) {
        String text = String.valueOf(oom.getMessage());
        Matcher n = NEEDED.matcher(text), h = HELD.matcher(text);
        long needed = n.find() ? Long.parseLong(n.group(1)) : -1;
        long held = h.find() ? Long.parseLong(h.group(1)) : -1;
        BufferAllocator refused = oom.getOutcomeDetails()
                .map(AllocationOutcomeDetails::getFailedAllocator)
                .orElse(allocator);
        return new QuiverOutOfMemoryException(
                expression, needed, refused.getName(), refused.getLimit(), held, rows, where, oom);
    }

    /** Arrow's out-of-memory exception among {@code e}'s causes, or null. */
    static OutOfMemoryException arrowCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryException oom) {
                return oom;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private static String message(
            String expression, long needed, String allocatorName, long limit, long allocated, int rows, String device) {
        StringBuilder m = new StringBuilder("out of memory evaluating ")
                .append(expression)
                .append(" (needed ");
        m.append(needed < 0 ? "an unknown number of" : Long.toString(needed))
                .append(" bytes; allocator '")
                .append(allocatorName)
                .append("' limit ")
                .append(limit)
                .append(" bytes");
        if (allocated >= 0) {
            m.append(", ").append(allocated).append(" allocated");
        }
        return m.append(") at a batch of ")
                .append(rows)
                .append(" rows on ")
                .append(device)
                .toString();
    }

    /** The expression, as its plan names it. */
    public String expression() {
        return expression;
    }

    /** The size of the allocation that failed, in bytes (rounded as Arrow rounds it); -1 when Arrow did not say. */
    public long neededBytes() {
        return neededBytes;
    }

    /** The name of the allocator that refused (the one passed in, or an ancestor of it whose limit was reached). */
    public String allocatorName() {
        return allocatorName;
    }

    /** That allocator's limit, in bytes. */
    public long limit() {
        return limit;
    }

    /** What the allocator asked held when the allocation failed, in bytes; -1 when Arrow did not say. */
    public long allocated() {
        return allocated;
    }

    /** The rows of the batch being evaluated. */
    public int rows() {
        return rows;
    }

    /** Where the batch ran when memory ran out: a device's name, and whether a fused kernel or the host kernels. */
    public String device() {
        return device;
    }
}
