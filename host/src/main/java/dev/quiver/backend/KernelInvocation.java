package dev.quiver.backend;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The memory of one kernel run: views of Arrow buffers (see {@link dev.quiver.memory.VectorView}).
 *
 * @param args     one data segment per program argument, {@code rows * width} bytes each; for a
 *                 Boolean argument, its bitmap ({@code ceil(rows / 8)} bytes, row 0 in bit 0)
 * @param validity the output's validity bitmap, already computed (the AND of the inputs' for a
 *                 strict program, all set for a non-strict one); the backend clears the bits of
 *                 computed rows where the program's {@code nullWhen} holds
 * @param out      the output's data segment, {@code rows * width} bytes, or a bitmap for a
 *                 Boolean result
 * @param rows     number of rows
 * @param mode     which rows to compute and where failures count
 * @param resident per argument, the key under which a backend that copies to its device may
 *                 keep it there beyond this run ({@link ResidentKey}), or null: empty when no
 *                 argument has one, else as long as {@code args}
 * @param threads  how many threads the run may be split between at the most, as placement chose
 *                 ({@link KernelBackend#maxThreadsFor}); 0: the backend's own choice
 *                 ({@link KernelBackend#threadsFor})
 */
public record KernelInvocation(
        List<MemorySegment> args,
        MemorySegment validity,
        MemorySegment out,
        int rows,
        RowMode mode,
        List<ResidentKey> resident,
        int threads) {
    public KernelInvocation {
        args = List.copyOf(args);
        Objects.requireNonNull(resident, "resident is null");
        if (!resident.isEmpty() && resident.size() != args.size()) {
            throw new IllegalArgumentException(
                    "resident has " + resident.size() + " keys for " + args.size() + " arguments");
        }
        resident = Collections.unmodifiableList(new ArrayList<>(resident));
        Objects.requireNonNull(validity, "validity is null");
        Objects.requireNonNull(out, "out is null");
        Objects.requireNonNull(mode, "mode is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, got " + rows);
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0, got " + threads);
        }
    }

    /** An invocation the backend splits between threads as it sees fit. */
    public KernelInvocation(
            List<MemorySegment> args,
            MemorySegment validity,
            MemorySegment out,
            int rows,
            RowMode mode,
            List<ResidentKey> resident) {
        this(args, validity, out, rows, mode, resident, 0);
    }

    /** This invocation, split between at most {@code threads} threads (0: as the backend sees fit). */
    public KernelInvocation withThreads(int threads) {
        return threads == this.threads
                ? this
                : new KernelInvocation(args, validity, out, rows, mode, resident, threads);
    }

    /** An invocation without resident keys. */
    public KernelInvocation(
            List<MemorySegment> args, MemorySegment validity, MemorySegment out, int rows, RowMode mode) {
        this(args, validity, out, rows, mode, List.of());
    }

    /** The resident key of argument {@code i}, or null. */
    public ResidentKey residentKey(int i) {
        return resident.isEmpty() ? null : resident.get(i);
    }

    /** An invocation that computes only valid rows (the behaviour before modes existed). */
    public KernelInvocation(List<MemorySegment> args, MemorySegment validity, MemorySegment out, int rows) {
        this(args, validity, out, rows, RowMode.VALID_ROWS);
    }
}
