package dev.quiver.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class SparkArrowTypesTest {
    /** The mapping, written out by hand from the class's contract. */
    private static Map<DataType, ArrowType> table() {
        Map<DataType, ArrowType> m = new LinkedHashMap<>();
        m.put(DataTypes.BooleanType, ArrowType.Bool.INSTANCE);
        m.put(DataTypes.ByteType, new ArrowType.Int(8, true));
        m.put(DataTypes.ShortType, new ArrowType.Int(16, true));
        m.put(DataTypes.IntegerType, new ArrowType.Int(32, true));
        m.put(DataTypes.LongType, new ArrowType.Int(64, true));
        m.put(DataTypes.FloatType, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        m.put(DataTypes.DoubleType, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
        m.put(DataTypes.StringType, ArrowType.Utf8.INSTANCE);
        m.put(DataTypes.BinaryType, ArrowType.Binary.INSTANCE);
        m.put(DataTypes.DateType, new ArrowType.Date(DateUnit.DAY));
        m.put(DataTypes.TimestampType, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
        m.put(DataTypes.TimestampNTZType, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
        m.put(DataTypes.createDecimalType(1, 0), new ArrowType.Decimal(1, 0, 128));
        m.put(DataTypes.createDecimalType(18, 18), new ArrowType.Decimal(18, 18, 128));
        m.put(DataTypes.createDecimalType(38, 10), new ArrowType.Decimal(38, 10, 128));
        return m;
    }

    @Test
    void everySupportedTypeMapsBothWays() {
        table().forEach((spark, arrow) -> {
            assertEquals(Optional.of(arrow), SparkArrowTypes.arrowType(spark), spark.simpleString());
            assertEquals(Optional.of(spark), SparkArrowTypes.sparkType(arrow), arrow.toString());
            assertEquals(Optional.empty(), SparkArrowTypes.unsupportedReason(spark));
            Field f = SparkArrowTypes.field("n", spark, false);
            assertEquals("n", f.getName());
            assertFalse(f.isNullable());
            assertEquals(arrow, f.getType());
        });
    }

    @Test
    void otherSparkTypesHaveNoArrowImportAndSayWhy() {
        for (DataType t : List.of(
                DataTypes.createArrayType(DataTypes.IntegerType),
                DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType),
                new StructType().add("a", DataTypes.IntegerType),
                DataTypes.CalendarIntervalType,
                DataTypes.NullType,
                DataTypes.VariantType,
                StringType.apply("UNICODE_CI"))) {
            assertEquals(Optional.empty(), SparkArrowTypes.arrowType(t), t.simpleString());
            String reason = SparkArrowTypes.unsupportedReason(t).orElseThrow();
            assertTrue(reason.startsWith("type " + t.simpleString() + " has no Arrow import"), reason);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> SparkArrowTypes.field("c", t, true));
            assertTrue(e.getMessage().contains(reason), e.getMessage());
        }
    }

    @Test
    void sparkTypeAcceptsLargeAndZonedFormsAndRejectsTheRest() {
        assertEquals(Optional.of(DataTypes.StringType), SparkArrowTypes.sparkType(ArrowType.LargeUtf8.INSTANCE));
        assertEquals(Optional.of(DataTypes.BinaryType), SparkArrowTypes.sparkType(ArrowType.LargeBinary.INSTANCE));
        assertEquals(
                Optional.of(DataTypes.TimestampType),
                SparkArrowTypes.sparkType(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "Europe/Paris")));
        assertEquals(Optional.of(DataTypes.NullType), SparkArrowTypes.sparkType(ArrowType.Null.INSTANCE));
        for (ArrowType t : List.of(
                new ArrowType.Int(32, false),
                new ArrowType.Int(8, false),
                new ArrowType.FloatingPoint(FloatingPointPrecision.HALF),
                new ArrowType.Date(DateUnit.MILLISECOND),
                new ArrowType.Timestamp(TimeUnit.NANOSECOND, null),
                new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC"),
                new ArrowType.Decimal(40, 2, 256),
                new ArrowType.Decimal(10, 2, 256),
                ArrowType.List.INSTANCE,
                ArrowType.Struct.INSTANCE)) {
            assertEquals(Optional.empty(), SparkArrowTypes.sparkType(t), t.toString());
        }
    }
}
