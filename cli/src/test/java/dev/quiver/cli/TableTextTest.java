package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.types.DataType;
import dev.quiver.types.DataType.TimeUnit;
import dev.quiver.value.ScalarValue;
import org.junit.jupiter.api.Test;

/** How {@code quiver eval} prints dates and timestamps in its table: every value of every unit, hand-computed. */
class TableTextTest {
    private static String text(TimeUnit unit, String zone, long ticks) {
        return ResultTable.text(new ScalarValue(new DataType.Timestamp(unit, zone), ticks));
    }

    @Test
    void timestampsBeyondJavaTimePrintAsExtendedYears() {
        assertEquals("+292277026596-12-04 15:30:07", text(TimeUnit.SECOND, null, Long.MAX_VALUE));
        assertEquals("-292277022657-01-27 08:29:52 UTC", text(TimeUnit.SECOND, "UTC", Long.MIN_VALUE));
        assertEquals(
                "+292277026596-12-04 21:00:07 Asia/Kolkata", text(TimeUnit.SECOND, "Asia/Kolkata", Long.MAX_VALUE));
        assertEquals("1677-09-21 00:12:43.145224192", text(TimeUnit.NANOSECOND, null, Long.MIN_VALUE));
        assertEquals(
                "2024-01-31 10:00:00",
                text(TimeUnit.MILLISECOND, null, 1_706_695_200_000L),
                "whole seconds are printed");
        assertEquals("1969-12-31 23:59:59.5", text(TimeUnit.MILLISECOND, null, -500));
        assertEquals(
                "1970-01-01 00:00:00 UTC", text(TimeUnit.MICROSECOND, "Not/AZone", 0), "an unknown zone prints UTC");
        assertEquals("+5881580-07-11", ResultTable.text(new ScalarValue(DataType.DATE32, Integer.MAX_VALUE)));
    }
}
