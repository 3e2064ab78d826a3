package dev.quiver.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

class ArrowExportTest extends AllocatorTestBase {
    /**
     * Every type: Spark columns copied to Arrow, exported as a batch, read back through the
     * batch's ColumnVectors and its rows, equal to the Spark columns; closing the batch frees
     * every vector.
     */
    @Test
    void roundTripsEveryTypeAndClosingTheBatchFreesTheVectors() {
        int rows = 37;
        List<OnHeapColumnVector> sources = new ArrayList<>();
        List<FieldVector> vectors = new ArrayList<>();
        Random r = new Random(11);
        for (DataType t : ColumnFixtures.TYPES) {
            OnHeapColumnVector s = new OnHeapColumnVector(rows, t);
            for (int i = 0; i < rows; i++) {
                ColumnFixtures.put(s, i, ColumnFixtures.value(t, r, i));
                if (i % 5 == 4) {
                    s.putNull(i);
                }
            }
            sources.add(s);
            vectors.add(ArrowImport.copy(s, rows, SparkArrowTypes.field("c" + vectors.size(), t, true), allocator));
        }
        try (ColumnarBatch batch = ArrowExport.batch(vectors, rows)) {
            assertEquals(rows, batch.numRows());
            assertEquals(vectors.size(), batch.numCols());
            for (int c = 0; c < vectors.size(); c++) {
                ColumnVector column = batch.column(c);
                assertSame(vectors.get(c), ArrowImport.arrowVectorOf(column));
                assertEquals(sources.get(c).dataType(), column.dataType());
                for (int i = 0; i < rows; i++) {
                    assertEquals(
                            ColumnFixtures.read(sources.get(c), i),
                            ColumnFixtures.read(column, i),
                            "column " + c + " row " + i);
                }
            }
            Iterator<InternalRow> it = batch.rowIterator();
            for (int i = 0; i < rows; i++) {
                InternalRow row = it.next();
                for (int c = 0; c < vectors.size(); c++) {
                    assertEquals(
                            ColumnFixtures.read(sources.get(c), i),
                            ColumnFixtures.read(row, c, sources.get(c).dataType()));
                }
            }
            assertTrue(allocator.getAllocatedMemory() > 0);
        }
        assertEquals(0, allocator.getAllocatedMemory(), "closing the batch closes its Arrow vectors");
        sources.forEach(OnHeapColumnVector::close);
    }

    @Test
    void anEmptyBatch() {
        try (IntVector v = new IntVector("x", allocator)) {
            v.setValueCount(0);
            ColumnarBatch batch = ArrowExport.batch(List.of(v), 0);
            assertEquals(0, batch.numRows());
            assertEquals(1, batch.numCols());
            batch.close();
        }
        try (ColumnarBatch none = ArrowExport.batch(List.of(), 5)) {
            assertEquals(5, none.numRows());
        }
    }

    /** A failed export takes nothing over: the caller's vectors are still open and the caller closes them. */
    @Test
    void rejectsShortAndUnsupportedVectorsWithoutClosingThem() {
        try (IntVector shortVector = new IntVector("x", allocator);
                UInt4Vector unsigned = new UInt4Vector("u", allocator)) {
            shortVector.allocateNew(2);
            shortVector.setValueCount(2);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ArrowExport.batch(List.of(shortVector), 3));
            assertTrue(e.getMessage().contains("fewer than the batch's 3 rows"), e.getMessage());
            unsigned.allocateNew(2);
            unsigned.setValueCount(2);
            e = assertThrows(
                    IllegalArgumentException.class, () -> ArrowExport.batch(List.of(shortVector, unsigned), 2));
            assertTrue(e.getMessage().contains("has no Spark column type"), e.getMessage());
            assertTrue(shortVector.getDataBuffer().capacity() > 0, "the vector must still be open");
        }
    }
}
