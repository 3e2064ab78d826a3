package dev.quiver.expr;

import dev.quiver.cancel.Cancellation;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Threads with a large stack for the walks over expression trees that recurse: parsing SQL text
 * ({@code SqlParser}) and planning ({@code ExpressionPlanner}). How deep a tree those take then
 * depends on their limits, not on the stack of the thread that asks (a thread pool's worker may have
 * 256 KiB). Idle threads end after 30 seconds; they are daemons and never keep a JVM alive.
 *
 * <p>A task sees the caller's arguments and the cancel handles watching it
 * ({@link dev.quiver.cancel.Cancellation#carried}), not its thread: nothing Quiver parses, plans or
 * evaluates reads a thread-local. An interrupt of the caller while it waits is passed on. Work
 * already on such a thread runs in place.
 */
public final class ExprThreads {
    /** The stack of a pooled thread: {@value} bytes. */
    public static final long STACK_BYTES = 16L << 20;

    private static final ExecutorService POOL = new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            task -> new Worker(task, STACK_BYTES));

    private ExprThreads() {}

    /** A thread of this class, with the stack it was made with. */
    private static final class Worker extends Thread {
        final long stackBytes;

        Worker(Runnable task, long stackBytes) {
            super(null, task, "quiver-deep-stack", stackBytes);
            this.stackBytes = stackBytes;
            setDaemon(true);
        }
    }

    /** {@link #call(long, Supplier)} with a stack of {@link #STACK_BYTES}. */
    public static <T> T call(Supplier<T> task) {
        return call(STACK_BYTES, task);
    }

    /**
     * The result of {@code task}, run on a thread with a stack of at least {@code stackBytes}: a
     * pooled one up to {@link #STACK_BYTES}, one made for it above. What the task throws is thrown
     * here. The caller waits for the task to end; an interrupt of the caller while it waits is
     * passed on to the thread running the task (an evaluation that checks for cancellation sees
     * it), and kept on the caller's interrupt flag.
     */
    public static <T> T call(long stackBytes, Supplier<T> task) {
        Objects.requireNonNull(task, "task is null");
        if (Thread.currentThread() instanceof Worker w && w.stackBytes >= stackBytes) {
            return task.get();
        }
        Running<T> running = new Running<>(Cancellation.carried(task));
        Future<T> result;
        if (stackBytes <= STACK_BYTES) {
            result = POOL.submit(running::call);
        } else {
            FutureTask<T> f = new FutureTask<>(running::call);
            new Worker(f, stackBytes).start();
            result = f;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                    running.interrupt();
                } catch (ExecutionException e) {
                    switch (e.getCause()) {
                        case RuntimeException r -> throw r;
                        case Error err -> throw err;
                        default -> throw new IllegalStateException(e.getCause());
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * As {@link #call(Supplier)}, waiting at most {@code millis} milliseconds: past them, the task is
     * left to end on its own (its thread is a daemon, its result dropped) and {@code onTimeout}'s
     * exception is thrown. For work that may not stop when asked.
     */
    public static <T> T call(Supplier<T> task, long millis, Supplier<? extends RuntimeException> onTimeout) {
        Objects.requireNonNull(task, "task is null");
        Objects.requireNonNull(onTimeout, "onTimeout is null");
        Running<T> running = new Running<>(Cancellation.carried(task));
        Future<T> result = POOL.submit(running::call);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                    running.interrupt();
                } catch (TimeoutException e) {
                    throw onTimeout.get();
                } catch (ExecutionException e) {
                    switch (e.getCause()) {
                        case RuntimeException r -> throw r;
                        case Error err -> throw err;
                        default -> throw new IllegalStateException(e.getCause());
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A task and the thread running it, so that an interrupt reaches it only while it runs. */
    private static final class Running<T> {
        private final Supplier<T> task;
        private Thread runner;
        private boolean done;

        Running(Supplier<T> task) {
            this.task = task;
        }

        T call() {
            synchronized (this) {
                runner = Thread.currentThread();
            }
            try {
                return task.get();
            } finally {
                synchronized (this) {
                    done = true;
                }
                Thread.interrupted(); // a pooled thread starts its next task uninterrupted
            }
        }

        synchronized void interrupt() {
            if (runner != null && !done) {
                runner.interrupt();
            }
        }
    }
}
