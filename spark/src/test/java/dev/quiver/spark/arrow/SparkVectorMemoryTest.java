package dev.quiver.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.spark.sql.execution.columnar.ColumnDictionary;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/** Spark's vectors are read in place (this Spark's layout is the one the code knows), dictionaries are not. */
class SparkVectorMemoryTest {

    @Test
    void onHeapAndOffHeapDoublesAreReadInPlace() {
        for (WritableColumnVector v : new WritableColumnVector[] {
            new OnHeapColumnVector(10, DataTypes.DoubleType), new OffHeapColumnVector(10, DataTypes.DoubleType)
        }) {
            for (int i = 0; i < 10; i++) {
                v.putDouble(i, i * 1.5);
            }
            MemorySegment m = SparkVectorMemory.values(v, double.class, 10);
            assertNotNull(m, v.getClass().getSimpleName() + ": read in place");
            assertEquals(80, m.byteSize());
            for (int i = 0; i < 10; i++) {
                assertEquals(i * 1.5, m.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i));
            }
            v.close();
        }
    }

    @Test
    void everyPrimitiveOfAnOnHeapVectorIsFound() {
        Object[][] cases = {
            {DataTypes.ByteType, byte.class},
            {DataTypes.ShortType, short.class},
            {DataTypes.IntegerType, int.class},
            {DataTypes.LongType, long.class},
            {DataTypes.FloatType, float.class},
            {DataTypes.DoubleType, double.class}
        };
        for (Object[] c : cases) {
            try (OnHeapColumnVector v = new OnHeapColumnVector(4, (DataType) c[0])) {
                assertNotNull(SparkVectorMemory.values(v, (Class<?>) c[1], 4), c[0].toString());
            }
        }
    }

    @Test
    void aVectorWithADictionaryIsNotReadInPlace() {
        try (OnHeapColumnVector v = new OnHeapColumnVector(4, DataTypes.IntegerType)) {
            v.setDictionary(new ColumnDictionary(new int[] {7, 8}));
            assertNull(SparkVectorMemory.values(v, int.class, 4));
        }
    }
}
