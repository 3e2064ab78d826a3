package dev.quiver.spark.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The node's per-partition iterator without Spark's scheduler: Arrow input is shared (no copy,
 * the producer's vectors intact and its allocator where it was), other vectors copied, batches
 * freed when the next is asked for, everything at the end.
 */
class QuiverBatchesTest {
    /** Another component's Arrow memory (Spark's own allocator, say): a different root. */
    private final BufferAllocator producer = new RootAllocator();

    @AfterEach
    void zero() {
        assertEquals(0, producer.getAllocatedMemory(), "the producer's vectors were freed by their owner");
        producer.close();
        assertEquals(0, ExecutorQuivers.allocatedBytes(), "the partition freed everything");
    }

    private static NodeSpec spec(String filter) {
        return new NodeSpec(
                List.of(1L),
                List.of(DataTypes.DoubleType),
                1,
                filter,
                List.of(new NodeSpec.Column("y", "c0 * 2.0", -1), new NodeSpec.Column("x", null, 0)),
                null,
                List.of(),
                Placement.CPU,
                List.of());
    }

    private static Iterator<Object> iterator(List<ColumnarBatch> batches) {
        List<Object> objects = new ArrayList<>(batches);
        return CollectionConverters.asScala(objects.iterator());
    }

    @Test
    void arrowInputIsSharedAndTheProducersVectorsStayIntact() {
        List<ColumnarBatch> in = new ArrayList<>();
        List<Float8Vector> vectors = new ArrayList<>();
        for (int b = 0; b < 3; b++) {
            Float8Vector v = new Float8Vector("x", producer);
            v.allocateNew(5);
            for (int i = 0; i < 5; i++) {
                if (i == 3) {
                    v.setNull(i);
                } else {
                    v.set(i, b * 10 + i + 0.5);
                }
            }
            v.setValueCount(5);
            vectors.add(v);
            in.add(new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(v)}, 5));
        }
        long producerBytes = producer.getAllocatedMemory();
        QuiverBatches f = new QuiverBatches(
                spec(null), new int[] {0}, false, 1024, Map.of(), new StructType().add("x", DataTypes.DoubleType));
        Iterator<ColumnarBatch> out = f.apply(iterator(in));
        int b = 0;
        while (out.hasNext()) {
            ColumnarBatch batch = out.next();
            assertEquals(5, batch.numRows());
            for (int i = 0; i < 5; i++) {
                if (i == 3) {
                    assertTrue(batch.column(0).isNullAt(i));
                } else {
                    assertEquals((b * 10 + i + 0.5) * 2, batch.column(0).getDouble(i));
                }
            }
            assertSame(in.get(b).column(0), batch.column(1), "a pass-through column is the child's vector");
            assertEquals(
                    producerBytes, producer.getAllocatedMemory(), "shared, not copied into the producer's allocator");
            b++;
        }
        assertEquals(3, b);
        for (int k = 0; k < 3; k++) {
            assertEquals(
                    k * 10 + 0.5, vectors.get(k).get(0), "the producer's vector is intact after its batch was freed");
            vectors.get(k).close();
        }
    }

    @Test
    void otherVectorsAreCopiedAndAFilterCompactsPassThroughColumns() {
        OnHeapColumnVector v = new OnHeapColumnVector(6, DataTypes.DoubleType);
        double[] values = {1, -2, 3, -4, 5, Double.NaN};
        for (int i = 0; i < values.length; i++) {
            v.putDouble(i, values[i]);
        }
        v.putNull(4);
        ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {v}, 6);
        QuiverBatches f = new QuiverBatches(
                spec("c0 > 0"), new int[] {0}, false, 1024, Map.of(), new StructType().add("x", DataTypes.DoubleType));
        Iterator<ColumnarBatch> out = f.apply(iterator(List.of(batch)));
        assertTrue(out.hasNext());
        ColumnarBatch r = out.next();
        // kept: 1, 3, NaN (NaN is above every number); -2, -4 and NULL dropped
        assertEquals(3, r.numRows());
        assertEquals(2.0, r.column(0).getDouble(0));
        assertEquals(3.0, r.column(1).getDouble(1));
        assertTrue(Double.isNaN(r.column(1).getDouble(2)));
        assertFalse(out.hasNext());
        v.close();
    }
}
