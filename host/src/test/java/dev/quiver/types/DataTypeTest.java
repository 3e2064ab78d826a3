package dev.quiver.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class DataTypeTest {

    @Test
    void stringViewsAreRejectedWithTheWayOut() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> DataType.fromArrow(ArrowType.Utf8View.INSTANCE));
        Assertions.assertTrue(
                e.getMessage().contains("Utf8View") && e.getMessage().contains("LargeUtf8"), e.getMessage());
    }

    @Test
    void typeNamesParse() {
        String[][] cases = {
            {"int8", "Int8"},
            {"BIGINT", "Int64"},
            {"uint64", "UInt64"},
            {"float", "Float32"},
            {"double", "Float64"},
            {"decimal(10,2)", "Decimal128(10, 2)"},
            {"decimal( 38 , 0 )", "Decimal128(38, 0)"},
            {"utf8", "Utf8"},
            {"large_utf8", "LargeUtf8"},
            {"binary", "Binary"},
            {"date32", "Date32"},
            {"timestamp", "Timestamp(us)"},
            {"timestamp[ms]", "Timestamp(ms)"},
            {" timestamp[ns, Europe/Paris]", "Timestamp(ns, Europe/Paris)"},
            {"timestamp[s, UTC]", "Timestamp(s, UTC)"},
            {"boolean", "Boolean"},
            {"null", "Null"}
        };
        for (String[] c : cases) {
            assertEquals(c[1], DataType.parse(c[0]).toString(), c[0]);
        }
    }

    @Test
    void malformedTypeNamesAreRejected() {
        for (String bad :
                new String[] {"decimal(10", "decimal(a,b)", "timestampz", "timestamp[ms", "timestamp[h]", "int128", ""
                }) {
            assertThrows(IllegalArgumentException.class, () -> DataType.parse(bad), bad);
        }
    }

    @Test
    void everyFlatTypeRoundTripsThroughArrow() {
        DataType[] types = {
            DataType.NULL,
            DataType.BOOLEAN,
            DataType.INT8,
            DataType.INT16,
            DataType.INT32,
            DataType.INT64,
            DataType.UINT8,
            DataType.UINT16,
            DataType.UINT32,
            DataType.UINT64,
            DataType.FLOAT32,
            DataType.FLOAT64,
            new DataType.Decimal(12, 3),
            DataType.UTF8,
            DataType.LARGE_UTF8,
            DataType.BINARY,
            DataType.DATE32,
            new DataType.Timestamp(DataType.TimeUnit.NANOSECOND, "UTC"),
            new DataType.Interval(IntervalUnit.MONTH_DAY_NANO),
            new DataType.ListType(DataType.INT32, true),
            new DataType.Struct(List.of(
                    new DataType.StructField("a", DataType.UTF8, true),
                    new DataType.StructField("b", new DataType.ListType(DataType.FLOAT64, false), false)))
        };
        for (DataType t : types) {
            Field f = t.toField("c", true);
            assertEquals(t, DataType.fromField(f), t.toString());
            if (!(t instanceof DataType.Interval || t instanceof DataType.ListType || t instanceof DataType.Struct)) {
                assertEquals(t, SqlTypes.fromSql(SqlTypes.sqlName(t)), "SQL name of " + t);
            }
        }
    }

    @Test
    void dictionaryFieldsNeedTheirValueTypeAndComputeAsIt() {
        DataType.Dictionary d = new DataType.Dictionary(DataType.INT16, DataType.UTF8);
        Field f = d.toField("name", true, 7);
        assertEquals(d, DataType.fromField(f, DataType.UTF8));
        assertEquals(DataType.UTF8, d.valueType());
        assertThrows(IllegalArgumentException.class, () -> DataType.fromField(f));
    }
}
