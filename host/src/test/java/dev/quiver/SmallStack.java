package dev.quiver;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a test body on a thread with a small stack, so that a walk over a deep tree that recurses
 * (instead of using a stack of its own, or a thread with a large one) fails the test with a
 * {@link StackOverflowError} instead of passing on the test runner's larger stack.
 */
public final class SmallStack {
    /** A stack smaller than any JVM default (1 MiB on x86-64 Linux), as thread pools may give. */
    public static final long SMALL = 256 * 1024;

    private SmallStack() {}

    /** A body that may throw anything. */
    @FunctionalInterface
    public interface Body {
        void run() throws Throwable;
    }

    /** Runs {@code body} on a new thread with a stack of {@link #SMALL} bytes; rethrows what it throws. */
    public static void run(Body body) {
        run(SMALL, body);
    }

    /** Runs {@code body} on a new thread with a stack of {@code stackBytes}; rethrows what it throws. */
    public static void run(long stackBytes, Body body) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(
                null,
                () -> {
                    try {
                        body.run();
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                },
                "small-stack-test",
                stackBytes);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the test thread", e);
        }
        Throwable e = failure.get();
        if (e instanceof RuntimeException r) {
            throw r;
        }
        if (e instanceof Error err) {
            throw err;
        }
        if (e != null) {
            throw new AssertionError(e);
        }
    }
}
