package dev.quiver.stream;

import java.util.Locale;

/**
 * What one async call site did in one execution, over all its partitions. Waiting time is wall
 * time during which at least one call was in flight (overlapping calls count once), so it
 * compares directly with the query's elapsed time. Thread-safe.
 */
public final class AsyncCallMetrics {
    private long calls;
    private long rowsSent;
    private long retries;
    private long timeouts;
    private long failures;
    private int inFlight;
    private int peakInFlight;
    private long waitNanos;
    private long waitSince;

    synchronized void started(int rows, long now) {
        calls++;
        rowsSent += rows;
        if (inFlight++ == 0) {
            waitSince = now;
        }
        peakInFlight = Math.max(peakInFlight, inFlight);
    }

    synchronized void ended(long now) {
        if (--inFlight == 0) {
            waitNanos += now - waitSince;
        }
    }

    synchronized void retried() {
        retries++;
    }

    synchronized void timedOut() {
        timeouts++;
    }

    synchronized void failed() {
        failures++;
    }

    /** Calls made (attempts, retries included). */
    public synchronized long calls() {
        return calls;
    }

    /** Rows sent over all calls (a retried chunk counts again). */
    public synchronized long rowsSent() {
        return rowsSent;
    }

    public synchronized long retries() {
        return retries;
    }

    public synchronized long timeouts() {
        return timeouts;
    }

    /** Chunks that failed for good. */
    public synchronized long failures() {
        return failures;
    }

    /** The most calls in flight at one time. */
    public synchronized int peakInFlight() {
        return peakInFlight;
    }

    public synchronized int inFlight() {
        return inFlight;
    }

    /** Wall time with at least one call in flight, up to now. */
    public synchronized long waitNanos() {
        return waitNanos + (inFlight > 0 ? System.nanoTime() - waitSince : 0);
    }

    synchronized String describe() {
        return String.format(
                Locale.ROOT,
                "calls=%d, rows sent=%d, waiting=%.3f ms, peak in flight=%d, retries=%d, timeouts=%d, failures=%d",
                calls,
                rowsSent,
                (waitNanos + (inFlight > 0 ? System.nanoTime() - waitSince : 0)) / 1e6,
                peakInFlight,
                retries,
                timeouts,
                failures);
    }
}
