package dev.quiver.kernels;

import dev.quiver.errors.EvaluationException;
import dev.quiver.errors.QuiverException;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.DecimalText;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.TemporalText;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;

/**
 * CAST and TRY_CAST. Each supported pair of types has a value conversion on the Java values of
 * {@link ScalarValue} (used for scalars and for columns of strings, decimals and temporals), and
 * casts among integers, floats and booleans run a primitive loop without boxing.
 */
final class CastKernels {
    /** A value that does not convert; {@code reason} says why. Cheap: no stack trace. */
    static final class CastFailure extends RuntimeException {
        CastFailure(String reason) {
            super(reason, null, false, false);
        }
    }

    private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final double TWO_63 = 0x1p63;
    private static final double TWO_64 = 0x1p64;
    private static final Pattern INTEGER_TEXT = Pattern.compile("[+-]?[0-9]+");

    private CastKernels() {}

    private static boolean isString(DataType t) {
        return t instanceof DataType.Utf8;
    }

    static boolean canCast(DataType from, DataType to) {
        if (from instanceof DataType.Dictionary || to instanceof DataType.Dictionary) {
            return false;
        }
        if (from instanceof DataType.Null || from.equals(to)) {
            return true;
        }
        boolean fromNumber = from.isNumeric();
        boolean toNumber = to.isNumeric();
        if ((fromNumber || from instanceof DataType.Bool) && (toNumber || to instanceof DataType.Bool)) {
            // Booleans convert to and from integers only.
            return !(from instanceof DataType.Bool && !(to instanceof DataType.Int))
                    && !(to instanceof DataType.Bool && !(from instanceof DataType.Int));
        }
        boolean textual = fromNumber
                || from instanceof DataType.Bool
                || from instanceof DataType.Date32
                || from instanceof DataType.Timestamp
                || isString(from)
                || from instanceof DataType.Binary;
        boolean toTextual = toNumber
                || to instanceof DataType.Bool
                || to instanceof DataType.Date32
                || to instanceof DataType.Timestamp
                || isString(to);
        if (isString(to) && textual) {
            return true;
        }
        if (isString(from) && (toTextual || to instanceof DataType.Binary)) {
            return true;
        }
        boolean fromTime = from instanceof DataType.Date32 || from instanceof DataType.Timestamp;
        boolean toTime = to instanceof DataType.Date32 || to instanceof DataType.Timestamp;
        return fromTime && toTime;
    }

    static ColumnarValue cast(ColumnarValue v, DataType to, boolean safe, int rows, BufferAllocator allocator) {
        DataType from = v.dataType().valueType();
        if (!canCast(from, to)) {
            // Unreachable from a plan: the planner refuses every cast canCast refuses.
            throw new UnsupportedOperationException("cast from " + from + " to " + to + " is not supported");
        }
        if (v instanceof ColumnarValue.Scalar s) {
            if (s.isNull()) {
                return ColumnarValue.scalar(to, null);
            }
            if (from.equals(to)) {
                return s;
            }
            try {
                return ColumnarValue.scalar(
                        to, converter(from, to).apply(s.value().value()));
            } catch (CastFailure e) {
                if (safe) {
                    return ColumnarValue.scalar(to, null);
                }
                throw new EvaluationException(
                        "cannot cast " + shown(s.value()) + " to " + to + ": " + e.getMessage(), e);
            }
        }
        FieldVector in = ((ColumnarValue.Array) v).vector();
        if (from instanceof DataType.Null) {
            return new ColumnarValue.Array(ResultVector.allocate(to, rows, allocator));
        }
        if (from.equals(to)) {
            return new ColumnarValue.Array(SelectionKernels.copy(in, rows, allocator));
        }
        FieldVector out = ResultVector.allocate(to, rows, allocator);
        try {
            if (isPrimitive(from) && isPrimitive(to)) {
                primitive(in, from, to, safe, rows, out);
            } else {
                UnaryOperator<Object> convert = converter(from, to);
                for (int i = 0; i < rows; i++) {
                    if (in.isNull(i)) {
                        continue;
                    }
                    ScalarValue value = read(in, i, from);
                    try {
                        Values.set(out, i, new ScalarValue(to, convert.apply(value.value())));
                    } catch (CastFailure e) {
                        if (!safe) {
                            throw failure(value, i, to, e);
                        }
                        Values.setNull(out, i);
                    }
                }
                out.setValueCount(rows);
            }
            return new ColumnarValue.Array(out);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /** Row {@code row} of {@code v} as a value of {@code type} ({@link Values#get} without its LargeUtf8 gap). */
    static ScalarValue read(FieldVector v, int row, DataType type) {
        if (v instanceof LargeVarCharVector large) {
            return new ScalarValue(type, large.isNull(row) ? null : new String(large.get(row), StandardCharsets.UTF_8));
        }
        return Values.get(v, row, type);
    }

    private static QuiverException failure(ScalarValue value, int row, DataType to, CastFailure e) {
        return new EvaluationException(
                        "cannot cast " + shown(value) + " (row " + row + ") to " + to + ": " + e.getMessage(), e)
                .fillRow(row);
    }

    /** The value as a message shows it: a long string cut after 60 characters, its length said (a 1 MB literal is no message). */
    static String shown(ScalarValue value) {
        if (value.value() instanceof String str && str.length() > 80) {
            return "'" + str.substring(0, 60) + "...' (" + str.length() + " characters)";
        }
        return value.toString();
    }

    private static boolean isPrimitive(DataType t) {
        return t instanceof DataType.Int || t instanceof DataType.FloatingPoint || t instanceof DataType.Bool;
    }

    // ---- integers, floats and booleans without boxing

    private static void primitive(FieldVector in, DataType from, DataType to, boolean safe, int rows, FieldVector out) {
        KernelInput src = KernelInput.of(ColumnarValue.Array.borrowed(in), rows, null);
        ResultVector.intersectValidity(out, rows, src);
        ArrowBuf validity = out.getValidityBuffer();
        boolean fromFloat = from instanceof DataType.FloatingPoint;
        boolean fromUnsigned64 = from.equals(DataType.UINT64);
        KernelInput.LongReader longs = fromFloat ? null : src.longs();
        KernelInput.DoubleReader doubles = fromFloat ? src.doubles() : null;
        ResultVector.LongWriter longOut = to instanceof DataType.FloatingPoint ? null : ResultVector.longs(out, to);
        ResultVector.DoubleWriter doubleOut =
                to instanceof DataType.FloatingPoint ? ResultVector.doubles(out, to) : null;
        for (int i = 0; i < rows; i++) {
            if (!ResultVector.isValid(validity, i)) {
                continue;
            }
            try {
                switch (to) {
                    case DataType.Bool _ -> longOut.set(i, longs.get(i) != 0 ? 1 : 0);
                    case DataType.Int t ->
                        longOut.set(
                                i,
                                fromFloat
                                        ? floatToInteger(doubles.get(i), t)
                                        : integerToInteger(longs.get(i), fromUnsigned64, t));
                    case DataType.FloatingPoint f ->
                        doubleOut.set(
                                i,
                                fromFloat
                                        ? floatToFloat(doubles.get(i), f)
                                        : integerToFloat(longs.get(i), fromUnsigned64, f));
                    default -> throw new AssertionError(to);
                }
            } catch (CastFailure e) {
                if (!safe) {
                    throw failure(read(in, i, from), i, to, e);
                }
                ResultVector.setBit(validity, i, false);
            }
        }
    }

    private static long min(DataType.Int t) {
        return t.signed() ? -(1L << (t.bitWidth() - 1)) : 0;
    }

    /** The maximum; for UInt64 the value is 2^64-1 read as a signed long (-1): callers special-case it. */
    private static long max(DataType.Int t) {
        if (t.bitWidth() == 64) {
            return t.signed() ? Long.MAX_VALUE : -1;
        }
        return t.signed() ? (1L << (t.bitWidth() - 1)) - 1 : (1L << t.bitWidth()) - 1;
    }

    private static CastFailure outOfRange() {
        return new CastFailure("out of range");
    }

    /** {@code v} (an unsigned 64-bit value when {@code unsigned64}) as a {@code t}, or a failure when out of range. */
    static long integerToInteger(long v, boolean unsigned64, DataType.Int t) {
        if (t.equals(DataType.UINT64)) {
            if (!unsigned64 && v < 0) {
                throw outOfRange();
            }
            return v;
        }
        if (unsigned64 && v < 0) {
            throw outOfRange();
        }
        if (v < min(t) || v > max(t)) {
            throw outOfRange();
        }
        return v;
    }

    /** Rounds half away from zero: correct for negative values and for values beyond 2^52. */
    static double roundHalfAway(double d) {
        double a = Math.abs(d);
        double f = Math.floor(a);
        if (a - f >= 0.5) {
            f += 1.0;
        }
        return Math.copySign(f, d);
    }

    static long floatToInteger(double d, DataType.Int t) {
        if (!Double.isFinite(d)) {
            throw new CastFailure("not a finite number");
        }
        // Half to even, as DuckDB and PostgreSQL cast floats: 2.5 -> 2, 3.5 -> 4 (decimals round half away).
        double r = Math.rint(d);
        if (t.bitWidth() < 64) {
            if (r < min(t) || r > max(t)) {
                throw outOfRange();
            }
            return (long) r;
        }
        if (t.signed()) {
            if (r < -TWO_63 || r >= TWO_63) {
                throw outOfRange();
            }
            return (long) r;
        }
        if (r < 0 || r >= TWO_64) {
            throw outOfRange();
        }
        return r < TWO_63 ? (long) r : (long) (r - TWO_63) + Long.MIN_VALUE;
    }

    static double integerToFloat(long v, boolean unsigned64, DataType.FloatingPoint f) {
        if (unsigned64 && v < 0) {
            // Halve keeping the sticky bit, convert (one rounding), double: the correctly rounded value.
            long half = (v >>> 1) | (v & 1);
            return f.bitWidth() == 32 ? (double) ((float) half * 2f) : (double) half * 2.0;
        }
        return f.bitWidth() == 32 ? (double) (float) v : (double) v;
    }

    static double floatToFloat(double d, DataType.FloatingPoint f) {
        if (f.bitWidth() == 32 && Double.isFinite(d) && Float.isInfinite((float) d)) {
            throw outOfRange();
        }
        return d;
    }

    // ---- conversions of Java values (ScalarValue's classes)

    /** The conversion of non-null values of {@code from} to {@code to}; throws {@link CastFailure} for a value that does not convert. */
    static UnaryOperator<Object> converter(DataType from, DataType to) {
        if (from.equals(to)) {
            return o -> o;
        }
        if (isPrimitive(from) && isPrimitive(to)) {
            return o -> primitiveValue(o, from, to);
        }
        if ((from.isNumeric() || from instanceof DataType.Bool) && (to.isNumeric() || to instanceof DataType.Bool)) {
            return o -> fromExact(toExact(o, from), to);
        }
        if (isString(to)) {
            return switch (from) {
                case DataType.Utf8 _ -> o -> o;
                case DataType.Binary _ -> o -> decodeUtf8((byte[]) o);
                default -> o -> format(o, from);
            };
        }
        if (isString(from)) {
            if (to instanceof DataType.Binary) {
                return o -> ((String) o).getBytes(StandardCharsets.UTF_8);
            }
            return o -> parse(((String) o).trim(), to);
        }
        return switch (from) {
            case DataType.Date32 _ when to instanceof DataType.Timestamp t -> o -> dateToTimestamp((Integer) o, t);
            case DataType.Timestamp t when to instanceof DataType.Date32 -> o -> timestampToDate((Long) o, t);
            case DataType.Timestamp t
            when to instanceof DataType.Timestamp u -> o -> rescaleTicks((Long) o, t.unit(), u.unit());
            // Unreachable: canCast holds for exactly the pairs above (cast() checks it first).
            default -> throw new UnsupportedOperationException("cast from " + from + " to " + to + " is not supported");
        };
    }

    /** A primitive value read from a boxed one, as the primitive loop computes it. */
    private static Object primitiveValue(Object o, DataType from, DataType to) {
        boolean fromUnsigned64 = from.equals(DataType.UINT64);
        if (from instanceof DataType.FloatingPoint) {
            double d = ((Number) o).doubleValue();
            return switch (to) {
                case DataType.Int t -> integerObject(floatToInteger(d, t), t);
                case DataType.FloatingPoint f -> floatObject(floatToFloat(d, f), f);
                default -> throw new AssertionError(to);
            };
        }
        long v = o instanceof Boolean b ? (b ? 1 : 0) : ((Number) o).longValue(); // BigInteger UInt64: its low 64 bits
        return switch (to) {
            case DataType.Bool _ -> v != 0;
            case DataType.Int t -> integerObject(integerToInteger(v, fromUnsigned64, t), t);
            case DataType.FloatingPoint f -> floatObject(integerToFloat(v, fromUnsigned64, f), f);
            default -> throw new AssertionError(to);
        };
    }

    /** The Java value of integer type {@code t} whose bits are {@code v}. */
    static Object integerObject(long v, DataType.Int t) {
        if (t.signed()) {
            return switch (t.bitWidth()) {
                case 8 -> (byte) v;
                case 16 -> (short) v;
                case 32 -> (int) v;
                default -> v;
            };
        }
        return switch (t.bitWidth()) {
            case 8 -> (short) (v & 0xFF);
            case 16 -> (int) (v & 0xFFFF);
            case 32 -> v & 0xFFFF_FFFFL;
            default -> new BigInteger(Long.toUnsignedString(v));
        };
    }

    private static Object floatObject(double d, DataType.FloatingPoint f) {
        return f.bitWidth() == 32 ? (Object) (float) d : (Object) d;
    }

    /** An exact number (BigDecimal) for integers, booleans and decimals; a Double or Float stays as it is. */
    private static Object toExact(Object o, DataType from) {
        return switch (o) {
            case Boolean b -> b ? BigDecimal.ONE : BigDecimal.ZERO;
            case BigDecimal d -> d;
            case BigInteger i -> new BigDecimal(i);
            case Float f -> f;
            case Double d -> d;
            case Number n -> BigDecimal.valueOf(n.longValue());
            default -> throw new AssertionError(from + " value " + o);
        };
    }

    private static Object fromExact(Object n, DataType to) {
        if (n instanceof Float || n instanceof Double) {
            double d = ((Number) n).doubleValue();
            if (!Double.isFinite(d)) {
                throw new CastFailure("not a finite number");
            }
            // The shortest decimal that reads back as the float, as PostgreSQL converts float to numeric.
            BigDecimal exact = new BigDecimal(n instanceof Float f ? Float.toString(f) : Double.toString(d));
            return switch (to) {
                case DataType.Decimal t -> toDecimal(exact, t);
                case DataType.Int t -> integerObject(floatToInteger(d, t), t);
                default -> throw new AssertionError(to);
            };
        }
        BigDecimal d = (BigDecimal) n;
        return switch (to) {
            case DataType.Decimal t -> toDecimal(d, t);
            case DataType.Int t -> toInteger(d.setScale(0, RoundingMode.HALF_UP).toBigIntegerExact(), t);
            case DataType.FloatingPoint f -> f.bitWidth() == 32 ? (Object) d.floatValue() : (Object) d.doubleValue();
            case DataType.Bool _ -> d.signum() != 0;
            default -> throw new AssertionError(to);
        };
    }

    private static BigDecimal toDecimal(BigDecimal d, DataType.Decimal t) {
        BigDecimal s = d.setScale(t.scale(), RoundingMode.HALF_UP);
        if (s.precision() > t.precision()) {
            throw outOfRange();
        }
        return s;
    }

    private static Object toInteger(BigInteger i, DataType.Int t) {
        if (t.equals(DataType.UINT64)) {
            if (i.signum() < 0 || i.compareTo(UINT64_MAX) > 0) {
                throw outOfRange();
            }
            return i;
        }
        if (i.bitLength() > 63) {
            throw outOfRange();
        }
        return integerObject(integerToInteger(i.longValue(), false, t), t);
    }

    // ---- text

    private static String format(Object o, DataType from) {
        return switch (from) {
            case DataType.Decimal _ -> ((BigDecimal) o).toPlainString();
            case DataType.Date32 _ -> formatDate((Integer) o);
            case DataType.Timestamp t -> formatTimestamp((Long) o, t.unit());
            default -> o.toString(); // integers, floats (NaN, Infinity, -Infinity), booleans (true/false)
        };
    }

    private static String decodeUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new CastFailure("invalid UTF-8");
        }
    }

    private static Object parse(String s, DataType to) {
        return switch (to) {
            case DataType.Int t -> {
                if (!INTEGER_TEXT.matcher(s).matches()) {
                    throw new CastFailure("not an integer");
                }
                yield toInteger(new BigInteger(s), t);
            }
            case DataType.FloatingPoint f -> parseFloat(s, f);
            case DataType.Decimal t -> {
                try {
                    // Bounded by the type, not the text: '1e999999999' and a million digits cost a scan.
                    yield DecimalText.parse(s, t, RoundingMode.HALF_UP);
                } catch (IllegalArgumentException e) {
                    throw new CastFailure(e.getMessage());
                }
            }
            case DataType.Bool _ ->
                switch (s.toLowerCase(Locale.ROOT)) {
                    case "true", "t", "1", "yes" -> true;
                    case "false", "f", "0", "no" -> false;
                    default -> throw new CastFailure("not a boolean");
                };
            case DataType.Utf8 _ -> s;
            case DataType.Date32 _ -> parseDate(s);
            case DataType.Timestamp t -> parseTimestamp(s, t.unit());
            default -> throw new AssertionError(to);
        };
    }

    private static Object parseFloat(String s, DataType.FloatingPoint f) {
        String lower = s.toLowerCase(Locale.ROOT);
        String unsigned = lower.startsWith("+") || lower.startsWith("-") ? lower.substring(1) : lower;
        double special = switch (unsigned) {
            case "inf", "infinity" -> lower.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            case "nan" -> Double.NaN;
            default -> 0;
        };
        if (special != 0 || Double.isNaN(special)) {
            return floatObject(special, f);
        }
        // Java's grammar, without its type suffixes (1d, 1f) and hexadecimal floats, which SQL does not have.
        char last = lower.isEmpty() ? ' ' : lower.charAt(lower.length() - 1);
        if (lower.isEmpty() || last == 'd' || last == 'f' || lower.contains("x") || lower.contains("n")) {
            throw new CastFailure("not a number");
        }
        try {
            if (f.bitWidth() == 32) {
                float v = Float.parseFloat(s);
                if (Float.isInfinite(v)) {
                    throw outOfRange();
                }
                return v;
            }
            double v = Double.parseDouble(s);
            if (Double.isInfinite(v)) {
                throw outOfRange();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new CastFailure("not a number");
        }
    }

    // ---- dates and timestamps (days and ticks since 1970-01-01T00:00Z)

    private static final long SECONDS_PER_DAY = 86_400;

    static String formatDate(int days) {
        return TemporalText.formatDate(days);
    }

    private static int parseDate(String s) {
        long days;
        try {
            days = TemporalText.parseDate(s);
        } catch (IllegalArgumentException e) {
            throw new CastFailure(e.getMessage());
        }
        if ((int) days != days) {
            throw outOfRange();
        }
        return (int) days;
    }

    /** Any value of the unit, years beyond 9999 (and beyond {@code java.time}'s range) included: {@link TemporalText}. */
    static String formatTimestamp(long ticks, DataType.TimeUnit unit) {
        return TemporalText.formatTimestamp(ticks, unit);
    }

    private static long parseTimestamp(String s, DataType.TimeUnit unit) {
        try {
            return TemporalText.parseTimestamp(s, unit, false);
        } catch (IllegalArgumentException e) {
            throw new CastFailure(e.getMessage());
        }
    }

    private static long dateToTimestamp(int days, DataType.Timestamp t) {
        try {
            return Math.multiplyExact(days, SECONDS_PER_DAY * t.unit().perSecond());
        } catch (ArithmeticException e) {
            throw outOfRange();
        }
    }

    private static int timestampToDate(long ticks, DataType.Timestamp t) {
        long days = Math.floorDiv(ticks, SECONDS_PER_DAY * t.unit().perSecond());
        if ((int) days != days) {
            throw outOfRange();
        }
        return (int) days;
    }

    static long rescaleTicks(long ticks, DataType.TimeUnit from, DataType.TimeUnit to) {
        long f = from.perSecond();
        long t = to.perSecond();
        if (t >= f) {
            try {
                return Math.multiplyExact(ticks, t / f);
            } catch (ArithmeticException e) {
                throw outOfRange();
            }
        }
        return Math.floorDiv(ticks, f / t);
    }
}
