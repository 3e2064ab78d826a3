package dev.quiver.placement;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The circuit breaker of one device. After {@link Policy#failuresToFence()} failed batches in a
 * row (a build, transfer or launch that failed; the batch itself was recomputed on the CPU) the
 * device is fenced off: no batch goes to it for {@link Policy#fenceFor()}. When that time is up
 * the next batch placed on it is a probe: success makes it healthy again; failure fences it
 * again for twice as long, up to {@link Policy#maxFence()}. A lack of device memory is not a
 * failure of the device (the batch goes to the CPU and is counted apart).
 *
 * <p>Thread-safe and cheap: asking whether a healthy device may run a batch is one volatile read.
 */
public final class DeviceHealth {

    /**
     * When to fence a device and for how long.
     *
     * @param failuresToFence failed batches in a row that fence the device (>= 1)
     * @param fenceFor        how long the first fence lasts
     * @param maxFence        the longest fence (each failed probe doubles the last one)
     */
    public record Policy(int failuresToFence, Duration fenceFor, Duration maxFence) {
        /** 3 failures in a row fence a device for 10 s at first, at most 5 min. */
        public static final Policy DEFAULT = new Policy(3, Duration.ofSeconds(10), Duration.ofMinutes(5));

        public Policy {
            if (failuresToFence < 1) {
                throw new IllegalArgumentException("failuresToFence must be >= 1, got " + failuresToFence);
            }
            Objects.requireNonNull(fenceFor, "fenceFor is null");
            Objects.requireNonNull(maxFence, "maxFence is null");
            if (fenceFor.isNegative() || fenceFor.isZero() || maxFence.compareTo(fenceFor) < 0) {
                throw new IllegalArgumentException("need 0 < fenceFor <= maxFence, got " + fenceFor + ", " + maxFence);
            }
        }
    }

    /** Where a device stands. */
    public enum State {
        /** Batches may go to it. */
        HEALTHY,
        /** Fenced off: no batch goes to it until the fence ends. */
        FENCED,
        /** The fence has ended: the next batch placed on it is a probe. */
        PROBE_DUE,
        /** A probe batch is running on it. */
        PROBING
    }

    /**
     * @param state               the state now
     * @param failures            failed batches since the start (each was recomputed on the CPU)
     * @param consecutiveFailures failed batches since the last success
     * @param fences              times the device was fenced off
     * @param probes              probe batches sent after a fence
     * @param memoryFallbacks     batches sent back to the CPU for lack of device memory
     * @param fencedForNanos      time left of the current fence (0 unless FENCED)
     * @param lastFailure         the last failure's message, or null
     */
    public record Snapshot(
            State state,
            long failures,
            long consecutiveFailures,
            long fences,
            long probes,
            long memoryFallbacks,
            long fencedForNanos,
            String lastFailure) {
        public String describe() {
            StringBuilder sb = new StringBuilder(state.name().toLowerCase(Locale.ROOT));
            if (state == State.FENCED) {
                sb.append(String.format(Locale.ROOT, " for %.1f s more", fencedForNanos / 1e9));
            }
            if (failures > 0 || memoryFallbacks > 0) {
                sb.append(String.format(
                        Locale.ROOT,
                        "; %d failed batches (recomputed on the cpu), %d fences,"
                                + " %d probes, %d sent back for memory",
                        failures,
                        fences,
                        probes,
                        memoryFallbacks));
            }
            if (lastFailure != null) {
                sb.append("; last failure: ").append(lastFailure);
            }
            return sb.toString();
        }
    }

    private final Policy policy;
    private final LongSupplier clock;
    private final AtomicInteger consecutive = new AtomicInteger();
    /** 0 when not fenced, else the clock time the fence ends. */
    private volatile long fencedUntil;

    private final AtomicBoolean probing = new AtomicBoolean();
    private final AtomicLong currentFence;
    private final LongAdder failures = new LongAdder();
    private final AtomicLong fences = new AtomicLong();
    private final AtomicLong probes = new AtomicLong();
    private final LongAdder memoryFallbacks = new LongAdder();
    private volatile String lastFailure;

    /** @param clock nanoseconds, as {@link System#nanoTime()} */
    public DeviceHealth(Policy policy, LongSupplier clock) {
        this.policy = Objects.requireNonNull(policy, "policy is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.currentFence = new AtomicLong(policy.fenceFor().toNanos());
    }

    /** The state now (PROBE_DUE once a fence's time is up). */
    public State state() {
        long until = fencedUntil;
        if (until == 0) {
            return State.HEALTHY;
        }
        if (probing.get()) {
            return State.PROBING;
        }
        return clock.getAsLong() < until ? State.FENCED : State.PROBE_DUE;
    }

    /** Whether a batch may be placed on the device now without a probe. */
    public boolean isHealthy() {
        return fencedUntil == 0;
    }

    /**
     * Claims the probe of a device whose fence is up: true for exactly one caller until that
     * probe's outcome is recorded.
     */
    public boolean tryProbe() {
        if (fencedUntil == 0 || clock.getAsLong() < fencedUntil || !probing.compareAndSet(false, true)) {
            return false;
        }
        probes.incrementAndGet();
        return true;
    }

    /**
     * A batch ran on the device. Only a probe's success lifts a fence: a batch sent before the
     * fence and finishing after it says nothing about the device now.
     */
    public void success(boolean probe) {
        if (consecutive.get() != 0) {
            consecutive.set(0);
        }
        if (probe) {
            synchronized (this) {
                fencedUntil = 0;
                currentFence.set(policy.fenceFor().toNanos());
                probing.set(false);
            }
        }
    }

    /**
     * A batch failed on the device (and was recomputed elsewhere). A failed probe fences the
     * device again for twice as long; other failures fence it after enough in a row.
     */
    public void failure(String message, boolean probe) {
        failures.increment();
        lastFailure = message;
        int c = consecutive.incrementAndGet();
        synchronized (this) {
            if (probe) {
                long next = Math.min(currentFence.get() * 2, policy.maxFence().toNanos());
                currentFence.set(next);
                fencedUntil = fenceEnd(next);
                fences.incrementAndGet();
                probing.set(false);
            } else if (c >= policy.failuresToFence() && fencedUntil == 0) {
                fencedUntil = fenceEnd(currentFence.get());
                fences.incrementAndGet();
            }
        }
    }

    private long fenceEnd(long length) {
        long end = clock.getAsLong() + length;
        return end == 0 ? 1 : end;
    }

    /** A batch was sent back to the CPU because the device lacked memory for it. */
    public void memoryFallback(String message) {
        memoryFallbacks.increment();
        lastFailure = message;
        releaseProbe();
    }

    /** A probe ended without a verdict (the batch lacked memory, or the JVM threw an Error): a later batch probes again. */
    public void releaseProbe() {
        probing.set(false);
    }

    public Snapshot snapshot() {
        State s = state();
        long until = fencedUntil;
        return new Snapshot(
                s,
                failures.sum(),
                consecutive.get(),
                fences.get(),
                probes.get(),
                memoryFallbacks.sum(),
                s == State.FENCED ? Math.max(0, until - clock.getAsLong()) : 0,
                lastFailure);
    }
}
