package dev.quiver.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

class RowsToArrowTest extends AllocatorTestBase {
    private static final long SEED = 7_2025L;
    /** A column of every supported type, c0 .. c14. */
    private static StructType everyType() {
        List<StructField> fields = new ArrayList<>();
        for (DataType t : ColumnFixtures.TYPES) {
            fields.add(DataTypes.createStructField("c" + fields.size(), t, true));
        }
        return DataTypes.createStructType(fields);
    }

    /** {@code n} rows of hostile values (seeded), every column null in some rows, row 0 all null. */
    private static List<InternalRow> rows(StructType schema, int n) {
        Random r = new Random(SEED);
        List<InternalRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Object[] values = new Object[schema.size()];
            for (int c = 0; c < values.length; c++) {
                boolean isNull = i == 0 || r.nextInt(4) == 0;
                values[c] = isNull ? null : ColumnFixtures.value(schema.fields()[c].dataType(), r, i);
            }
            rows.add(new GenericInternalRow(values));
        }
        return rows;
    }

    /** Compares batch rows [0, rowCount) with {@code expected} from {@code first}, via each side's own getters. */
    private static void assertBatch(StructType schema, List<InternalRow> expected, int first, VectorSchemaRoot batch) {
        for (int c = 0; c < schema.size(); c++) {
            FieldVector v = batch.getVector(c);
            assertEquals(schema.fields()[c].name(), v.getName());
            for (int i = 0; i < batch.getRowCount(); i++) {
                assertEquals(
                        ColumnFixtures.read(expected.get(first + i), c, schema.fields()[c].dataType()),
                        ColumnFixtures.read(v, i),
                        v.getName() + " row " + (first + i));
            }
        }
    }

    @Test
    void splitsTenRowsIntoBatchesOfFourFourAndTwoThenNull() {
        StructType schema = everyType();
        List<InternalRow> input = rows(schema, 10);
        Iterator<InternalRow> it = input.iterator();
        long bytes = 0;
        try (RowsToArrow toArrow = new RowsToArrow(schema, allocator, 4)) {
            int first = 0;
            for (int expectedRows : new int[] {4, 4, 2}) {
                try (VectorSchemaRoot batch = toArrow.next(it)) {
                    assertEquals(expectedRows, batch.getRowCount());
                    assertBatch(schema, input, first, batch);
                    for (FieldVector v : batch.getFieldVectors()) {
                        bytes += ArrowImport.bytes(v);
                    }
                    first += expectedRows;
                }
            }
            assertNull(toArrow.next(it));
            assertNull(toArrow.next(it));
            assertEquals(bytes, toArrow.bytesWritten());
        }
    }

    @Test
    void manyRowsGrowTheVectors() {
        StructType schema = everyType();
        List<InternalRow> input = rows(schema, 5000); // past the vectors' initial capacity
        try (RowsToArrow toArrow = new RowsToArrow(schema, allocator, 10_000);
                VectorSchemaRoot batch = toArrow.next(CollectionConverters.asScala(input.iterator()))) {
            assertEquals(5000, batch.getRowCount());
            assertBatch(schema, input, 0, batch);
        }
    }

    @Test
    void aReusedRowObjectIsNotRetained() {
        StructType schema = DataTypes.createStructType(List.of(
                DataTypes.createStructField("s", DataTypes.StringType, true),
                DataTypes.createStructField("x", DataTypes.IntegerType, false)));
        GenericInternalRow shared = new GenericInternalRow(2);
        Iterator<InternalRow> it = new Iterator<>() {
            int i;

            @Override
            public boolean hasNext() {
                return i < 5;
            }

            @Override
            public InternalRow next() {
                shared.update(0, i == 2 ? null : UTF8String.fromString("row " + i));
                shared.setInt(1, i * 10);
                i++;
                return shared;
            }
        };
        try (RowsToArrow toArrow = new RowsToArrow(schema, allocator, 8);
                VectorSchemaRoot batch = toArrow.next(it)) {
            assertEquals(5, batch.getRowCount());
            assertEquals("row 4", batch.getVector("s").getObject(4).toString());
            assertTrue(batch.getVector("s").isNull(2));
            assertEquals(30, batch.getVector("x").getObject(3));
        }
    }

    @Test
    void readsOnlyTheChosenColumnsInTheGivenOrder() {
        StructType schema = DataTypes.createStructType(List.of(
                DataTypes.createStructField("a", DataTypes.createArrayType(DataTypes.IntegerType), true),
                DataTypes.createStructField("b", DataTypes.LongType, true),
                DataTypes.createStructField("c", DataTypes.DoubleType, true)));
        List<InternalRow> input = List.of(
                new GenericInternalRow(new Object[] {null, 1L, 0.5}),
                new GenericInternalRow(new Object[] {null, null, -0.0}));
        try (RowsToArrow toArrow = new RowsToArrow(schema, new int[] {2, 1}, allocator, 10);
                VectorSchemaRoot batch = toArrow.next(input.iterator())) {
            assertEquals(
                    List.of("c", "b"),
                    batch.getSchema().getFields().stream().map(f -> f.getName()).toList());
            assertEquals(Double.doubleToRawLongBits(-0.0), ColumnFixtures.read(batch.getVector(0), 1));
            assertEquals(1L, ColumnFixtures.read(batch.getVector(1), 0));
            assertNull(ColumnFixtures.read(batch.getVector(1), 1));
        }
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new RowsToArrow(schema, allocator, 10));
        assertTrue(e.getMessage().contains("array<int> has no Arrow import"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RowsToArrow(schema, new int[] {3}, allocator, 10));
        assertThrows(IllegalArgumentException.class, () -> new RowsToArrow(schema, new int[] {1}, allocator, 0));
    }

    @Test
    void anEmptyIteratorGivesNullAndNoColumnsStillCountRows() {
        StructType none = new StructType();
        try (RowsToArrow toArrow = new RowsToArrow(none, allocator, 2)) {
            assertNull(toArrow.next(List.<InternalRow>of().iterator()));
            Iterator<InternalRow> three = List.<InternalRow>of(
                            new GenericInternalRow(0), new GenericInternalRow(0), new GenericInternalRow(0))
                    .iterator();
            try (VectorSchemaRoot batch = toArrow.next(three)) {
                assertEquals(2, batch.getRowCount());
            }
            try (VectorSchemaRoot batch = toArrow.next(three)) {
                assertEquals(1, batch.getRowCount());
            }
            assertEquals(0, toArrow.bytesWritten());
        }
    }

    /** A value that does not fit its column fails the batch, which is closed before the error leaves. */
    @Test
    void aDecimalTooWideFailsAndFreesThePartialBatch() {
        for (int precision : new int[] {9, 30}) {
            StructType schema = DataTypes.createStructType(
                    List.of(DataTypes.createStructField("d", DataTypes.createDecimalType(precision, 2), true)));
            BigDecimal tooWide = new BigDecimal("1" + "0".repeat(precision)).movePointLeft(2); // precision + 1 digits
            List<InternalRow> input = List.of(
                    new GenericInternalRow(new Object[] {Decimal.apply(new BigDecimal("1.25"))}),
                    new GenericInternalRow(new Object[] {Decimal.apply(tooWide)}));
            try (RowsToArrow toArrow = new RowsToArrow(schema, allocator, 10)) {
                IllegalArgumentException e =
                        assertThrows(IllegalArgumentException.class, () -> toArrow.next(input.iterator()));
                assertTrue(e.getMessage().contains("does not fit decimal(" + precision + ", 2)"), e.getMessage());
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void nextAfterCloseFails() {
        RowsToArrow toArrow = new RowsToArrow(new StructType(), allocator, 1);
        toArrow.close();
        assertThrows(
                IllegalStateException.class,
                () -> toArrow.next(List.<InternalRow>of().iterator()));
    }
}
