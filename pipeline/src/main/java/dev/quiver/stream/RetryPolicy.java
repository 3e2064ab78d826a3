package dev.quiver.stream;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * How a failed call of an async function is retried: at most {@code maxAttempts} attempts in
 * all, waiting {@code initialBackoff}, then that times {@code multiplier} after each further
 * failure (capped at {@code maxBackoff}), for failures {@code retryOn} accepts. Waiting holds
 * no thread. A cancelled query is never retried.
 *
 * @param maxAttempts    attempts per chunk, including the first (1: no retry)
 * @param initialBackoff wait before the second attempt
 * @param multiplier     growth of the wait per attempt (>= 1)
 * @param maxBackoff     the longest wait
 * @param retryOn        which failures are retried (given the cause, unwrapped from
 *                       {@link CompletionException}); by default timeouts and I/O errors
 */
public record RetryPolicy(
        int maxAttempts,
        Duration initialBackoff,
        double multiplier,
        Duration maxBackoff,
        Predicate<Throwable> retryOn) {

    /** Timeouts ({@link TimeoutException}, including the per-call timeout) and {@link IOException}s. */
    public static final Predicate<Throwable> TRANSIENT = t -> t instanceof TimeoutException || t instanceof IOException;

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
        }
        Objects.requireNonNull(initialBackoff, "initialBackoff is null");
        Objects.requireNonNull(maxBackoff, "maxBackoff is null");
        Objects.requireNonNull(retryOn, "retryOn is null");
        if (initialBackoff.isNegative() || maxBackoff.isNegative()) {
            throw new IllegalArgumentException("backoff must not be negative");
        }
        if (!(multiplier >= 1)) {
            throw new IllegalArgumentException("multiplier must be >= 1, got " + multiplier);
        }
    }

    /** No retry: the first failure fails the query. The default. */
    public static RetryPolicy none() {
        return new RetryPolicy(1, Duration.ZERO, 1, Duration.ZERO, TRANSIENT);
    }

    /** Up to {@code maxAttempts} attempts of transient failures, waiting 100 ms, then twice as long each time, at most 5 s. */
    public static RetryPolicy attempts(int maxAttempts) {
        return new RetryPolicy(maxAttempts, Duration.ofMillis(100), 2, Duration.ofSeconds(5), TRANSIENT);
    }

    public RetryPolicy withBackoff(Duration initial, double multiplier, Duration max) {
        return new RetryPolicy(maxAttempts, initial, multiplier, max, retryOn);
    }

    public RetryPolicy retryingOn(Predicate<Throwable> which) {
        return new RetryPolicy(maxAttempts, initialBackoff, multiplier, maxBackoff, which);
    }

    /** Whether attempt {@code attempt} (1-based) that failed with {@code failure} is followed by another. */
    public boolean retries(int attempt, Throwable failure) {
        return attempt < maxAttempts && retryOn.test(unwrap(failure));
    }

    /** The wait before attempt {@code attempt + 1}. */
    public Duration backoff(int attempt) {
        double nanos = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, attempt - 1));
        return Duration.ofNanos((long) Math.min(nanos, maxBackoff.toNanos()));
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    public String toString() {
        return maxAttempts == 1
                ? "no retry"
                : maxAttempts + " attempts, backoff " + initialBackoff.toMillis() + " ms x" + multiplier + " up to "
                        + maxBackoff.toMillis() + " ms";
    }
}
