package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.QuiverOutOfMemoryException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Many threads, one Quiver (one runtime: device schedulers, health, program caches, RowFn stats):
 * each thread evaluates a long random sequence of (expression, batch, placement) with
 * {@link StressFixtures#EXPRESSIONS} (fused numeric, a RowFn, comparisons, CASE, string functions,
 * LIKE, a string RowFn, nested values, a division that fails in some batches) over a shared pool
 * of small batches (64 to 4096 rows, read by every thread at once), placed on the CPU, OpenCL
 * (where present) and AUTO. Every result must equal, exactly, a single-threaded run of the same
 * (expression, batch) on the CPU, and every exception the same one; every thread must finish
 * within a bounded time (else the test fails with a thread dump); each thread's allocator, and
 * the test's, must end at zero.
 *
 * <p>The default run (8 threads x 1,000 batches) takes seconds. A heavier one:
 * {@code -Dquiver.stress.threads=16 -Dquiver.stress.batches=20000 -Dquiver.stress.seed=...}.
 */
class ConcurrencyStressTest extends QuiverTestBase {
    private static final int THREADS = Integer.getInteger("quiver.stress.threads", 8);
    private static final int BATCHES = Integer.getInteger("quiver.stress.batches", 1_000);
    private static final long SEED = Long.getLong("quiver.stress.seed", 20261130L);
    /** Distinct input batches, shared by all threads. */
    private static final int POOL = 40;

    /** The single-threaded answer for one (expression, batch): a result, or an exception's class and message. */
    private record Expected(FieldVector result, String failure) {}

    @Test
    void threadsSharingOneQuiverGetTheSingleThreadedResults() throws Exception {
        StressFixtures.register(quiver);
        System.out.println("ConcurrencyStressTest: " + THREADS + " threads x " + BATCHES + " batches, seed " + SEED
                + " (-Dquiver.stress.threads/batches/seed), OpenCL devices: " + quiver.openClDevices());
        List<String> sqls = StressFixtures.EXPRESSIONS;
        List<CompiledExpression> exprs =
                sqls.stream().map(s -> quiver.compile(StressFixtures.SCHEMA, s)).toList();
        List<Placement> placements = StressFixtures.placements(quiver);
        Random setup = new Random(SEED);
        List<VectorSchemaRoot> batches = new ArrayList<>();
        Expected[][] expected = new Expected[exprs.size()][POOL];
        try {
            for (int b = 0; b < POOL; b++) {
                int rows = (int) Math.round(Math.exp(Math.log(64) + setup.nextDouble() * Math.log(4096.0 / 64)));
                batches.add(
                        StressFixtures.batch(allocator, b == 0 ? 4096 : rows, setup.nextLong(), setup.nextInt(4) == 0));
            }
            for (int e = 0; e < exprs.size(); e++) {
                for (int b = 0; b < POOL; b++) {
                    expected[e][b] = evaluate(exprs.get(e), batches.get(b), Placement.CPU, allocator);
                }
            }

            long failing = Arrays.stream(expected)
                    .flatMap(Arrays::stream)
                    .filter(x -> x.failure() != null)
                    .count();
            assertTrue(failing > 0 && failing < (long) POOL * exprs.size() / 4, failing + " pairs fail");

            AtomicLong evaluated = new AtomicLong();
            Queue<String> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long seed = SEED * 31 + t;
                threads.add(Thread.ofPlatform().name("stress-" + t).start(() -> {
                    try (BufferAllocator mine =
                            allocator.newChildAllocator(Thread.currentThread().getName(), 0, Long.MAX_VALUE)) {
                        start.await();
                        Random r = new Random(seed);
                        for (int k = 0; k < BATCHES && failures.size() < 20; k++) {
                            int e = r.nextInt(exprs.size()), b = r.nextInt(POOL);
                            Placement p = placements.get(r.nextInt(placements.size()));
                            String where = sqls.get(e) + " on " + p + ", batch " + b + " ("
                                    + batches.get(b).getRowCount() + " rows), thread seed " + seed + ", step " + k;
                            boolean tight = r.nextInt(40) == 0;
                            Expected got;
                            if (tight) {
                                // Now and then an allocator far too small: a clear error (or the data's own
                                // error, when it comes first), nothing left behind, and the next batch unharmed.
                                try (BufferAllocator tiny = mine.newChildAllocator("tiny", 0, 64 + r.nextInt(2048))) {
                                    got = evaluate(exprs.get(e), batches.get(b), p, tiny);
                                    if (got.result() != null) {
                                        FieldVector kept = got.result();
                                        got = new Expected(copyInto(kept, mine), null);
                                        kept.close();
                                    }
                                    if (tiny.getAllocatedMemory() != 0) {
                                        failures.add(where + ": " + tiny.getAllocatedMemory()
                                                + " bytes left under a tight limit");
                                    }
                                }
                                if (got.failure() != null && got.failure().startsWith(OOM)) {
                                    evaluated.incrementAndGet();
                                    continue;
                                }
                            } else {
                                got = evaluate(exprs.get(e), batches.get(b), p, mine);
                            }
                            try {
                                String diff = compare(expected[e][b], got);
                                if (diff != null) {
                                    failures.add(where + ": " + diff);
                                }
                            } finally {
                                if (got.result() != null) {
                                    got.result().close();
                                }
                            }
                            if (mine.getAllocatedMemory() != 0) {
                                failures.add(where + ": " + mine.getAllocatedMemory()
                                        + " bytes left in the thread's allocator");
                                break;
                            }
                            evaluated.incrementAndGet();
                        }
                    } catch (Throwable x) {
                        failures.add(Thread.currentThread().getName() + " died: " + x);
                    }
                }));
            }
            start.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60 + (long) THREADS * BATCHES / 200);
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (t.isAlive()) {
                    fail(t.getName() + " did not finish in time (deadlock?); threads:\n" + threadDump());
                }
            }
            assertTrue(
                    failures.isEmpty(), failures.size() + " failures, the first ones:\n" + String.join("\n", failures));
            assertEquals((long) THREADS * BATCHES, evaluated.get());
        } finally {
            for (Expected[] row : expected) {
                for (Expected x : row) {
                    if (x != null && x.result() != null) {
                        x.result().close();
                    }
                }
            }
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    private static final String OOM = QuiverOutOfMemoryException.class.getName() + ": out of memory evaluating ";

    private static FieldVector copyInto(FieldVector v, BufferAllocator allocator) {
        FieldVector copy = v.getField().createVector(allocator);
        try {
            copy.allocateNew();
            for (int i = 0; i < v.getValueCount(); i++) {
                copy.copyFromSafe(i, i, v);
            }
            copy.setValueCount(v.getValueCount());
            return copy;
        } catch (RuntimeException x) {
            copy.close();
            throw x;
        }
    }

    private static Expected evaluate(
            CompiledExpression e, VectorSchemaRoot batch, Placement p, BufferAllocator allocator) {
        try {
            return new Expected(e.evaluate(batch, p, allocator), null);
        } catch (RuntimeException x) {
            return new Expected(null, x.getClass().getName() + ": " + x.getMessage());
        }
    }

    /** Null when equal, else what differs. */
    private static String compare(Expected want, Expected got) {
        if (want.failure() != null || got.failure() != null) {
            return Objects.equals(want.failure(), got.failure())
                    ? null
                    : "expected " + (want.failure() != null ? want.failure() : "a result") + " but got "
                            + (got.failure() != null ? got.failure() : "a result");
        }
        if (!want.result().getField().equals(got.result().getField())) {
            return "field " + got.result().getField() + ", expected "
                    + want.result().getField();
        }
        int row = StressFixtures.firstDifference(want.result(), got.result());
        return row < 0
                ? null
                : "row " + row + ": " + StressFixtures.describe(got.result(), row) + ", expected "
                        + StressFixtures.describe(want.result(), row);
    }

    private static String threadDump() {
        StringBuilder sb = new StringBuilder();
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            sb.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
            if (info.getLockName() != null) {
                sb.append(" on ").append(info.getLockName());
            }
            if (info.getLockOwnerName() != null) {
                sb.append(" owned by \"").append(info.getLockOwnerName()).append('"');
            }
            sb.append('\n');
            for (StackTraceElement f : info.getStackTrace()) {
                sb.append("    at ").append(f).append('\n');
            }
        }
        return sb.toString();
    }
}
