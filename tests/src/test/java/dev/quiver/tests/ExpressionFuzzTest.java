package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.kernels.ArithmeticMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * Differential expression fuzzing: random well-typed expressions ({@link FuzzGenerator}) over
 * random hostile batches ({@link FuzzBatch}), each evaluated on every placement and, where the
 * semantics agree, in DuckDB ({@link FuzzHarness}). A disagreement fails with the seed, the
 * expression and a minimised case (a smaller tree, fewer rows); fixed ones are kept in
 * {@link FuzzRegressionTest}.
 *
 * <p>By default a bounded run ({@link #DEFAULT_CASES} expressions, a fixed seed, well under a
 * minute). {@code -Dquiver.fuzz.soak=N} runs at least N evaluations (one expression on one
 * batch on one placement; DuckDB comparisons are counted apart), from a random seed unless {@code -Dquiver.fuzz.seed=S} is
 * given, collects every disagreement and prints evaluations, distinct shapes and mismatches.
 */
class ExpressionFuzzTest {
    static final int DEFAULT_CASES = Integer.getInteger("quiver.fuzz.cases", 400);
    static final int EXPRESSIONS_PER_BATCH = 25;
    /** Batches each expression runs on ({@code -Dquiver.fuzz.batches}): a soak raises it so OpenCL builds, one per expression, weigh less. */
    static final int BATCHES_PER_ROUND = Integer.getInteger("quiver.fuzz.batches", 4);

    static final int MAX_DEPTH = 4;
    /** In a soak, how many disagreements are minimised and printed (the rest are only counted). */
    static final int MAX_REPORTED = 20;

    @Test
    void everyPlacementAndDuckDbAgreeOnRandomExpressions() throws Exception {
        long soak = Long.getLong("quiver.fuzz.soak", 0L);
        String seedProperty = System.getProperty("quiver.fuzz.seed");
        long seed = seedProperty != null ? Long.parseLong(seedProperty) : soak > 0 ? System.nanoTime() : 20261130L;
        System.out.println("ExpressionFuzzTest seed " + seed + " (replay with -Dquiver.fuzz.seed=" + seed
                + (soak > 0 ? " -Dquiver.fuzz.soak=" + soak : "") + ")");
        Random random = new Random(seed);
        FuzzGenerator generator = new FuzzGenerator(random, MAX_DEPTH);
        Set<Long> shapes = new HashSet<>();
        List<String> reports = new ArrayList<>();
        long mismatches = 0;
        long cases = 0;
        long started = System.nanoTime();
        BufferAllocator allocator = new RootAllocator();
        try (FuzzHarness checked = new FuzzHarness(allocator);
                FuzzHarness wrapping = new FuzzHarness(allocator, ArithmeticMode.WRAPPING)) {
            System.out.println("  devices: "
                    + checked.quiver.devices().stream()
                            .map(d -> d.name()
                                    + d.transferMode().map(m -> " [" + m + "]").orElse(""))
                            .toList()
                    + ", and every OpenCL device ["
                    + checked.otherModeName() + "] on one expression in " + FuzzHarness.OTHER_MODE_EVERY);
            int batchNumber = 0;
            long lastProgress = 0;
            while (soak > 0 ? checked.evaluations + wrapping.evaluations < soak : cases < DEFAULT_CASES) {
                // Every third round wraps: integer arithmetic then fuses into the device kernels.
                FuzzHarness harness = batchNumber % 3 == 2 ? wrapping : checked;
                List<FuzzBatch> batches = new ArrayList<>();
                for (int i = 0; i < BATCHES_PER_ROUND; i++) {
                    batches.add(FuzzBatch.random(random));
                }
                batchNumber++;
                long done = checked.evaluations + wrapping.evaluations;
                if (soak > 0 && done / 100_000 > lastProgress) {
                    lastProgress = done / 100_000;
                    System.out.printf(
                            "  soak: %d of %d evaluations, %d expressions, %d shapes, %d mismatches, %.0f s%n",
                            done, soak, cases, shapes.size(), mismatches, (System.nanoTime() - started) / 1e9);
                }
                for (int k = 0; k < EXPRESSIONS_PER_BATCH; k++) {
                    FuzzExpr expr = generator.any();
                    cases++;
                    shapes.add(hash64(expr.shape()));
                    FuzzHarness.Mismatch m = null;
                    FuzzBatch batch = null;
                    try {
                        // Compiled once, evaluated on each batch of the round.
                        for (int i = 0; i < batches.size() && m == null; i++) {
                            batch = batches.get(i);
                            m = harness.check(expr, batch, true);
                        }
                    } catch (FuzzHarness.Rejected r) {
                        continue;
                    }
                    if (m == null) {
                        continue;
                    }
                    mismatches++;
                    if (reports.size() < MAX_REPORTED) {
                        FuzzHarness.Minimised min = harness.minimise(expr, batch, m, true, new Random(seed));
                        String report = "seed " + seed + ", round " + batchNumber + " (" + harness.mode + ")" + " ("
                                + batch.rows() + " rows), expression " + k
                                + ":\n  " + expr.sql() + "\n  " + m.kind() + ": " + m.detail()
                                + "\nminimised to " + min.batch().rows() + " rows:\n  "
                                + min.expr().sql() + "\n  "
                                + min.mismatch().kind() + ": " + min.mismatch().detail() + "\n"
                                + min.batch().describe();
                        System.out.println("MISMATCH " + report);
                        reports.add(report);
                    }
                    if (soak == 0) {
                        break;
                    }
                }
                if (soak == 0 && !reports.isEmpty()) {
                    break;
                }
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            FuzzHarness.Totals totals = checked.plus(wrapping);
            System.out.printf(
                    "ExpressionFuzzTest: %d evaluations of %d expressions (%d rejected at planning), %d distinct shapes,"
                            + " %d raised (alike everywhere), %d compared with DuckDB, %d inexact trees compared on the CPU only, %d OpenCL-unsupported skips,"
                            + " %d in the other transfer mode (%s), %d mismatches, %.1f s (seed %d)%n",
                    totals.evaluations(),
                    cases,
                    totals.rejected(),
                    shapes.size(),
                    totals.raised(),
                    totals.duckDbCompared(),
                    totals.inexactCpuOnly(),
                    totals.openClSkippedUnsupported(),
                    totals.otherModeEvaluations(),
                    checked.otherModeName(),
                    mismatches,
                    seconds,
                    seed);
            System.out.printf(
                    "  DuckDB raised on a failing constant it folds eagerly, Quiver lazily (documented, not counted): %d%n",
                    checked.duckDbEagerConstantErrors + wrapping.duckDbEagerConstantErrors);
            System.out.printf(
                    "  DuckDB raised in a row an AND/OR's left operand decides, Quiver skips it (documented, agreed with"
                            + " DuckDB's lazy CASE form, not counted): %d%n",
                    checked.duckDbEagerLogicErrors + wrapping.duckDbEagerLogicErrors);
            long[] nanos = totals.nanos();
            System.out.printf(
                    "  seconds in: compile %.1f, CPU %.1f, OpenCL %.1f, AUTO %.1f, DuckDB %.1f%n",
                    nanos[0] / 1e9, nanos[1] / 1e9, nanos[2] / 1e9, nanos[3] / 1e9, nanos[4] / 1e9);
            totals.rejections().stream().limit(10).forEach(r -> System.out.println("  rejected: " + r));
            // The generator writes well-typed trees: planning rejects few.
            assertTrue(
                    totals.rejected() * 20 <= cases,
                    totals.rejected() + " of " + cases + " expressions did not plan: " + totals.rejections());
            // Where there is an OpenCL device, both transfer modes ran (so the copy path is not left to the unit
            // tests).
            assertTrue(
                    checked.quiver.openClDevices().isEmpty() || totals.otherModeEvaluations() > 0,
                    "no evaluation in the other transfer mode");
        }
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
        if (!reports.isEmpty()) {
            fail(mismatches + " mismatches (seed " + seed + "):\n" + String.join("\n", reports));
        }
    }

    /** FNV-1a, 64 bits: shapes are counted by hash so a long soak stays small. */
    static long hash64(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }
}
