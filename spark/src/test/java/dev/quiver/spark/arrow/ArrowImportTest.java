package dev.quiver.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ArrowImportTest extends AllocatorTestBase {
    private static final long SEED = 20_250_315L;

    enum Kind {
        ON_HEAP(OnHeapColumnVector::new),
        OFF_HEAP(OffHeapColumnVector::new);

        final BiFunction<Integer, DataType, WritableColumnVector> create;

        Kind(BiFunction<Integer, DataType, WritableColumnVector> create) {
            this.create = create;
        }
    }

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (DataType t : ColumnFixtures.TYPES) {
                for (int rows : new int[] {0, 1, 7, 64, 1000}) {
                    for (boolean nulls : new boolean[] {false, true}) {
                        all.add(Arguments.of(kind, t.simpleString(), t, rows, nulls));
                    }
                }
            }
        }
        return all.stream();
    }

    /**
     * A column of {@code rows + 3} values: hostile values first, then random ones (seeded);
     * with {@code nulls}, the first, the last copied and about a third of the rows null, each
     * with a garbage value written behind it. The three rows past {@code rows} are not copied.
     */
    private static WritableColumnVector column(Kind kind, DataType t, int rows, boolean nulls) {
        int capacity = rows + 3;
        WritableColumnVector v = kind.create.apply(capacity, t);
        Random r = new Random(SEED ^ rows ^ t.hashCode());
        Random garbage = new Random(SEED + 1);
        for (int i = 0; i < capacity; i++) {
            boolean isNull = nulls && i < rows && (i == 0 || i == rows - 1 || r.nextInt(3) == 0);
            if (isNull) {
                ColumnFixtures.put(v, i, ColumnFixtures.value(t, garbage, 1000 + i));
                v.putNull(i);
            } else {
                ColumnFixtures.put(v, i, ColumnFixtures.value(t, r, i));
            }
        }
        return v;
    }

    @ParameterizedTest(name = "{0} {1} rows={3} nulls={4}")
    @MethodSource("cases")
    void copiesEveryValueAndNull(Kind kind, String name, DataType t, int rows, boolean nulls) {
        try (WritableColumnVector source = column(kind, t, rows, nulls)) {
            Field field = SparkArrowTypes.field("c", t, true);
            try (FieldVector copy = ArrowImport.copy(source, rows, field, allocator)) {
                assertEquals(field, copy.getField());
                assertEquals(rows, copy.getValueCount());
                long stringBytes = 0;
                for (int i = 0; i < rows; i++) {
                    Object expected = ColumnFixtures.read(source, i);
                    assertEquals(expected, ColumnFixtures.read(copy, i), "row " + i);
                    if (expected instanceof ByteBuffer b) {
                        stringBytes += b.remaining();
                    }
                }
                assertEquals(ColumnFixtures.expectedBytes(t, rows, stringBytes), ArrowImport.bytes(copy));
                if (rows % 8 != 0) {
                    int last = copy.getValidityBuffer().getByte(rows / 8) & 0xff;
                    assertEquals(0, last >>> (rows % 8), "validity bits past the last row must be clear");
                }
            }
        }
    }

    @Test
    void arrowColumnVectorPassesThroughAsTheSameVector() {
        try (IntVector v = new IntVector("x", allocator)) {
            v.allocateNew(3);
            v.setValueCount(3);
            ArrowColumnVector column = new ArrowColumnVector(v);
            assertSame(v, ArrowImport.arrowVectorOf(column));
        }
        try (OnHeapColumnVector onHeap = new OnHeapColumnVector(4, DataTypes.IntegerType)) {
            assertNull(ArrowImport.arrowVectorOf(onHeap));
        }
    }

    /** Arrow's getters throw on a null row: a copy of an ArrowColumnVector must read only the non-null runs. */
    @Test
    void copiesAnArrowColumnVectorWithNullsWithoutReadingTheNulls() {
        int rows = 21;
        try (IntVector ints = new IntVector("i", allocator);
                VarCharVector strings = new VarCharVector("s", allocator)) {
            ints.allocateNew(rows);
            strings.allocateNew(rows);
            for (int i = 0; i < rows; i++) {
                if (i % 3 == 0 || i >= 18) {
                    ints.setNull(i);
                    strings.setNull(i);
                } else {
                    ints.set(i, i * 7 - 50);
                    strings.setSafe(i, ("s" + i).getBytes(StandardCharsets.UTF_8));
                }
            }
            ints.setValueCount(rows);
            strings.setValueCount(rows);
            for (ValueVector v : List.of(ints, strings)) {
                ArrowColumnVector source = new ArrowColumnVector(v);
                try (FieldVector copy = ArrowImport.copy(
                        source, rows, SparkArrowTypes.field("c", source.dataType(), true), allocator)) {
                    for (int i = 0; i < rows; i++) {
                        assertEquals(
                                ColumnFixtures.read(v, i), ColumnFixtures.read(copy, i), v.getName() + " row " + i);
                    }
                }
            }
        }
    }

    @Test
    void copiesOnlyTheFirstRows() {
        try (OnHeapColumnVector source = new OnHeapColumnVector(10, DataTypes.LongType)) {
            for (int i = 0; i < 10; i++) {
                source.putLong(i, i);
            }
            try (FieldVector copy =
                    ArrowImport.copy(source, 4, SparkArrowTypes.field("c", DataTypes.LongType, false), allocator)) {
                assertEquals(4, copy.getValueCount());
                assertEquals(3L, ColumnFixtures.read(copy, 3));
                assertEquals(4 * 8 + 1, ArrowImport.bytes(copy));
            }
        }
    }

    @Test
    void rejectsANonDefaultCollation() {
        DataType lcase = StringType.apply("UTF8_LCASE");
        assertTrue(SparkArrowTypes.arrowType(lcase).isEmpty());
        assertTrue(
                SparkArrowTypes.unsupportedReason(lcase).orElseThrow().contains("UTF8_LCASE"),
                SparkArrowTypes.unsupportedReason(lcase).orElseThrow());
        Field utf8 = new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
        try (OnHeapColumnVector source = new OnHeapColumnVector(2, lcase)) {
            source.putByteArray(0, "A".getBytes(StandardCharsets.UTF_8));
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ArrowImport.copy(source, 1, utf8, allocator));
            assertTrue(e.getMessage().contains("UTF8_LCASE"), e.getMessage());
        }
    }

    @Test
    void rejectsAFieldOfAnotherTypeAndNegativeRows() {
        try (OnHeapColumnVector source = new OnHeapColumnVector(2, DataTypes.IntegerType)) {
            Field longs = SparkArrowTypes.field("c", DataTypes.LongType, true);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ArrowImport.copy(source, 1, longs, allocator));
            assertTrue(e.getMessage().contains("not as the field's"), e.getMessage());
            Field ints = SparkArrowTypes.field("c", DataTypes.IntegerType, true);
            assertThrows(IllegalArgumentException.class, () -> ArrowImport.copy(source, -1, ints, allocator));
        }
        try (OnHeapColumnVector arrays = new OnHeapColumnVector(2, DataTypes.createArrayType(DataTypes.IntegerType))) {
            Field ints = SparkArrowTypes.field("c", DataTypes.IntegerType, true);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ArrowImport.copy(arrays, 1, ints, allocator));
            assertTrue(e.getMessage().contains("array<int> has no Arrow import"), e.getMessage());
        }
    }
}
