package dev.quiver.cancel;

import dev.quiver.errors.CancelledException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The kernel boundaries' side of cancellation: {@link #check()} throws a
 * {@link CancelledException} when the evaluation running on this thread should stop, because a
 * {@link CancelHandle} watching it was cancelled or because the thread was interrupted. Quiver
 * calls it between the nodes of the physical tree and every few rows of its row-by-row kernels;
 * a function or RowFn author whose code loops for long over a batch may call it too (every few
 * rows: it costs about a nanosecond, see docs/evaluation.md#cancellation).
 *
 * <p>An interrupt is read, never cleared: the thread's interrupt flag is still set when the
 * exception leaves, so the code around the evaluation sees it too.
 *
 * <p>Work that runs on helper threads for the evaluating thread (the CPU backend's ranges)
 * {@link #capture() captures} a {@link Token} on the evaluating thread and checks that: it
 * watches the evaluating thread's handles and interrupt flag, whichever thread checks it.
 */
public final class Cancellation {
    /** The handles watching this thread's work, innermost first. */
    static final ScopedValue<Scope> BOUND = ScopedValue.newInstance();
    /**
     * How many cancelled handles are watching some running call in this JVM: while 0 (nearly
     * always), a check reads this and the interrupt flag and nothing else.
     */
    private static final AtomicInteger PENDING = new AtomicInteger();

    private Cancellation() {}

    /** One {@link CancelHandle#call}: its handle and the scope it runs in. */
    record Scope(CancelHandle handle, Scope parent) {
        boolean cancelled() {
            for (Scope s = this; s != null; s = s.parent) {
                if (s.handle.isCancelled()) {
                    return true;
                }
            }
            return false;
        }
    }

    static void pendingChanged(int delta) {
        PENDING.addAndGet(delta);
    }

    static Scope currentScope() {
        return BOUND.isBound() ? BOUND.get() : null;
    }

    /**
     * Throws when the work on this thread should stop: a handle watching it is cancelled, or the
     * thread is interrupted (the flag stays set). Does nothing otherwise.
     *
     * @throws CancelledException detail {@code cancelled by its CancelHandle} or
     *                            {@code interrupted}; Quiver's entry points replace it with one
     *                            naming the expression
     */
    public static void check() {
        if (Thread.currentThread().isInterrupted() | PENDING.get() != 0) {
            slowCheck(Thread.currentThread(), currentScope());
        }
    }

    /** Whether {@link #check()} would throw now. */
    public static boolean isRequested() {
        return Thread.currentThread().isInterrupted() || PENDING.get() != 0 && cancelled(currentScope());
    }

    /**
     * {@code task}, to be run on another thread on this one's behalf (Quiver's large-stack threads
     * run deep plans so): there it sees the handles watching this thread. An interrupt of this
     * thread is not seen there; whoever waits for the task passes it on.
     */
    public static <T> Supplier<T> carried(Supplier<T> task) {
        Scope scope = currentScope();
        if (scope == null) {
            return task;
        }
        return () -> ScopedValue.where(BOUND, scope).call(task::get);
    }

    /** A token that watches this thread's handles and interrupt flag, for work done on its behalf by other threads. */
    public static Token capture() {
        return new Token(Thread.currentThread(), currentScope());
    }

    private static boolean cancelled(Scope scope) {
        return scope != null && scope.cancelled();
    }

    private static void slowCheck(Thread owner, Scope scope) {
        if (cancelled(scope)) {
            throw new CancelledException(CANCELLED);
        }
        if (owner.isInterrupted()) {
            throw new CancelledException(INTERRUPTED);
        }
    }

    /** The detail of a cancellation through a handle. */
    public static final String CANCELLED = "cancelled by its CancelHandle";
    /** The detail of a cancellation by an interrupt. */
    public static final String INTERRUPTED = "interrupted";

    /**
     * The cancellation state of one evaluating thread (its interrupt flag and the handles that
     * watched it when captured), checkable from any thread.
     */
    public static final class Token {
        private final Thread owner;
        private final Scope scope;

        private Token(Thread owner, Scope scope) {
            this.owner = owner;
            this.scope = scope;
        }

        /** {@link Cancellation#check()} for the thread that captured this token, from whichever thread calls it. */
        public void check() {
            if (owner.isInterrupted() | PENDING.get() != 0) {
                slowCheck(owner, scope);
            }
        }

        /** Whether {@link #check()} would throw now. */
        public boolean isRequested() {
            return owner.isInterrupted() || PENDING.get() != 0 && cancelled(scope);
        }
    }
}
