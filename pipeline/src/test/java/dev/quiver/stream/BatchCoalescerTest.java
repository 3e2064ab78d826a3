package dev.quiver.stream;

import static dev.quiver.stream.TestRows.SCHEMA;
import static dev.quiver.stream.TestRows.batch;
import static dev.quiver.stream.TestRows.random;
import static dev.quiver.stream.TestRows.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The coalescer regroups random batches into full ones in order, hands out a pushed batch itself
 * when it can, owns what it is given, and, with a RootAllocator per test, leaks nothing.
 */
class BatchCoalescerTest {
    private final RootAllocator allocator = new RootAllocator();

    @AfterEach
    void nothingLeaks() {
        assertEquals(0, allocator.getAllocatedMemory(), "a test leaked Arrow memory");
        allocator.close();
    }

    /** A pushed batch: its rows and the memory it was allocated. */
    private record Pushed(int rows, long bytes) {}

    @ParameterizedTest
    @ValueSource(ints = {64, 8192})
    void aThousandRandomBatchesComeOutInOrderAsFullBatches(int target) {
        Random random = new Random(target);
        List<List<Object>> in = new ArrayList<>();
        List<List<Object>> out = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        List<Pushed> pushed = new ArrayList<>();
        int sameInstance = 0;
        try (BatchCoalescer c = new BatchCoalescer(SCHEMA, target, allocator)) {
            for (int k = 0; k < 1000; k++) {
                List<List<Object>> rows = random(random, in.size(), random.nextInt(301));
                in.addAll(rows);
                long before = allocator.getAllocatedMemory();
                VectorSchemaRoot b = batch(allocator, rows);
                if (!rows.isEmpty()) {
                    pushed.add(new Pushed(rows.size(), allocator.getAllocatedMemory() - before));
                }
                c.push(b);
                assertEquals(in.size() - out.size(), c.bufferedRows());
                for (VectorSchemaRoot polled; (polled = c.pollFull()) != null; ) {
                    VectorSchemaRoot o = polled;
                    sameInstance += o == b ? 1 : 0;
                    try (o) {
                        assertEquals(SCHEMA, o.getSchema());
                        sizes.add(o.getRowCount());
                        out.addAll(rows(o));
                    }
                }
                assertFalse(c.hasFull());
                // Only the pushed batches that still hold buffered rows are allocated.
                long bound = 0;
                for (int p = pushed.size() - 1, left = c.bufferedRows(); p >= 0 && left > 0; p--) {
                    bound += pushed.get(p).bytes();
                    left -= pushed.get(p).rows();
                }
                assertTrue(
                        allocator.getAllocatedMemory() <= bound,
                        "allocated " + allocator.getAllocatedMemory() + " > " + bound + " after batch " + k);
            }
            for (VectorSchemaRoot polled; (polled = c.poll(target)) != null; ) {
                VectorSchemaRoot o = polled;
                try (o) {
                    sizes.add(o.getRowCount());
                    out.addAll(rows(o));
                }
            }
            assertEquals(0, c.bufferedRows());
            assertNull(c.pollFull());
        }
        assertEquals(in.size(), out.size());
        assertEquals(in, out);
        for (int k = 0; k < sizes.size() - 1; k++) {
            assertEquals(target, sizes.get(k), "output " + k);
        }
        int last = sizes.get(sizes.size() - 1);
        assertTrue(last >= 1 && last <= target, "last " + last);
        assertTrue(in.size() > 100_000, "rows " + in.size());
        if (target == 64) {
            assertTrue(sameInstance < sizes.size(), "not everything is zero copy");
        }
    }

    @Test
    void pollsOfRandomSizesKeepTheOrder() {
        Random random = new Random(3);
        List<List<Object>> in = new ArrayList<>();
        List<List<Object>> out = new ArrayList<>();
        try (BatchCoalescer c = new BatchCoalescer(SCHEMA, 100, allocator)) {
            for (int k = 0; k < 300; k++) {
                List<List<Object>> rows = random(random, in.size(), random.nextInt(60));
                in.addAll(rows);
                c.push(batch(allocator, rows));
                while (random.nextBoolean()) {
                    int max = 1 + random.nextInt(150);
                    int buffered = c.bufferedRows();
                    VectorSchemaRoot o = c.poll(max);
                    if (buffered == 0) {
                        assertNull(o);
                        break;
                    }
                    try (o) {
                        assertEquals(Math.min(max, buffered), o.getRowCount());
                        assertEquals(buffered - o.getRowCount(), c.bufferedRows());
                        out.addAll(rows(o));
                    }
                }
            }
            for (VectorSchemaRoot polled; (polled = c.poll(7)) != null; ) {
                VectorSchemaRoot o = polled;
                try (o) {
                    out.addAll(rows(o));
                }
            }
        }
        assertEquals(in, out);
    }

    @Test
    void aPushedBatchOfExactlyTheRowsAskedForIsReturnedItself() {
        Random random = new Random(4);
        try (BatchCoalescer c = new BatchCoalescer(SCHEMA, 8, allocator)) {
            VectorSchemaRoot ten = batch(allocator, random(random, 0, 10));
            c.push(ten);
            assertTrue(c.hasFull());
            try (VectorSchemaRoot o = c.poll(10)) {
                assertSame(ten, o, "zero copy: the pushed batch itself");
            }

            List<List<Object>> ref = random(random, 0, 15);
            VectorSchemaRoot three = batch(allocator, ref.subList(0, 3));
            VectorSchemaRoot five = batch(allocator, ref.subList(3, 8));
            VectorSchemaRoot seven = batch(allocator, ref.subList(8, 15));
            c.push(three);
            assertFalse(c.hasFull());
            assertNull(c.pollFull());
            c.push(five);
            assertTrue(c.hasFull());
            try (VectorSchemaRoot o = c.pollFull()) {
                assertEquals(ref.subList(0, 8), rows(o), "3 + 5 rows concatenated");
            }
            assertEquals(0, three.getVector(0).getValueCount(), "the coalescer closed the batches it emptied");
            c.push(seven);
            assertEquals(7, c.bufferedRows());
            assertFalse(c.hasFull());
            assertNull(c.pollFull());
            try (VectorSchemaRoot o = c.poll(100)) {
                assertSame(seven, o);
            }
            assertNull(c.poll(1));

            List<List<Object>> ref25 = random(random, 0, 25);
            VectorSchemaRoot big = batch(allocator, ref25);
            c.push(big);
            try (VectorSchemaRoot a = c.pollFull();
                    VectorSchemaRoot b = c.pollFull();
                    VectorSchemaRoot d = c.pollFull()) {
                assertNotSame(big, a);
                assertEquals(ref25.subList(0, 8), rows(a));
                assertEquals(ref25.subList(8, 16), rows(b));
                assertEquals(ref25.subList(16, 24), rows(d));
            }
            try (VectorSchemaRoot last = c.poll(8)) {
                assertNotSame(big, last, "the rest of a batch already sliced is a slice");
                assertEquals(ref25.subList(24, 25), rows(last));
            }
            assertEquals(0, big.getVector(0).getValueCount(), "the coalescer closed the emptied batch");
        }
    }

    @Test
    void aBatchOfAnotherSchemaIsRejectedAndClosed() {
        Schema other = new Schema(List.of(Field.nullable("j", new ArrowType.Int(32, true))));
        try (BatchCoalescer c = new BatchCoalescer(SCHEMA, 10, allocator)) {
            VectorSchemaRoot b = VectorSchemaRoot.create(other, allocator);
            b.allocateNew();
            b.setRowCount(5);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.push(b));
            assertTrue(e.getMessage().contains("differs"), e.getMessage());
            assertEquals(0, allocator.getAllocatedMemory(), "the rejected batch was closed");

            Schema notNull = new Schema(List.of(
                    Field.notNullable("i", new ArrowType.Int(32, true)),
                    SCHEMA.getFields().get(1),
                    SCHEMA.getFields().get(2),
                    SCHEMA.getFields().get(3)));
            VectorSchemaRoot n = VectorSchemaRoot.create(notNull, allocator);
            n.allocateNew();
            n.setRowCount(3);
            assertThrows(IllegalArgumentException.class, () -> c.push(n));

            VectorSchemaRoot ragged = batch(allocator, random(new Random(5), 0, 12));
            ragged.getVector(2).setValueCount(11);
            e = assertThrows(IllegalArgumentException.class, () -> c.push(ragged));
            assertTrue(e.getMessage().contains("11 values"), e.getMessage());
            assertEquals(0, allocator.getAllocatedMemory());
            assertEquals(0, c.bufferedRows());
        }
    }

    @Test
    void zeroRowBatchesAreClosedAndIgnored() {
        try (BatchCoalescer c = new BatchCoalescer(SCHEMA, 10, allocator)) {
            VectorSchemaRoot empty = VectorSchemaRoot.create(SCHEMA, allocator);
            empty.allocateNew();
            empty.setRowCount(0);
            assertTrue(allocator.getAllocatedMemory() > 0);
            c.push(empty);
            assertEquals(0, allocator.getAllocatedMemory());
            assertEquals(0, c.bufferedRows());
            assertNull(c.poll(1));
            assertNull(c.pollFull());
        }
    }

    @Test
    void closeFreesTheBufferedBatchesWhilePolledOnesStayValid() {
        List<List<Object>> ref = random(new Random(6), 0, 30);
        BatchCoalescer c = new BatchCoalescer(SCHEMA, 4, allocator);
        c.push(batch(allocator, ref.subList(0, 13)));
        c.push(batch(allocator, ref.subList(13, 30)));
        VectorSchemaRoot slice = c.pollFull();
        VectorSchemaRoot spanning = c.poll(11);
        c.close();
        assertEquals(0, c.bufferedRows());
        c.close(); // idempotent
        assertEquals(ref.subList(0, 4), rows(slice), "a slice outlives the coalescer and its pushed batch");
        assertEquals(ref.subList(4, 15), rows(spanning));
        slice.close();
        spanning.close();
        assertEquals(0, allocator.getAllocatedMemory());

        VectorSchemaRoot late = batch(allocator, ref);
        assertThrows(IllegalStateException.class, () -> c.push(late));
        assertEquals(0, allocator.getAllocatedMemory(), "a batch pushed after close is closed");
        assertThrows(IllegalStateException.class, () -> c.poll(1));
        assertThrows(IllegalStateException.class, c::pollFull);
    }

    @Test
    void argumentsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new BatchCoalescer(SCHEMA, 0, allocator));
        try (BatchCoalescer c = new BatchCoalescer(SCHEMA, 1, allocator)) {
            assertThrows(IllegalArgumentException.class, () -> c.poll(0));
            assertEquals(1, c.targetRows());
            assertEquals(SCHEMA, c.schema());
        }
    }

    @Test
    void aPollThatFailsForMemoryRemovesNothingAndLeavesNothingAllocated() {
        List<List<Object>> ref = random(new Random(7), 0, 35);
        try (BufferAllocator limited = allocator.newChildAllocator("coalescer", 0, 0);
                BatchCoalescer c = new BatchCoalescer(SCHEMA, 8, limited)) {
            c.push(batch(allocator, ref.subList(0, 3)));
            c.push(batch(allocator, ref.subList(3, 8)));
            c.push(batch(allocator, ref.subList(8, 35)));
            assertThrows(OutOfMemoryException.class, c::pollFull, "a concatenation allocates");
            assertEquals(35, c.bufferedRows());
            assertEquals(0, limited.getAllocatedMemory());
            limited.setLimit(Long.MAX_VALUE);
            try (VectorSchemaRoot o = c.pollFull()) {
                assertEquals(ref.subList(0, 8), rows(o));
            }
            try (VectorSchemaRoot o = c.poll(3)) {
                assertEquals(ref.subList(8, 11), rows(o), "an aligned slice");
            }
            limited.setLimit(0);
            assertThrows(OutOfMemoryException.class, () -> c.poll(5), "a slice at offset 3 re-packs the validity bits");
            assertEquals(24, c.bufferedRows());
            assertEquals(0, limited.getAllocatedMemory());
            limited.setLimit(Long.MAX_VALUE);
            List<List<Object>> rest = new ArrayList<>();
            for (VectorSchemaRoot polled; (polled = c.poll(5)) != null; ) {
                VectorSchemaRoot o = polled;
                try (o) {
                    rest.addAll(rows(o));
                }
            }
            assertEquals(ref.subList(11, 35), rest);
        }
    }
}
