package dev.quiver.value;

import dev.quiver.types.DataType;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneRules;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text of dates and timestamps, for every value their Arrow types hold: casts to and from
 * strings, literals in SQL ({@link ScalarValue#toSql()}), EXPLAIN and the CLI's tables all use
 * it, so what one writes the others read back to the same value.
 *
 * <p>The form is ISO 8601 in the proleptic Gregorian calendar, {@code yyyy-MM-dd HH:mm:ss[.f]}
 * with as many fraction digits as the value needs (none for a whole second). Years 0 to 9999
 * have four digits; a later year has more digits and a {@code +} sign ({@code +10000-01-01}),
 * an earlier one a {@code -} sign and at least four digits ({@code -0001-12-31} is 2 BC), as
 * {@code java.time} and arrow-rs (chrono) write them. The arithmetic is on {@code long} days,
 * so it has no range of its own: {@code Long.MAX_VALUE} seconds is
 * {@code +292277026596-12-04 15:30:07}, beyond {@link java.time.Instant}'s range, and reads
 * back as {@code Long.MAX_VALUE} seconds. Reading accepts a later year without its {@code +},
 * a {@code T} between date and time, a time without seconds, and a trailing {@code Z} or
 * {@code UTC}.
 *
 * <p>Timestamps are UTC: a timestamp with a time zone is written as its UTC time (what it
 * stores), so casting it to text and back gives the same value. {@link #formatInZone} writes
 * the local time of a zone, for people (the CLI).
 *
 * <p>Every method is a pure function; parsing throws {@link IllegalArgumentException} with
 * the reason (the exception carries no stack trace, so a cast that turns failures into NULLs
 * stays cheap).
 */
public final class TemporalText {
    private static final long SECONDS_PER_DAY = 86_400;
    /** Days from 0000-03-01 to 1970-01-01 (the civil-date algorithm counts from a March). */
    private static final long DAYS_0000_TO_1970 = 719_468;

    private static final long DAYS_PER_400_YEARS = 146_097;
    /** No long of any unit reaches a year beyond this; longer years are refused before any arithmetic. */
    private static final int MAX_YEAR_DIGITS = 12;

    private static final Pattern DATE = Pattern.compile("([+-]?)(\\d{4,})-(\\d{2})-(\\d{2})");
    private static final Pattern TIMESTAMP = Pattern.compile(
            "([+-]?)(\\d{4,})-(\\d{2})-(\\d{2})(?:[ T](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?)?(?:Z| ?UTC)?");

    private TemporalText() {}

    /** A failure to read a date or timestamp: its message is the reason. No stack trace. */
    private static final class Invalid extends IllegalArgumentException {
        Invalid(String reason) {
            super(reason);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    // ---- writing

    /** {@code days} since 1970-01-01 (a Date32) as {@code yyyy-MM-dd}. */
    public static String formatDate(int days) {
        return appendDate(new StringBuilder(10), days).toString();
    }

    /** {@code ticks} of {@code unit} since 1970-01-01T00:00Z as {@code yyyy-MM-dd HH:mm:ss[.fraction]} (UTC). */
    public static String formatTimestamp(long ticks, DataType.TimeUnit unit) {
        Objects.requireNonNull(unit, "unit is null");
        long perSecond = unit.perSecond();
        long seconds = Math.floorDiv(ticks, perSecond);
        long fraction = Math.floorMod(ticks, perSecond);
        return format(Math.floorDiv(seconds, SECONDS_PER_DAY), Math.floorMod(seconds, SECONDS_PER_DAY), fraction, unit);
    }

    /**
     * The local time of {@code zone} at {@code ticks}, as {@link #formatTimestamp} writes it. Beyond
     * the range of {@code java.time.Instant} the zone's offset at the nearest end of that range
     * applies (zone rules have no transitions there).
     */
    public static String formatInZone(long ticks, DataType.TimeUnit unit, ZoneId zone) {
        Objects.requireNonNull(zone, "zone is null");
        long perSecond = unit.perSecond();
        long seconds = Math.floorDiv(ticks, perSecond);
        long fraction = Math.floorMod(ticks, perSecond);
        ZoneRules rules = zone.getRules();
        long clamped = Math.clamp(seconds, Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond());
        long offset = rules.getOffset(Instant.ofEpochSecond(clamped)).getTotalSeconds();
        // Days and the second of the day apart, so the shift cannot overflow even at Long.MAX_VALUE seconds.
        long days = Math.floorDiv(seconds, SECONDS_PER_DAY);
        long secondOfDay = Math.floorMod(seconds, SECONDS_PER_DAY) + offset;
        days += Math.floorDiv(secondOfDay, SECONDS_PER_DAY);
        return format(days, Math.floorMod(secondOfDay, SECONDS_PER_DAY), fraction, unit);
    }

    private static String format(long days, long secondOfDay, long fraction, DataType.TimeUnit unit) {
        StringBuilder sb = appendDate(new StringBuilder(32), days).append(' ');
        two(sb, secondOfDay / 3600).append(':');
        two(sb, secondOfDay / 60 % 60).append(':');
        two(sb, secondOfDay % 60);
        if (fraction != 0) {
            int digits = Long.toString(unit.perSecond()).length() - 1;
            String f = Long.toString(fraction);
            sb.append('.').append("0".repeat(digits - f.length())).append(f);
            int end = sb.length();
            while (sb.charAt(end - 1) == '0') {
                end--;
            }
            sb.setLength(end);
        }
        return sb.toString();
    }

    private static StringBuilder two(StringBuilder sb, long v) {
        return sb.append((char) ('0' + v / 10)).append((char) ('0' + v % 10));
    }

    /** The civil date of {@code days} since 1970-01-01 (Howard Hinnant's {@code civil_from_days}, on longs). */
    private static StringBuilder appendDate(StringBuilder sb, long days) {
        long z = days + DAYS_0000_TO_1970; // |days| < 2^63 / 86400 for every timestamp: no overflow
        long era = Math.floorDiv(z, DAYS_PER_400_YEARS);
        long dayOfEra = z - era * DAYS_PER_400_YEARS;
        long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long mp = (5 * dayOfYear + 2) / 153;
        long day = dayOfYear - (153 * mp + 2) / 5 + 1;
        long month = mp < 10 ? mp + 3 : mp - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        if (year > 9999) {
            sb.append('+').append(year);
        } else if (year >= 0) {
            String y = Long.toString(year);
            sb.append("0".repeat(4 - y.length())).append(y);
        } else {
            String y = Long.toString(-year);
            sb.append('-').append("0".repeat(Math.max(0, 4 - y.length()))).append(y);
        }
        sb.append('-');
        two(sb, month).append('-');
        return two(sb, day);
    }

    // ---- reading

    /**
     * Days since 1970-01-01 of {@code yyyy-MM-dd} (surrounding blanks ignored).
     *
     * @throws IllegalArgumentException when the text is no date, or names no day (2023-02-29)
     */
    public static long parseDate(String text) {
        Matcher m = DATE.matcher(text.strip());
        if (!m.matches()) {
            throw new Invalid("not a date (yyyy-MM-dd)");
        }
        return epochDay(m.group(1), m.group(2), m.group(3), m.group(4));
    }

    /**
     * Ticks of {@code unit} of {@code yyyy-MM-dd[ HH:mm[:ss[.fraction]]]}, UTC (surrounding blanks
     * ignored). Fraction digits finer than the unit are dropped (the fraction counts toward
     * later times, so this rounds toward negative infinity) or, when {@code exact}, refused.
     *
     * @throws IllegalArgumentException when the text is no timestamp, names no day or time,
     *                                  is out of the unit's range, or (exact) is finer than the unit
     */
    public static long parseTimestamp(String text, DataType.TimeUnit unit, boolean exact) {
        Objects.requireNonNull(unit, "unit is null");
        Matcher m = TIMESTAMP.matcher(text.strip());
        if (!m.matches()) {
            throw new Invalid("not a timestamp (yyyy-MM-dd HH:mm:ss[.fraction])");
        }
        long days = epochDay(m.group(1), m.group(2), m.group(3), m.group(4));
        int hour = m.group(5) == null ? 0 : Integer.parseInt(m.group(5));
        int minute = m.group(6) == null ? 0 : Integer.parseInt(m.group(6));
        int second = m.group(7) == null ? 0 : Integer.parseInt(m.group(7));
        if (hour > 23 || minute > 59 || second > 59) {
            throw new Invalid("not a valid time of day");
        }
        long perSecond = unit.perSecond();
        long fraction = 0;
        if (m.group(8) != null) {
            long nanos = Long.parseLong((m.group(8) + "000000000").substring(0, 9));
            long nanosPerTick = 1_000_000_000L / perSecond;
            if (exact && nanos % nanosPerTick != 0) {
                throw new Invalid("more precise than the type's unit (" + unit.abbreviation() + ")");
            }
            fraction = nanos / nanosPerTick;
        }
        try {
            long seconds = combine(days, SECONDS_PER_DAY, hour * 3600L + minute * 60L + second);
            return combine(seconds, perSecond, fraction);
        } catch (ArithmeticException e) {
            throw new Invalid("out of range for Timestamp(" + unit.abbreviation() + ")");
        }
    }

    /**
     * {@code high * per + low} for {@code 0 <= low < per}, exact: {@code high * per} alone may be below
     * Long.MIN_VALUE while the sum is not (Long.MIN_VALUE seconds, or milliseconds).
     *
     * @throws ArithmeticException when the sum is not a long
     */
    private static long combine(long high, long per, long low) {
        if (high < 0 && low > 0) {
            return Math.addExact(Math.multiplyExact(high + 1, per), low - per);
        }
        return Math.addExact(Math.multiplyExact(high, per), low);
    }

    private static long epochDay(String sign, String yearDigits, String monthDigits, String dayDigits) {
        String digits = yearDigits.replaceFirst("^0+(?=.)", "");
        if (digits.length() > MAX_YEAR_DIGITS) {
            throw new Invalid("year out of range");
        }
        long year = Long.parseLong(digits) * ("-".equals(sign) ? -1 : 1);
        int month = Integer.parseInt(monthDigits);
        int day = Integer.parseInt(dayDigits);
        if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
            throw new Invalid("not a valid date");
        }
        // Howard Hinnant's days_from_civil, on longs (|year| < 10^12: no overflow).
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * DAYS_PER_400_YEARS + dayOfEra - DAYS_0000_TO_1970;
    }

    private static int daysInMonth(long year, int month) {
        return switch (month) {
            case 2 ->
                (Math.floorMod(year, 4) == 0 && (Math.floorMod(year, 100) != 0 || Math.floorMod(year, 400) == 0))
                        ? 29
                        : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }
}
