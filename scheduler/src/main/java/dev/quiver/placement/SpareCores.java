package dev.quiver.placement;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How many of the machine's cores a batch may be split between now: all of them but those that
 * other processes keep busy. Placement never gives a batch a thread for which no core is free: on
 * a machine busy with other work, a second thread only waits for a core and slows the batch down
 * (measured: a query took 772 ms with two threads on a busy 2-core machine, 270 ms with one).
 *
 * <p>{@link #os()} reads the operating system's recent CPU load and this process's own
 * ({@code com.sun.management.OperatingSystemMXBean}: container limits included), at most every
 * {@value #SAMPLE_MILLIS} ms, so the per-batch cost is a clock read and a volatile read. Cores
 * this process keeps busy count as its own (its other batches share the backend's helper threads
 * anyway); the cores other processes use, rounded to the nearest whole core, are taken off.
 */
@FunctionalInterface
public interface SpareCores {
    /** Milliseconds between two readings of the load. */
    long SAMPLE_MILLIS = 50;

    /** The cores a batch may use now, at least 1. */
    int now();

    /** As many cores as the JVM has, always (a machine of one's own; tests). */
    static SpareCores all() {
        int cores = Runtime.getRuntime().availableProcessors();
        return () -> cores;
    }

    /** The JVM's cores less those other processes use now, from the operating system's load. */
    static SpareCores os() {
        return OsLoad.INSTANCE;
    }

    /** The cores less those busy elsewhere: {@code systemLoad} and {@code processLoad} are shares of all cores (NaN or < 0: unknown). */
    static int spare(int cores, double systemLoad, double processLoad) {
        if (!(systemLoad >= 0) || !(processLoad >= 0)) {
            return cores;
        }
        long elsewhere = Math.round(Math.max(0, systemLoad - processLoad) * cores);
        return (int) Math.max(1, cores - elsewhere);
    }

    /** The operating system's load, sampled. */
    final class OsLoad implements SpareCores {
        static final OsLoad INSTANCE = new OsLoad();

        private final OperatingSystemMXBean bean;
        private final int cores = Runtime.getRuntime().availableProcessors();
        private final AtomicBoolean sampling = new AtomicBoolean();
        private volatile long sampledAt = Long.MIN_VALUE / 2;
        private volatile int spare = cores;

        private OsLoad() {
            OperatingSystemMXBean b = null;
            try {
                b = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
            } catch (RuntimeException | LinkageError e) {
                // A JVM without the com.sun.management beans: every core counts as spare.
            }
            this.bean = b;
        }

        @Override
        public int now() {
            long t = System.nanoTime();
            if (bean != null && t - sampledAt > SAMPLE_MILLIS * 1_000_000 && sampling.compareAndSet(false, true)) {
                try {
                    spare = spare(cores, bean.getCpuLoad(), bean.getProcessCpuLoad());
                    sampledAt = t;
                } finally {
                    sampling.set(false);
                }
            }
            return spare;
        }
    }
}
