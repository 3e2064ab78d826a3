package dev.quiver.stream;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/** A semaphore whose waiters are futures, not threads. */
final class AsyncLimiter {
    private static final CompletableFuture<Void> GRANTED = CompletableFuture.completedFuture(null);
    private final int permits;
    private final ArrayDeque<CompletableFuture<Void>> waiters = new ArrayDeque<>();
    private int used;

    AsyncLimiter(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be >= 1, got " + permits);
        }
        this.permits = permits;
    }

    int permits() {
        return permits;
    }

    /** A future that completes when a permit is held; cancelling it before then gives up the wait. */
    synchronized CompletableFuture<Void> acquire() {
        if (used < permits) {
            used++;
            return GRANTED;
        }
        CompletableFuture<Void> w = new CompletableFuture<>();
        waiters.add(w);
        return w;
    }

    /** Gives a permit back: to the first waiter still waiting, else to the pool. */
    void release() {
        while (true) {
            CompletableFuture<Void> next;
            synchronized (this) {
                next = waiters.poll();
                if (next == null) {
                    used--;
                    return;
                }
            }
            if (next.complete(null)) {
                return; // the permit passes to that waiter
            }
        }
    }

    synchronized int inUse() {
        return used;
    }
}
