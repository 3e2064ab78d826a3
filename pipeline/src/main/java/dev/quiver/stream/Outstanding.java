package dev.quiver.stream;

import java.util.concurrent.CompletableFuture;

/** Counts an execution's calls in flight, so that closing can wait until every one has ended. */
final class Outstanding {
    private int count;
    private CompletableFuture<Void> idle;

    synchronized void increment() {
        count++;
    }

    void decrement() {
        CompletableFuture<Void> f = null;
        synchronized (this) {
            if (--count == 0 && idle != null) {
                f = idle;
                idle = null;
            }
        }
        if (f != null) {
            f.complete(null);
        }
    }

    /** Completes when no call is in flight. */
    synchronized CompletableFuture<Void> whenIdle() {
        if (count == 0) {
            return CompletableFuture.completedFuture(null);
        }
        if (idle == null) {
            idle = new CompletableFuture<>();
        }
        return idle;
    }
}
