package dev.quiver.stream;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A semaphore whose waiters are futures, not threads: one per function per runtime, bounding its
 * calls in flight across every query. A query may bound its own calls lower ({@link Group}).
 * Waiters are served in order, skipping those whose query is at its own bound.
 */
final class AsyncLimiter {
    private static final CompletableFuture<Void> GRANTED = CompletableFuture.completedFuture(null);
    private final int permits;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private int used;

    /** One query's share: at most {@code limit} of the limiter's permits. */
    static final class Group {
        final int limit;
        int used; // guarded by the limiter

        Group(int limit) {
            if (limit < 1) {
                throw new IllegalArgumentException("limit must be >= 1, got " + limit);
            }
            this.limit = limit;
        }
    }

    private record Waiter(CompletableFuture<Void> future, Group group) {}

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
    synchronized CompletableFuture<Void> acquire(Group group) {
        purgeCancelled();
        if (used < permits && group.used < group.limit) {
            used++;
            group.used++;
            return GRANTED;
        }
        CompletableFuture<Void> w = new CompletableFuture<>();
        waiters.add(new Waiter(w, group));
        return w;
    }

    /** Gives a permit of {@code group} back, and hands permits to the first waiters that may take them. */
    void release(Group group) {
        List<Waiter> granted = new ArrayList<>();
        synchronized (this) {
            used--;
            group.used--;
            Iterator<Waiter> it = waiters.iterator();
            while (it.hasNext() && used < permits) {
                Waiter w = it.next();
                if (w.future.isDone()) {
                    it.remove(); // cancelled while waiting
                } else if (w.group.used < w.group.limit) {
                    it.remove();
                    used++;
                    w.group.used++;
                    granted.add(w);
                }
            }
        }
        for (Waiter w : granted) {
            if (!w.future.complete(null)) {
                release(w.group); // cancelled just now: the permit goes on
            }
        }
    }

    private void purgeCancelled() {
        waiters.removeIf(w -> w.future.isDone());
    }
}
