package dev.quiver.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Heap copies of flat vectors as contents keys: equal contents compare equal, any change in place is seen, no Arrow memory is kept. */
class VectorContentsTest {
    private BufferAllocator allocator;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void close() {
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    @Test
    void aCopyMatchesItsVectorAndAnotherVectorWithTheSameValues() {
        List<DataType> types =
                List.of(DataType.UTF8, DataType.LARGE_UTF8, DataType.INT32, DataType.BOOLEAN, DataType.FLOAT64);
        List<List<Object>> values = List.of(
                Arrays.asList("a", null, "", "é", "longer text"),
                Arrays.asList(null, "x", "yz"),
                Arrays.asList(1, null, -3, Integer.MIN_VALUE),
                Arrays.asList(true, false, null, true, true),
                Arrays.asList(0.5, -0.0, null));
        for (int i = 0; i < types.size(); i++) {
            try (FieldVector v = Values.of(types.get(i), "v", values.get(i), allocator);
                    FieldVector same = Values.of(types.get(i), "w", values.get(i), allocator)) {
                VectorContents c = VectorContents.copyOf(v);
                assertEquals(values.get(i).size(), c.valueCount());
                assertTrue(c.sameContents(v), types.get(i).toString());
                assertTrue(c.sameContents(same), types.get(i) + ": another vector, the same bytes");
            }
        }
    }

    @Test
    void aChangeInPlaceIsSeen() {
        try (VarCharVector v = new VarCharVector("d", allocator)) {
            fill(v, "AIR", "MAIL", "SHIP");
            VectorContents c = VectorContents.copyOf(v);
            fill(v, "AIR", "MAIL", "SHIP");
            assertTrue(c.sameContents(v), "the same bytes again");
            fill(v, "AIR", "MAIL", "SHIQ");
            assertFalse(c.sameContents(v), "one byte changed in the same vector");
            fill(v, "AIR", "MAIL");
            assertFalse(c.sameContents(v), "fewer values");
            fill(v, "AIR", "MAIL", "SHIP");
            v.setNull(1);
            assertFalse(c.sameContents(v), "a value became null");
        }
        try (IntVector i = new IntVector("i", allocator);
                LargeVarCharVector l = new LargeVarCharVector("l", allocator)) {
            i.allocateNew(3);
            i.setValueCount(3);
            l.allocateNew(3);
            l.setValueCount(3);
            assertFalse(VectorContents.copyOf(i).sameContents(l), "another kind of vector");
        }
    }

    @Test
    void nestedVectorsAreNotCopied() {
        try (ListVector list = ListVector.empty("l", allocator);
                BitVector bits = new BitVector("b", allocator)) {
            list.allocateNew();
            list.setValueCount(0);
            assertNull(VectorContents.copyOf(list));
            bits.allocateNew(10);
            bits.setValueCount(10);
            assertEquals(4, VectorContents.copyOf(bits).bytes());
        }
    }

    private static void fill(VarCharVector v, String... values) {
        v.reset();
        for (int i = 0; i < values.length; i++) {
            v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
        }
        v.setValueCount(values.length);
    }
}
