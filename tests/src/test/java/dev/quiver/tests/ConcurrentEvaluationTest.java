package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.kernels.ArithmeticMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * One CompiledExpression, several threads, every device: each thread's results match the
 * reference, and the metrics count every batch.
 */
class ConcurrentEvaluationTest extends QuiverTestBase {

    @Test
    void threadsShareOneCompiledExpressionSafely() throws Exception {
        // Wrapping integer arithmetic: the whole expression is one fused kernel on every device.
        quiver.close();
        quiver = Quiver.builder()
                .allocator(allocator)
                .arithmetic(ArithmeticMode.WRAPPING)
                .build();
        CompiledExpression expr = quiver.compile(TestBatches.SCHEMA, Expr.parse("f1 * f2 + f3 / (l1 / dl)"));
        int threads = 4, batchesPerThread = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = 1000L + t;
                done.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    int evaluated = 0;
                    for (int b = 0; b < batchesPerThread; b++) {
                        try (VectorSchemaRoot batch =
                                TestBatches.hostile(allocator, 1 + random.nextInt(5000), 0.1, random)) {
                            for (Device d : quiver.devices()) {
                                try (FieldVector out = expr.evaluate(batch, d, allocator)) {
                                    DifferentialTest.assertMatchesReference(
                                            expr, batch, out, d.name() + ", seed " + seed);
                                    evaluated++;
                                }
                            }
                            // And wherever AUTO places it, learning from every thread's runs at once.
                            try (FieldVector out = expr.evaluate(batch, Placement.AUTO, allocator)) {
                                DifferentialTest.assertMatchesReference(expr, batch, out, "auto, seed " + seed);
                                evaluated++;
                            }
                        }
                    }
                    return evaluated;
                }));
            }
            int total = 0;
            for (Future<Integer> f : done) {
                total += f.get();
            }
            assertEquals(threads * batchesPerThread * (quiver.devices().size() + 1), total);
            long counted = expr.metrics().byDevice().values().stream()
                    .mapToLong(t -> t.batches())
                    .sum();
            assertEquals(total, counted);
        } finally {
            pool.shutdownNow();
        }
    }
}
