package dev.quiver.tests;

import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Runs one fuzz case at a time, each on a fresh daemon thread with the JVM's default stack size,
 * under a time limit: a case still running at the limit is a hang, reported with where its
 * thread was, interrupted and left behind (a stuck thread cannot be stopped; after
 * {@link #MAX_HANGS} the run stops, so stuck threads do not pile up). Also derives each case's
 * own {@link Random} from the run's seed and the case's number, so that one case can be
 * replayed alone.
 */
final class FuzzCases {
    /** After this many hangs a run stops ({@code -Dquiver.fuzz.maxHangs}): each leaves a thread that may keep a core busy. */
    static final int MAX_HANGS = Integer.getInteger("quiver.fuzz.maxHangs", 3);
    /** The per-case limit, seconds ({@code -Dquiver.fuzz.caseTimeout}); generous, as the machine may be loaded. */
    static final long LIMIT_SECONDS = Long.getLong("quiver.fuzz.caseTimeout", 10);

    /** A case past the limit inside code that is not Quiver's ({@link #run}) is given this much longer, seconds. */
    static final long GRACE_SECONDS = 120;

    /**
     * How a case ended: its value, what it threw (an Error included), or a hang with its thread's
     * stack; {@code late}: past the limit, where it was then, when it ended within the grace.
     */
    record Timed<T>(T value, Throwable thrown, String hang, String late) {
        boolean hung() {
            return hang != null;
        }
    }

    private final String name;
    private int hangs;

    FuzzCases(String name) {
        this.name = name;
    }

    int hangs() {
        return hangs;
    }

    boolean tooManyHangs() {
        return hangs >= MAX_HANGS;
    }

    /** Runs {@code task} as case {@code number} under the time limit. */
    <T> Timed<T> run(long number, Callable<T> task) throws InterruptedException {
        return run(number, task, () -> false);
    }

    /**
     * Runs {@code task} as case {@code number} under the time limit; a case still running at the
     * limit while {@code outsideQuiver} says it is in code that is not Quiver's (Arrow's reader)
     * gets {@link #GRACE_SECONDS} more, and is {@code late} rather than hung if it ends in them.
     */
    <T> Timed<T> run(long number, Callable<T> task, BooleanSupplier outsideQuiver) throws InterruptedException {
        return run(number, task, outsideQuiver, LIMIT_SECONDS * 1000);
    }

    /** As {@link #run(long, Callable, java.util.function.BooleanSupplier)} with a limit of {@code limitMillis} for this case. */
    <T> Timed<T> run(long number, Callable<T> task, BooleanSupplier outsideQuiver, long limitMillis)
            throws InterruptedException {
        Object[] result = new Object[2];
        Thread t = new Thread(
                null,
                () -> {
                    try {
                        result[0] = task.call();
                    } catch (
                            Throwable e) { // an Error too: the fuzzer reports it as a failure, it must not kill the run
                        result[1] = e;
                    }
                },
                name + " case " + number,
                0);
        t.setDaemon(true);
        t.start();
        t.join(limitMillis);
        String late = null;
        if (t.isAlive() && outsideQuiver.getAsBoolean()) {
            late = where(t);
            t.join(GRACE_SECONDS * 1000);
        }
        if (t.isAlive()) {
            hangs++;
            String where = where(t);
            t.interrupt();
            return new Timed<>(
                    null,
                    null,
                    "still running after " + limitMillis / 1000.0 + " s"
                            + (late != null ? " and " + GRACE_SECONDS + " s more" : "") + ", at:\n" + where,
                    late);
        }
        @SuppressWarnings("unchecked")
        T value = (T) result[0];
        return new Timed<>(value, (Throwable) result[1], null, late);
    }

    /** Where {@code t} is, and where the threads Quiver runs deep work on are (a case may be waiting for one). */
    private static String where(Thread t) {
        StringBuilder sb = new StringBuilder(frames(t.getStackTrace(), 25));
        Thread.getAllStackTraces().forEach((other, frames) -> {
            if (other != t && other.getName().startsWith("quiver-deep-stack") && frames.length > 0) {
                sb.append("\n    and ").append(other.getName()).append(":\n").append(frames(frames, 15));
            }
        });
        return sb.toString();
    }

    private static String frames(StackTraceElement[] frames, int n) {
        return Arrays.stream(frames).limit(n).map(f -> "      at " + f).collect(Collectors.joining("\n"));
    }

    /** Case {@code number}'s own random source: the same for the same seed, whatever ran before it. */
    static Random caseRandom(long seed, long number) {
        long z = seed + 0x9E3779B97F4A7C15L * (number + 1); // SplitMix64's finaliser over seed and number
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return new Random(z ^ (z >>> 31));
    }

    /** The run's seed: {@code property} when given, else fixed for a bounded run, random for a soak. */
    static long seed(String property, long fixed, boolean soak) {
        String given = System.getProperty(property);
        return given != null ? Long.parseLong(given) : soak ? System.nanoTime() : fixed;
    }
}
