package dev.quiver.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType.TimeUnit;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Dates and timestamps as text, for every long of every unit: against java.time where it
 * reaches (its ISO text is the same form), against hand-computed values at the ends of the
 * long range, and read back to the same value everywhere.
 */
class TemporalTextTest {
    /** The ends of each unit's range, as text (the well-known values of the 64-bit epoch counters). */
    @Test
    void theEndsOfEveryUnitHaveTheirText() {
        assertEquals("+292277026596-12-04 15:30:07", TemporalText.formatTimestamp(Long.MAX_VALUE, TimeUnit.SECOND));
        assertEquals("-292277022657-01-27 08:29:52", TemporalText.formatTimestamp(Long.MIN_VALUE, TimeUnit.SECOND));
        assertEquals(
                "+292278994-08-17 07:12:55.807", TemporalText.formatTimestamp(Long.MAX_VALUE, TimeUnit.MILLISECOND));
        assertEquals(
                "-292275055-05-16 16:47:04.192", TemporalText.formatTimestamp(Long.MIN_VALUE, TimeUnit.MILLISECOND));
        assertEquals(
                "+294247-01-10 04:00:54.775807", TemporalText.formatTimestamp(Long.MAX_VALUE, TimeUnit.MICROSECOND));
        assertEquals(
                "-290308-12-21 19:59:05.224192", TemporalText.formatTimestamp(Long.MIN_VALUE, TimeUnit.MICROSECOND));
        assertEquals(
                "2262-04-11 23:47:16.854775807", TemporalText.formatTimestamp(Long.MAX_VALUE, TimeUnit.NANOSECOND));
        assertEquals(
                "1677-09-21 00:12:43.145224192", TemporalText.formatTimestamp(Long.MIN_VALUE, TimeUnit.NANOSECOND));
        assertEquals("+5881580-07-11", TemporalText.formatDate(Integer.MAX_VALUE));
        assertEquals("-5877641-06-23", TemporalText.formatDate(Integer.MIN_VALUE));
    }

    @Test
    void beforeNineteenSeventyFractionsCountForward() {
        assertEquals("1969-12-31 23:59:59.999999999", TemporalText.formatTimestamp(-1, TimeUnit.NANOSECOND));
        assertEquals("1969-12-31 23:59:58.5", TemporalText.formatTimestamp(-1500, TimeUnit.MILLISECOND));
        assertEquals("1970-01-01 00:00:00", TemporalText.formatTimestamp(0, TimeUnit.MICROSECOND));
        assertEquals("0000-01-01 00:00:00", TemporalText.formatTimestamp(-62167219200L, TimeUnit.SECOND));
        assertEquals("-0001-12-31 23:59:59", TemporalText.formatTimestamp(-62167219201L, TimeUnit.SECOND));
        assertEquals("+10000-01-01 00:00:00", TemporalText.formatTimestamp(253402300800L, TimeUnit.SECOND));
        assertEquals(-1L, TemporalText.parseTimestamp("1969-12-31 23:59:59.999999999", TimeUnit.NANOSECOND, true));
        assertEquals(-1500L, TemporalText.parseTimestamp("1969-12-31T23:59:58.5Z", TimeUnit.MILLISECOND, true));
    }

    /** Every unit: the ends of the long range, the ends of Instant's range where the unit reaches them, and seeded random values. */
    @Test
    void everyValueReadsBackAsItself() {
        long seed = Long.getLong("quiver.seed", System.nanoTime());
        System.out.println("TemporalTextTest seed " + seed + " (replay with -Dquiver.seed=" + seed + ")");
        Random r = new Random(seed);
        for (TimeUnit unit : TimeUnit.values()) {
            List<Long> values = new ArrayList<>(List.of(
                    Long.MIN_VALUE,
                    Long.MIN_VALUE + 1,
                    -1L,
                    0L,
                    1L,
                    Long.MAX_VALUE - 1,
                    Long.MAX_VALUE,
                    -86_400L * unit.perSecond() - 1));
            for (Instant edge : List.of(Instant.MIN, Instant.MAX)) {
                long seconds = edge.getEpochSecond();
                if (Math.abs(seconds) < Long.MAX_VALUE / unit.perSecond()) {
                    values.add(seconds * unit.perSecond());
                    values.add(seconds * unit.perSecond() + (seconds < 0 ? -1 : 1));
                }
            }
            for (int i = 0; i < 2_000; i++) {
                values.add(r.nextLong());
                values.add(r.nextLong() >> r.nextInt(64));
            }
            for (long v : values) {
                String text = TemporalText.formatTimestamp(v, unit);
                assertEquals(
                        v,
                        TemporalText.parseTimestamp(text, unit, true),
                        () -> text + " (" + v + " " + unit + ", seed " + seed + ")");
                assertEquals(v, TemporalText.parseTimestamp(text, unit, false), text);
            }
        }
        for (int d :
                new int[] {Integer.MIN_VALUE, -719_529, -719_528, -1, 0, 1, 2_932_896, Integer.MAX_VALUE, r.nextInt()
                }) {
            assertEquals(d, TemporalText.parseDate(TemporalText.formatDate(d)), () -> "day " + d);
        }
    }

    /** Inside java.time's range its ISO text is the reference: the same date, time and trimmed fraction. */
    @Test
    void insideJavaTimeItWritesWhatJavaTimeWrites() {
        Random r = new Random(42);
        long max = LocalDateTime.MAX.toEpochSecond(ZoneOffset.UTC);
        long min = LocalDateTime.MIN.toEpochSecond(ZoneOffset.UTC);
        for (int i = 0; i < 5_000; i++) {
            long seconds = min + (long) (r.nextDouble() * (max - min));
            int nanos = r.nextInt(4) == 0 ? 0 : r.nextInt(1_000_000_000);
            LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
            String fraction = nanos == 0 ? "" : ("." + String.format("%09d", nanos)).replaceAll("0+$", "");
            String expected = t.toLocalDate() + " "
                    + String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond()) + fraction;
            // Seconds hold every such value (the fraction is checked in nanoseconds below).
            assertEquals(
                    expected, TemporalText.formatTimestamp(seconds, TimeUnit.SECOND) + fraction, "seconds " + seconds);
            long days = Math.floorDiv(seconds, 86_400);
            if ((int) days == days) {
                assertEquals(
                        LocalDate.ofEpochDay(days).toString(), TemporalText.formatDate((int) days), "days " + days);
            }
            long near = seconds % 9_000_000_000L; // within the nanosecond range
            LocalDateTime n = LocalDateTime.ofEpochSecond(near, nanos, ZoneOffset.UTC);
            String nf = nanos == 0 ? "" : ("." + String.format("%09d", nanos)).replaceAll("0+$", "");
            assertEquals(
                    n.toLocalDate() + " " + String.format("%02d:%02d:%02d", n.getHour(), n.getMinute(), n.getSecond())
                            + nf,
                    TemporalText.formatTimestamp(near * 1_000_000_000L + nanos, TimeUnit.NANOSECOND),
                    "ns at " + near);
        }
    }

    @Test
    void aZoneShowsItsLocalTimeEvenBeyondInstant() {
        ZoneId paris = ZoneId.of("Europe/Paris");
        long summer = 1_720_000_000L; // 2024-07-03 09:46:40 UTC, CEST (+02:00)
        assertEquals(
                LocalDateTime.ofInstant(Instant.ofEpochSecond(summer), paris)
                        .toString()
                        .replace('T', ' '),
                TemporalText.formatInZone(summer, TimeUnit.SECOND, paris));
        assertEquals(
                "+292277026596-12-04 20:30:07",
                TemporalText.formatInZone(Long.MAX_VALUE, TimeUnit.SECOND, ZoneOffset.ofHours(5)));
        assertEquals(
                "-292277022657-01-27 03:29:52",
                TemporalText.formatInZone(Long.MIN_VALUE, TimeUnit.SECOND, ZoneOffset.ofHours(-5)));
    }

    @Test
    void whatIsNoTimestampSaysWhy() {
        assertThrows(
                IllegalArgumentException.class, () -> TemporalText.parseTimestamp("yesterday", TimeUnit.SECOND, false));
        assertThrows(
                IllegalArgumentException.class,
                () -> TemporalText.parseTimestamp("2023-02-29 00:00:00", TimeUnit.SECOND, false));
        assertThrows(
                IllegalArgumentException.class,
                () -> TemporalText.parseTimestamp("2024-13-01", TimeUnit.SECOND, false));
        assertThrows(
                IllegalArgumentException.class,
                () -> TemporalText.parseTimestamp("2024-01-01 24:00:00", TimeUnit.SECOND, false));
        assertThrows(
                IllegalArgumentException.class,
                () -> TemporalText.parseTimestamp("1234567890123-01-01", TimeUnit.SECOND, false));
        IllegalArgumentException range = assertThrows(
                IllegalArgumentException.class,
                () -> TemporalText.parseTimestamp("+292277026596-12-04 15:30:08", TimeUnit.SECOND, false));
        assertEquals("out of range for Timestamp(s)", range.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> TemporalText.parseTimestamp("2262-04-11 23:47:16.854775808", TimeUnit.NANOSECOND, false));
        IllegalArgumentException fine = assertThrows(
                IllegalArgumentException.class,
                () -> TemporalText.parseTimestamp("2024-01-01 00:00:00.5", TimeUnit.SECOND, true));
        assertTrue(fine.getMessage().contains("more precise"), fine.getMessage());
        assertEquals(1_704_067_200L, TemporalText.parseTimestamp("2024-01-01 00:00:00.5", TimeUnit.SECOND, false));
        assertEquals(0, fine.getStackTrace().length, "a parse failure carries no stack trace (TRY_CAST stays cheap)");
        assertEquals(
                253402300800L,
                TemporalText.parseTimestamp("10000-01-01", TimeUnit.SECOND, true),
                "a year without its +");
    }
}
