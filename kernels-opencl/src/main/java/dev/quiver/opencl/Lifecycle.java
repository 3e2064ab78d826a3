package dev.quiver.opencl;

import dev.quiver.memory.Resources;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether one backend is open, and which runs are in progress on it: the close state machine of
 * {@link OpenClBackend}. A run registers ({@link #enter()}) and ends ({@link #exit()}); close
 * refuses new runs, waits for those in flight, then releases the backend's native objects, once;
 * a later or concurrent close waits until they are released. Owns the state, not the objects:
 * {@link #close} is given what to release.
 *
 * <p>A plain run costs one atomic add as it starts and one as it ends: the state is one word,
 * so that a run registers and learns whether the backend is closed in a single atomic add, and
 * close sees every run that did not see it.
 */
final class Lifecycle {
    /** Bit 0: close has begun. */
    private static final int CLOSED = 1;
    /** What each run in progress adds to {@link #state}. */
    private static final int RUN = 2;
    /** How long close spins for runs to end before it parks, and the longest it parks at a time. */
    private static final long SPIN_NANOS = 20_000;

    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Object DONE = new Object();

    private final String name;
    /**
     * Bit 0 ({@link #CLOSED}): close has begun; the other bits: twice the runs in progress. (Not a
     * LongAdder: its sum is no snapshot, so a run still in progress could be missed while others
     * come and go.)
     */
    private final AtomicInteger state = new AtomicInteger();
    /**
     * Null while open; then the thread that closes (the first to set it), woken by the last run to
     * end; then {@link #DONE} once released.
     */
    private final AtomicReference<Object> closer = new AtomicReference<>();
    /** Open until close has released everything; a second close waits on it. */
    private final CountDownLatch released = new CountDownLatch(1);

    /** The state of the backend named {@code name} (for the message of a refused run). */
    Lifecycle(String name) {
        this.name = name;
    }

    /**
     * Registers a run, or throws {@link IllegalStateException} when close has begun: then the run
     * must touch none of the backend's OpenCL objects. A run that gets past here is waited for
     * by close until its {@link #exit()}.
     */
    void enter() {
        if ((state.getAndAdd(RUN) & CLOSED) != 0) {
            exit();
            throw new IllegalStateException("backend " + name + " is closed");
        }
    }

    /** Ends a run registered by {@link #enter()}; the last one to end after close has begun wakes the closer. */
    void exit() {
        if (state.addAndGet(-RUN) == CLOSED) {
            if (closer.get() instanceof Thread t) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Whether close has begun (runs now throw). */
    boolean closing() {
        return (state.get() & CLOSED) != 0;
    }

    /**
     * Refuses new runs and waits for runs in progress; then runs {@code drain} (what else must end
     * before anything is released) and releases {@code natives} in order, each attempted even when
     * one before it failed. Idempotent: a later or concurrent call waits until the first has
     * released everything, then returns. Not interruptible (an interrupt is kept for the caller).
     * Must not be called from within a run (it would wait for itself).
     */
    void close(Runnable drain, List<AutoCloseable> natives) {
        if (!closer.compareAndSet(null, Thread.currentThread())) {
            awaitReleased();
            return;
        }
        // Set after the closer, so the last run to end finds whom to wake; only this thread sets it.
        state.getAndAdd(CLOSED);
        try {
            awaitRunsEnded();
            drain.run();
            Resources.closeAll(natives);
        } finally {
            closer.set(DONE);
            released.countDown();
        }
    }

    /** Spins briefly, then parks (woken by the last run, or after at most a millisecond) until no run is in progress. */
    private void awaitRunsEnded() {
        boolean interrupted = false;
        long start = System.nanoTime();
        long park = 1_000;
        while (state.get() != CLOSED) {
            if (System.nanoTime() - start < SPIN_NANOS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, park);
                park = Math.min(MAX_PARK_NANOS, park * 2);
                interrupted |= Thread.interrupted(); // else park returns at once, forever
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitReleased() {
        boolean interrupted = false;
        while (true) {
            try {
                released.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
