package dev.quiver.cancel;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A way to stop an evaluation from another thread. Quiver calls made inside {@link #call} or
 * {@link #run} on one thread watch this handle: once {@link #cancel()} is called, the evaluation
 * running there stops at its next kernel boundary (between the nodes of the physical tree,
 * between the ranges of a batch split between CPU threads, between the chunks of an overlapped
 * OpenCL run, and every few rows of the row-by-row kernels: strings, regular expressions,
 * per-row RowFns), within 100 ms, with a {@link dev.quiver.errors.CancelledException}
 * (kind {@code CANCELLED}) naming the expression. Everything the evaluation had allocated is
 * freed before the exception leaves, and the compiled expression stays usable.
 *
 * <pre>{@code
 * CancelHandle cancel = new CancelHandle();
 * Future<FieldVector> result = pool.submit(() -> cancel.call(() -> compiled.evaluate(batch)));
 * ...
 * cancel.cancel();   // from any thread: the evaluation ends with CancelledException
 * }</pre>
 *
 * <p>Interrupting the thread that evaluates does the same without a handle (its interrupt flag
 * stays set). A handle is cancelled once and for good: every later call inside {@link #call}
 * fails at its first boundary, so use a new handle per unit of work (a query, a request).
 * Cancelling after the work has ended does nothing. Calls may nest: work inside the calls of two
 * handles stops when either is cancelled. Thread-safe: one handle may watch calls on many threads
 * (a pipeline's workers) and be cancelled from any thread.
 */
public final class CancelHandle {
    private volatile boolean cancelled;
    /** How many {@link #call}s of this handle are running now (guarded by this). */
    private int active;

    /** A handle that is not cancelled. */
    public CancelHandle() {}

    /**
     * Cancels every evaluation running inside {@link #call} of this handle, and every later one.
     * Returns at once: it does not wait for them to stop. Idempotent.
     */
    public void cancel() {
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            if (active > 0) {
                Cancellation.pendingChanged(+1);
            }
        }
    }

    /** Whether {@link #cancel()} has been called. */
    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * Runs {@code work} on this thread with this handle watching every Quiver evaluation it makes,
     * and returns its result. A {@link dev.quiver.errors.CancelledException} thrown inside leaves
     * as it is.
     */
    public <T> T call(Supplier<T> work) {
        Objects.requireNonNull(work, "work is null");
        Cancellation.Scope scope = new Cancellation.Scope(this, Cancellation.currentScope());
        enter();
        try {
            return ScopedValue.where(Cancellation.BOUND, scope).call(work::get);
        } finally {
            exit();
        }
    }

    /** {@link #call} for work without a result. */
    public void run(Runnable work) {
        Objects.requireNonNull(work, "work is null");
        call(() -> {
            work.run();
            return null;
        });
    }

    private synchronized void enter() {
        if (active++ == 0 && cancelled) {
            Cancellation.pendingChanged(+1);
        }
    }

    private synchronized void exit() {
        if (--active == 0 && cancelled) {
            Cancellation.pendingChanged(-1);
        }
    }

    @Override
    public String toString() {
        return cancelled ? "CancelHandle(cancelled)" : "CancelHandle";
    }
}
