package dev.quiver.expr;

import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Threads with a large stack for the walks over expression trees that recurse: parsing SQL text
 * ({@link SqlParser}) and planning ({@code ExpressionPlanner}). How deep a tree those take then
 * depends on their limits, not on the stack of the thread that asks (a thread pool's worker may have
 * 256 KiB). Idle threads end after 30 seconds; they are daemons and never keep a JVM alive.
 *
 * <p>A task sees the caller's arguments, not its thread: nothing Quiver parses or plans reads a
 * thread-local. Work already on such a thread runs in place.
 */
public final class ExprThreads {
    /** The stack of a pooled thread: {@value} bytes. */
    public static final long STACK_BYTES = 16L << 20;

    private static final ExecutorService POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), task -> new Worker(task, STACK_BYTES));

    private ExprThreads() {
    }

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
     * here. The caller waits for the task; an interrupt while waiting lets it finish (parsing and
     * planning take bounded time) and is then kept on the caller's interrupt flag.
     */
    public static <T> T call(long stackBytes, Supplier<T> task) {
        Objects.requireNonNull(task, "task is null");
        if (Thread.currentThread() instanceof Worker w && w.stackBytes >= stackBytes) {
            return task.get();
        }
        Future<T> result;
        if (stackBytes <= STACK_BYTES) {
            result = POOL.submit(task::get);
        } else {
            FutureTask<T> f = new FutureTask<>(task::get);
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
}
