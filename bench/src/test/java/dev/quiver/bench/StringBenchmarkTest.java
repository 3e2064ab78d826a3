package dev.quiver.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Quiver;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StringBenchmark}'s data has the shape its javadoc promises, its baselines compute
 * {@code String.contains} and {@code toUpperCase}, and the check its setup runs passes on its
 * real first batch and on short batches (no JMH run).
 */
class StringBenchmarkTest {
    private BufferAllocator allocator;
    private Quiver quiver;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).openCl(false).build();
    }

    @AfterEach
    void close() {
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    @Test
    void theDataHasTheAdvertisedShape() {
        List<VectorSchemaRoot> batches = StringBatches.generate(
                allocator, StringBenchmark.SEED, 4L * StringBenchmark.BATCH_ROWS, StringBenchmark.BATCH_ROWS);
        try {
            assertEquals(4, batches.size());
            long rows = 0;
            long nulls = 0;
            long matches = 0;
            long splits = 0;
            long[] where = new long[3];
            for (VectorSchemaRoot batch : batches) {
                VarCharVector s = (VarCharVector) batch.getVector(0);
                assertEquals(StringBenchmark.BATCH_ROWS, s.getValueCount());
                for (int i = 0; i < s.getValueCount(); i++) {
                    rows++;
                    // Null or not, every row has 5 to 20 bytes of the alphabet behind it.
                    String text = new String(bytesBehind(s, i), StandardCharsets.US_ASCII);
                    assertTrue(
                            text.length() >= StringBatches.MIN_LENGTH && text.length() <= StringBatches.MAX_LENGTH,
                            text);
                    assertTrue(text.chars().allMatch(c -> StringBatches.ALPHABET.indexOf(c) >= 0), text);
                    if (s.isNull(i)) {
                        nulls++;
                        assertTrue(text.contains("abc"), "garbage that would match stays behind a null: " + text);
                        continue;
                    }
                    if (text.contains("abc")) {
                        matches++;
                        int at = text.indexOf("abc");
                        where[at == 0 ? 0 : text.endsWith("abc") && at == text.length() - 3 ? 2 : 1]++;
                    }
                    if (i + 1 < s.getValueCount()
                            && text.endsWith("ab")
                            && !s.isNull(i + 1)
                            && new String(s.get(i + 1), StandardCharsets.US_ASCII).startsWith("c")) {
                        splits++;
                    }
                }
            }
            double nullFraction = (double) nulls / rows;
            double matchFraction = (double) matches / (rows - nulls);
            assertTrue(nullFraction > 0.008 && nullFraction < 0.012, "nulls " + nullFraction);
            assertTrue(matchFraction > 0.095 && matchFraction < 0.105, "matches " + matchFraction);
            for (long w : where) {
                assertTrue(w > matches / 5, "start, middle, end: " + Arrays.toString(where));
            }
            assertTrue(splits > rows / 200, "rows ending in 'ab' followed by a row starting with 'c': " + splits);
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void theSameSeedGivesTheSameData() {
        List<VectorSchemaRoot> a = StringBatches.generate(allocator, 7, 1000, 300);
        List<VectorSchemaRoot> b = StringBatches.generate(allocator, 7, 1000, 300);
        try {
            assertEquals(
                    List.of(300, 300, 300, 100),
                    a.stream().map(VectorSchemaRoot::getRowCount).toList());
            for (int k = 0; k < a.size(); k++) {
                assertEquals(a.get(k).contentToTSVString(), b.get(k).contentToTSVString());
            }
        } finally {
            a.forEach(VectorSchemaRoot::close);
            b.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void theBaselinesComputeJavaStringSemantics() {
        try (VarCharVector s = new VarCharVector("s", allocator)) {
            s.allocateNew(3);
            s.setSafe(0, "xxabcxx".getBytes(StandardCharsets.UTF_8));
            s.setSafe(1, "abcab".getBytes(StandardCharsets.UTF_8));
            s.setNull(1);
            s.setSafe(2, "é ab c".getBytes(StandardCharsets.UTF_8));
            s.setValueCount(3);
            try (BitVector contains = StringBenchmark.containsPerRow(s, "abc", allocator);
                    VarCharVector upper = StringBenchmark.upperPerRow(s, allocator)) {
                assertEquals(1, contains.getObject(0) ? 1 : 0);
                assertNull(contains.getObject(1));
                assertFalse(contains.getObject(2));
                assertArrayEquals("XXABCXX".getBytes(StandardCharsets.UTF_8), upper.get(0));
                assertTrue(upper.isNull(1));
                assertEquals("é ab c".toUpperCase(Locale.ROOT), new String(upper.get(2), StandardCharsets.UTF_8));
            }
        }
    }

    /** The check StringBenchmark's setup runs, on its real first batch (the full 64K rows). */
    @Test
    void quiverAgreesWithTheBaselinesOnTheBenchmarksFirstBatch() {
        List<VectorSchemaRoot> batches = StringBatches.generate(
                allocator, StringBenchmark.SEED, StringBenchmark.BATCH_ROWS, StringBenchmark.BATCH_ROWS);
        try {
            String report = check(batches.getFirst());
            assertTrue(
                    report.contains(StringBenchmark.LIKE_SQL + " equal")
                            && report.contains(StringBenchmark.UPPER_SQL + " equal"),
                    report);
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void quiverAgreesWithTheBaselinesOnShortBatches() {
        for (int rows : new int[] {0, 1, 63, 64, 65, 1000}) {
            List<VectorSchemaRoot> batches = StringBatches.generate(allocator, 1000 + rows, rows, Math.max(rows, 1));
            try {
                assertEquals(1, batches.size());
                assertEquals(rows, batches.getFirst().getRowCount());
                check(batches.getFirst());
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    @Test
    void containsAgreesWithTheBaselineWhereTheBuildHasIt() {
        CompiledExpression contains = StringBenchmark.compileContains(quiver);
        assumeTrue(contains != null, StringBenchmark.whyNoContains());
        List<VectorSchemaRoot> batches = StringBatches.generate(
                allocator, StringBenchmark.SEED, StringBenchmark.BATCH_ROWS, StringBenchmark.BATCH_ROWS);
        try {
            String report = check(batches.getFirst());
            assertTrue(report.contains(StringBenchmark.CONTAINS_SQL + " equal"), report);
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void theCheckFailsWhenQuiverDiffers() {
        List<VectorSchemaRoot> batches = StringBatches.generate(allocator, 3, 1000, 1000);
        try {
            // lower(s) is not upper(s): the check must notice.
            CompiledExpression like = quiver.compile(StringBatches.schema(), StringBenchmark.LIKE_SQL);
            CompiledExpression lower = quiver.compile(StringBatches.schema(), "lower(s)");
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> StringBenchmark.check(like, null, lower, batches.getFirst(), allocator));
            assertTrue(e.getMessage().startsWith(StringBenchmark.UPPER_SQL + ": row "), e.getMessage());
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    private String check(VectorSchemaRoot batch) {
        CompiledExpression like = quiver.compile(StringBatches.schema(), StringBenchmark.LIKE_SQL);
        CompiledExpression upper = quiver.compile(StringBatches.schema(), StringBenchmark.UPPER_SQL);
        return StringBenchmark.check(like, StringBenchmark.compileContains(quiver), upper, batch, allocator);
    }

    /** The bytes between row {@code i}'s offsets, whether the row is null or not. */
    private static byte[] bytesBehind(VarCharVector s, int i) {
        int start = s.getStartOffset(i);
        int end = s.getEndOffset(i);
        byte[] bytes = new byte[end - start];
        s.getDataBuffer().getBytes(start, bytes);
        return bytes;
    }
}
