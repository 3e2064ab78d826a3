package dev.quiver.cpu;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The helper threads of one CPU backend: they take ranges of a batch alongside the thread that
 * submitted it. A helper that finds no work spins for {@link #SPIN_NANOS} (batches of a query
 * follow each other closely, and waking a parked thread costs tens of microseconds, a good part
 * of a batch) and then parks until the next batch. Daemon threads, started on first use and
 * stopped by {@link #close()}.
 */
final class RangeWorkers implements AutoCloseable {
    /** How long a helper, or a caller waiting for its helpers, spins before it parks. */
    static final long SPIN_NANOS = 100_000;

    private final ConcurrentLinkedQueue<Job> jobs = new ConcurrentLinkedQueue<>();
    private final Thread[] helpers;
    private volatile boolean closed;

    RangeWorkers(int count) {
        helpers = new Thread[count];
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(this::loop, "quiver-cpu-" + (i + 1));
            t.setDaemon(true);
            helpers[i] = t;
            t.start();
        }
    }

    /** One batch: {@code ranges} ranges, each computed by {@code range.run(i)}. */
    interface Range {
        void run(int i);
    }

    static final class Job {
        private final Range range;
        private final int ranges;
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicInteger remaining;
        private final AtomicReference<Throwable> error = new AtomicReference<>();
        private final AtomicInteger helperSlots;
        private volatile Thread waiter;

        /** {@code helpers}: how many helper threads may join the caller (the work is worth that many). */
        Job(Range range, int ranges, int helpers) {
            this.range = range;
            this.ranges = ranges;
            this.remaining = new AtomicInteger(ranges);
            this.helperSlots = new AtomicInteger(helpers);
        }

        /** A helper's turn: computes ranges when the job still wants a helper; false when it does not. */
        boolean help() {
            return helperSlots.getAndDecrement() > 0 && work();
        }

        /** Computes ranges until none is left to take; false when there was none. */
        boolean work() {
            boolean any = false;
            for (int i; (i = next.getAndIncrement()) < ranges; ) {
                any = true;
                try {
                    range.run(i);
                } catch (Throwable t) {
                    error.compareAndSet(null, t);
                } finally {
                    if (remaining.decrementAndGet() == 0) {
                        Thread w = waiter;
                        if (w != null) {
                            LockSupport.unpark(w);
                        }
                    }
                }
            }
            return any;
        }

        boolean taken() {
            return next.get() >= ranges;
        }

        /** Waits until every range is computed (spinning first), then rethrows the first failure. */
        void await() {
            long start = System.nanoTime();
            while (remaining.get() > 0 && System.nanoTime() - start < SPIN_NANOS) {
                Thread.onSpinWait();
            }
            if (remaining.get() > 0) {
                waiter = Thread.currentThread();
                while (remaining.get() > 0) {
                    LockSupport.park(this);
                }
            }
            Throwable t = error.get();
            if (t instanceof RuntimeException e) {
                throw e;
            }
            if (t instanceof Error e) {
                throw e;
            }
            if (t != null) {
                throw new IllegalStateException(t);
            }
        }
    }

    /** Runs {@code job} on the calling thread and the helpers; returns when every range is done. */
    void run(Job job) {
        jobs.add(job);
        for (Thread h : helpers) {
            LockSupport.unpark(h);
        }
        try {
            job.work();
            job.await();
        } finally {
            jobs.remove(job);
        }
    }

    private void loop() {
        long idleSince = System.nanoTime();
        while (!closed) {
            Job job = jobs.peek();
            if (job != null) {
                if (!job.help() || job.taken()) {
                    jobs.remove(job); // every range is taken: let the others see the next job
                }
                idleSince = System.nanoTime();
            } else if (System.nanoTime() - idleSince < SPIN_NANOS) {
                Thread.onSpinWait();
            } else {
                LockSupport.park(this);
                idleSince = System.nanoTime();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Thread h : helpers) {
            LockSupport.unpark(h);
        }
    }
}
