package dev.quiver.sql;

import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import dev.quiver.value.DecimalText;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.TemporalText;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The value of {@code TYPE 'text'} (DuckDB's and PostgreSQL's typed literals): {@code DATE '2024-01-31'},
 * {@code TIMESTAMP '2024-01-31 10:00:00'}, {@code BIGINT '5'}, {@code DOUBLE 'NaN'}, {@code DECIMAL(10, 2) '1.50'},
 * {@code BLOB '\xAB'}: the forms {@link ScalarValue#toSql()} writes. A timestamp's text may end with a zone:
 * an offset ({@code +02:00}, {@code -0530}, {@code Z}) or a name ({@code UTC}, {@code Europe/Paris}); the
 * value is then that instant, in UTC, as DataFusion reads such text.
 */
public final class TypedLiterals {
    private static final Pattern ZONE_SUFFIX =
            Pattern.compile("^(.*?\\d)\\s*(Z|[+-]\\d{2}(?::?\\d{2})?|\\s[A-Za-z][A-Za-z0-9_+\\-/]*)$");

    private TypedLiterals() {}

    /**
     * The value {@code TYPE 'text'} stands for.
     *
     * @throws IllegalArgumentException "invalid TYPE literal 'text': why", or for a type without a literal form
     */
    public static ScalarValue of(DataType type, String text) {
        try {
            Object value = switch (type) {
                case DataType.Bool _ ->
                    switch (text.trim().toLowerCase(Locale.ROOT)) {
                        case "true", "t" -> Boolean.TRUE;
                        case "false", "f" -> Boolean.FALSE;
                        default -> throw new IllegalArgumentException("not a boolean");
                    };
                case DataType.Int i -> integerOfWidth(i, new BigInteger(text.trim()));
                case DataType.FloatingPoint f -> {
                    double d = parseDouble(text.trim());
                    yield f.bitWidth() == 32 ? (Object) (float) d : (Object) d;
                }
                case DataType.Decimal d -> DecimalText.parse(text, d, RoundingMode.UNNECESSARY);
                case DataType.Utf8 _ -> text;
                case DataType.Binary _ -> decodeBlob(text);
                case DataType.Date32 _ -> {
                    long days = TemporalText.parseDate(text);
                    if ((int) days != days) {
                        throw new IllegalArgumentException("out of range for Date32");
                    }
                    yield (int) days;
                }
                case DataType.Timestamp ts -> timestamp(text, ts.unit());
                default -> throw new IllegalArgumentException("no literal syntax for this type");
            };
            return new ScalarValue(type, value);
        } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "invalid " + SqlTypes.sqlName(type) + " literal '" + text + "': " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "invalid " + SqlTypes.sqlName(type) + " literal '" + text + "': " + e.getMessage(), e);
        }
    }

    /** Ticks of {@code unit} since the epoch, UTC; a zone at the end of the text moves the local time to UTC. */
    private static long timestamp(String text, DataType.TimeUnit unit) {
        String t = text.strip();
        Matcher m = ZONE_SUFFIX.matcher(t);
        if (!m.matches() || !m.group(1).contains(" ") && !m.group(1).contains("T")) {
            return TemporalText.parseTimestamp(
                    t, unit, true); // the form ScalarValue.toSql writes, every long of the unit
        }
        String local = m.group(1).replace('T', ' ');
        String zone = m.group(2).strip();
        long ticks = TemporalText.parseTimestamp(local, unit, true);
        long perSecond = switch (unit) {
            case SECOND -> 1;
            case MILLISECOND -> 1_000;
            case MICROSECOND -> 1_000_000;
            case NANOSECOND -> 1_000_000_000;
        };
        long seconds = Math.floorDiv(ticks, perSecond);
        int offsetSeconds;
        try {
            ZoneId id = ZoneId.of(
                    zone.equals("Z")
                            ? "UTC"
                            : zone.matches("[+-]\\d{2}")
                                    ? zone + ":00"
                                    : zone.matches("[+-]\\d{4}")
                                            ? zone.substring(0, 3) + ":" + zone.substring(3)
                                            : zone);
            LocalDateTime at = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
            offsetSeconds = id.getRules().getOffset(at).getTotalSeconds();
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("unknown time zone '" + zone + "'", e);
        }
        return Math.subtractExact(ticks, Math.multiplyExact((long) offsetSeconds, perSecond));
    }

    private static Object integerOfWidth(DataType.Int t, BigInteger v) {
        BigInteger min = t.signed() ? BigInteger.ONE.shiftLeft(t.bitWidth() - 1).negate() : BigInteger.ZERO;
        BigInteger max = t.signed()
                ? BigInteger.ONE.shiftLeft(t.bitWidth() - 1).subtract(BigInteger.ONE)
                : BigInteger.ONE.shiftLeft(t.bitWidth()).subtract(BigInteger.ONE);
        if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
            throw new IllegalArgumentException("out of range " + min + " to " + max);
        }
        Class<?> c = ScalarValue.javaClass(t);
        if (c == Byte.class) {
            return v.byteValue();
        } else if (c == Short.class) {
            return v.shortValue();
        } else if (c == Integer.class) {
            return v.intValue();
        } else if (c == Long.class) {
            return v.longValue();
        }
        return v;
    }

    private static double parseDouble(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "nan" -> Double.NaN;
            case "inf", "infinity", "+inf", "+infinity" -> Double.POSITIVE_INFINITY;
            case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }

    /** DuckDB's BLOB text: characters stand for their byte; {@code \xHH} for any byte; {@code \\} for a backslash. */
    private static byte[] decodeBlob(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                if (i + 1 < text.length() && text.charAt(i + 1) == '\\') {
                    out.write('\\');
                    i++;
                } else if (i + 3 < text.length() && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == 'X')) {
                    out.write(Integer.parseInt(text.substring(i + 2, i + 4), 16));
                    i += 3;
                } else {
                    throw new IllegalArgumentException("a backslash must start \\xHH or \\\\");
                }
            } else if (c > 0x7f) {
                throw new IllegalArgumentException("write bytes above 0x7f as \\xHH");
            } else {
                out.write(c);
            }
        }
        return out.toByteArray();
    }
}
