package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.QuiverOutOfMemoryException;
import dev.quiver.errors.ResourceException;
import dev.quiver.placement.DeviceHealth;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An allocator too small for a batch's result: a {@link QuiverOutOfMemoryException} that names the
 * expression, the bytes, the allocator's limit, the rows and the device; nothing left allocated;
 * and the same compiled expression right afterwards, with room, gives the right result.
 *
 * <p>Each expression is evaluated once with room to learn its peak memory, then under a sweep of
 * limits below that peak, so memory runs out at every allocation of the evaluation in turn
 * (the first output buffer, a string result growing, a CASE branch's result, a list's children).
 */
class MemoryLimitTest extends QuiverTestBase {
    private static final int ROWS = 4096;
    /** Fractions of the peak the limits sweep, in 1/32s. */
    private static final int STEPS = 32;

    @BeforeEach
    void registerFunctions() {
        StressFixtures.register(quiver);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "sqrt(x * x + y * y) * 2.5 - x",
                "stress_hypot(x, y) + 1",
                "x < y AND s <> 'ab'",
                "CASE WHEN x > 0 THEN upper(s) WHEN y > 0 THEN s ELSE concat(s, '-', s) END",
                "CASE WHEN i > 0 THEN i * 2 ELSE i - 1 END",
                "upper(s)",
                "concat(s, s, s, s)",
                "s LIKE '%a%'",
                "make_array(x, y, x + y)",
                "stress_triple(s)"
            })
    void everyLimitBelowThePeakFailsClearlyAndLeavesNothingBehind(String sql) {
        CompiledExpression e = quiver.compile(StressFixtures.SCHEMA, sql);
        try (VectorSchemaRoot b = StressFixtures.batch(allocator, ROWS, 7, false)) {
            for (Placement p : StressFixtures.placements(quiver)) {
                long peak;
                try (BufferAllocator probe = allocator.newChildAllocator("probe", 0, Long.MAX_VALUE)) {
                    e.evaluate(b, p, probe).close();
                    peak = probe.getPeakMemoryAllocation();
                }
                FieldVector expected = e.evaluate(b, p, allocator);
                try (expected) {
                    assertTrue(peak > 0, sql + " on " + p + " allocated nothing");
                    int failures = 0, deep = 0;
                    for (int step = 0; step < STEPS; step++) {
                        long limit = peak * step / STEPS;
                        try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, limit)) {
                            try (FieldVector v = e.evaluate(b, p, limited)) {
                                assertEquals(
                                        -1,
                                        StressFixtures.firstDifference(expected, v),
                                        sql + " on " + p + " under " + limit);
                            } catch (QuiverOutOfMemoryException oom) {
                                failures++;
                                if (limited.getPeakMemoryAllocation() > 0) {
                                    deep++; // it ran out after it had allocated something
                                }
                                assertClear(oom, e, p, "limited", limit);
                            }
                            assertEquals(
                                    0,
                                    limited.getAllocatedMemory(),
                                    sql + " on " + p + " under " + limit + " left memory behind");
                        }
                    }
                    assertTrue(failures > 0, sql + " on " + p + ": no limit below the peak " + peak + " failed");
                    // The runtime keeps working: the same compiled expression, with room, is right.
                    try (BufferAllocator room = allocator.newChildAllocator("room", 0, Long.MAX_VALUE);
                            FieldVector v = e.evaluate(b, p, room)) {
                        assertEquals(
                                -1,
                                StressFixtures.firstDifference(expected, v),
                                sql + " on " + p + " after the failures");
                    }
                    if (sql.startsWith("upper")
                            || sql.startsWith("stress_triple")
                            || sql.startsWith("make_array")
                            || sql.startsWith("CASE WHEN x")) {
                        assertTrue(deep > 0, sql + " on " + p + ": never ran out after a first allocation");
                    }
                }
            }
        }
    }

    @Test
    void theMessageNamesTheExpressionTheBytesTheLimitTheRowsAndTheDevice() {
        CompiledExpression e = quiver.compile(StressFixtures.SCHEMA, "concat(s, s, s, s)");
        try (VectorSchemaRoot b = StressFixtures.batch(allocator, ROWS, 3, false);
                BufferAllocator limited = allocator.newChildAllocator("results", 0, 20_000)) {
            QuiverOutOfMemoryException oom = assertThrows(
                    QuiverOutOfMemoryException.class,
                    () -> e.evaluate(b, Placement.CPU, limited).close());
            String m = oom.getMessage();
            assertTrue(m.startsWith("out of memory evaluating concat(s, s, s, s) (needed "), m);
            assertTrue(m.contains(" bytes; allocator 'results' limit 20000 bytes, "), m);
            assertTrue(
                    m.endsWith(" at a batch of 4096 rows on "
                            + quiver.devices().getFirst().name() + " (host kernels)"),
                    m);
            assertTrue(oom.neededBytes() > 0 && oom.allocated() >= 0 && oom.allocated() <= 20_000, m);
            assertTrue(oom.neededBytes() + oom.allocated() > 20_000, m);
            assertEquals(20_000, oom.limit());
            assertEquals(ROWS, oom.rows());
            assertInstanceOf(OutOfMemoryException.class, oom.getCause());
            assertInstanceOf(ResourceException.class, oom, "as documented: the allocator cannot give memory");
            assertEquals(0, limited.getAllocatedMemory());
        }
    }

    @Test
    void aFusedKernelSaysWhichDeviceItWasFor() {
        CompiledExpression e = quiver.compile(StressFixtures.SCHEMA, "sqrt(x * x + y * y) * 2.5 - x");
        try (VectorSchemaRoot b = StressFixtures.batch(allocator, ROWS, 3, false)) {
            for (Placement p : StressFixtures.placements(quiver)) {
                try (BufferAllocator limited = allocator.newChildAllocator("results", 0, 1000)) {
                    QuiverOutOfMemoryException oom = assertThrows(
                            QuiverOutOfMemoryException.class,
                            () -> e.evaluate(b, p, limited).close());
                    assertTrue(oom.getMessage().endsWith(" (fused kernel)"), oom.getMessage());
                    if (p == Placement.OPENCL) {
                        assertTrue(
                                quiver.openClDevices().stream()
                                        .anyMatch(d -> oom.device().startsWith(d.name())),
                                oom.getMessage());
                    } else if (p == Placement.CPU) {
                        assertTrue(
                                oom.device()
                                        .startsWith(quiver.devices().getFirst().name()),
                                oom.getMessage());
                    }
                    assertEquals(0, limited.getAllocatedMemory());
                }
            }
            for (Device d : quiver.openClDevices()) {
                assertEquals(
                        DeviceHealth.State.HEALTHY,
                        quiver.health(d).state(),
                        quiver.health(d).describe());
            }
            try (FieldVector onCpu = e.evaluate(b, Placement.CPU)) {
                for (Placement p : StressFixtures.placements(quiver)) {
                    try (FieldVector v = e.evaluate(b, p)) {
                        assertEquals(-1, StressFixtures.firstDifference(onCpu, v), p.toString());
                    }
                }
            }
        }
    }

    @Test
    void aRootAllocatorWithALimitAndALimitedParentAreNamed() {
        CompiledExpression e = quiver.compile(StressFixtures.SCHEMA, "upper(s)");
        try (VectorSchemaRoot b = StressFixtures.batch(allocator, ROWS, 5, false)) {
            try (RootAllocator root = new RootAllocator(4096)) {
                QuiverOutOfMemoryException oom = assertThrows(
                        QuiverOutOfMemoryException.class,
                        () -> e.evaluate(b, Placement.AUTO, root).close());
                assertEquals(4096, oom.limit(), oom.getMessage());
                assertEquals(0, root.getAllocatedMemory());
            }
            // A child with no limit of its own under a parent that has one: the parent is the one named.
            try (BufferAllocator parent = allocator.newChildAllocator("parent", 0, 10_000);
                    BufferAllocator child = parent.newChildAllocator("child", 0, Long.MAX_VALUE)) {
                QuiverOutOfMemoryException oom = assertThrows(
                        QuiverOutOfMemoryException.class,
                        () -> e.evaluate(b, Placement.CPU, child).close());
                assertTrue(oom.getMessage().contains("allocator 'parent' limit 10000 bytes"), oom.getMessage());
                assertEquals(0, parent.getAllocatedMemory());
            }
        }
    }

    @Test
    void aSmallerBatchFitsWhereALargerOneDidNot() {
        for (String sql : StressFixtures.EXPRESSIONS) {
            if (sql.equals("i / d")) {
                continue;
            }
            CompiledExpression e = quiver.compile(StressFixtures.SCHEMA, sql);
            try (VectorSchemaRoot small = StressFixtures.batch(allocator, 64, 9, false);
                    VectorSchemaRoot large = StressFixtures.batch(allocator, ROWS, 9, false)) {
                long smallPeak;
                try (BufferAllocator probe = allocator.newChildAllocator("probe", 0, Long.MAX_VALUE)) {
                    e.evaluate(small, Placement.CPU, probe).close();
                    smallPeak = probe.getPeakMemoryAllocation();
                }
                try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, smallPeak)) {
                    assertThrows(
                            QuiverOutOfMemoryException.class,
                            () -> e.evaluate(large, Placement.CPU, limited).close(),
                            sql);
                    assertEquals(0, limited.getAllocatedMemory(), sql);
                    try (FieldVector v = e.evaluate(small, Placement.CPU, limited);
                            FieldVector expected = e.evaluate(small, Placement.CPU)) {
                        assertEquals(-1, StressFixtures.firstDifference(expected, v), sql);
                    }
                }
            }
        }
    }

    @Test
    void filterAndSelectRaiseTheSameException() {
        CompiledExpression e = quiver.compile(StressFixtures.SCHEMA, "x < y AND s <> 'ab'");
        try (VectorSchemaRoot b = StressFixtures.batch(allocator, ROWS, 5, false)) {
            List<Long> limits = new ArrayList<>(List.of(0L, 600L, 5_000L, 40_000L));
            for (long limit : limits) {
                try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, limit)) {
                    try (VectorSchemaRoot kept = e.filter(b, Placement.CPU, limited)) {
                        fail("filtered " + kept.getRowCount() + " rows under " + limit);
                    } catch (QuiverOutOfMemoryException oom) {
                        assertTrue(oom.getMessage().startsWith("out of memory evaluating "), oom.getMessage());
                    }
                    assertEquals(0, limited.getAllocatedMemory());
                }
            }
        }
    }

    private void assertClear(
            QuiverOutOfMemoryException oom, CompiledExpression e, Placement p, String allocatorName, long limit) {
        String m = oom.getMessage();
        String where = e.plan().logical() + " on " + p + " under " + limit + ": " + m;
        assertTrue(m.startsWith("out of memory evaluating " + e.plan().logical() + " (needed "), where);
        assertTrue(m.contains("allocator '" + allocatorName + "' limit " + limit + " bytes"), where);
        assertTrue(m.contains(" at a batch of " + ROWS + " rows on "), where);
        // Arrow's ListVector.allocateNew swallows the size it failed on ("Failure while allocating memory").
        assertTrue(oom.neededBytes() > 0 || m.contains("(needed an unknown number of bytes;"), where);
        assertInstanceOf(OutOfMemoryException.class, oom.getCause(), where);
    }
}
