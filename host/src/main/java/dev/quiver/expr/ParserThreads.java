package dev.quiver.expr;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Where {@link SqlParser} runs JSqlParser: on threads of its own with a stack of
 * {@value #STACK_BYTES} bytes, so how deep a text parses does not depend on the stack of the
 * thread that asks (JSqlParser descends some twenty methods per parenthesis; a 256 KiB stack
 * holds about 60 levels, this one the {@value SqlParser#MAX_NESTING} the parser reads many times
 * over). Idle threads end after 30 seconds; they are daemons and never keep a JVM alive.
 */
final class ParserThreads {
    /** The stack of a parser thread. */
    static final long STACK_BYTES = 8L << 20;

    private static final ExecutorService POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), task -> {
                Thread t = new Thread(null, task, "quiver-sql-parser", STACK_BYTES);
                t.setDaemon(true);
                return t;
            });

    private ParserThreads() {
    }

    /**
     * The result of {@code task}, run on a parser thread; what it throws is thrown here. Parsing
     * takes bounded time (the text's nesting is bounded before it starts), so an interrupt while
     * waiting lets it finish and is then kept on this thread's interrupt flag.
     */
    static <T> T call(Supplier<T> task) {
        Future<T> result = POOL.submit(task::get);
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
