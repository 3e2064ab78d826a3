package dev.quiver.value;

import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One typed value, or a typed SQL NULL ({@code value == null}).
 *
 * <p>The Java class of {@code value} is fixed by the type:
 * <table>
 * <tr><th>type</th><th>value</th></tr>
 * <tr><td>Null</td><td>always null</td></tr>
 * <tr><td>Boolean</td><td>{@link Boolean}</td></tr>
 * <tr><td>Int8, Int16, Int32, Int64</td><td>{@link Byte}, {@link Short}, {@link Integer}, {@link Long}</td></tr>
 * <tr><td>UInt8, UInt16, UInt32</td><td>{@link Short}, {@link Integer}, {@link Long} (the unsigned value)</td></tr>
 * <tr><td>UInt64</td><td>{@link BigInteger} (0 to 2^64-1)</td></tr>
 * <tr><td>Float32, Float64</td><td>{@link Float}, {@link Double}</td></tr>
 * <tr><td>Decimal128(p, s)</td><td>{@link BigDecimal} with scale s</td></tr>
 * <tr><td>Utf8, LargeUtf8</td><td>{@link String}</td></tr>
 * <tr><td>Binary</td><td>{@code byte[]} (compared by content)</td></tr>
 * <tr><td>Date32</td><td>{@link Integer}: days since 1970-01-01</td></tr>
 * <tr><td>Timestamp(unit, tz)</td><td>{@link Long}: ticks of unit since the epoch, UTC</td></tr>
 * <tr><td>Interval</td><td>what the Arrow vector's {@code getObject} returns</td></tr>
 * <tr><td>List</td><td>{@link List} of element values</td></tr>
 * <tr><td>Struct</td><td>{@link Map} from field name to value, in field order</td></tr>
 * <tr><td>Dictionary(k, v)</td><td>as v</td></tr>
 * </table>
 */
public record ScalarValue(DataType type, Object value) {

    public ScalarValue {
        Objects.requireNonNull(type, "type is null");
        if (value != null) {
            Class<?> expected = javaClass(type.valueType());
            if (expected != null && !expected.isInstance(value)) {
                throw new IllegalArgumentException("a " + type + " value must be a " + expected.getSimpleName()
                        + ", not " + value.getClass().getName() + " (" + value + ")");
            }
            if (type.valueType() instanceof DataType.Decimal d && ((BigDecimal) value).scale() != d.scale()) {
                throw new IllegalArgumentException("a " + type + " value must have scale " + d.scale() + ": " + value);
            }
            if (type instanceof DataType.Null) {
                throw new IllegalArgumentException("a Null-typed value must be null");
            }
        }
    }

    /** A typed SQL NULL. */
    public static ScalarValue nullOf(DataType type) {
        return new ScalarValue(type, null);
    }

    /**
     * The value of a Java object with its natural type: Boolean, Byte, Short, Integer, Long,
     * Float, Double, BigDecimal (Decimal128 of its precision and scale), String (Utf8),
     * byte[] (Binary), LocalDate (Date32).
     */
    public static ScalarValue of(Object value) {
        Objects.requireNonNull(value, "use nullOf(type) for a typed null");
        return switch (value) {
            case Boolean b -> new ScalarValue(DataType.BOOLEAN, b);
            case Byte b -> new ScalarValue(DataType.INT8, b);
            case Short s -> new ScalarValue(DataType.INT16, s);
            case Integer i -> new ScalarValue(DataType.INT32, i);
            case Long l -> new ScalarValue(DataType.INT64, l);
            case Float f -> new ScalarValue(DataType.FLOAT32, f);
            case Double d -> new ScalarValue(DataType.FLOAT64, d);
            case BigDecimal d -> {
                // A negative scale (1E+3) is written out at scale 0 (1000) first: its precision is the digits it then
                // has.
                if ((long) d.precision() - d.scale() > DataType.Decimal.MAX_PRECISION) {
                    throw new IllegalArgumentException(
                            "no Decimal128 holds " + d + ": more than 38 digits before the point");
                }
                BigDecimal v = d.scale() < 0 ? d.setScale(0) : d;
                yield new ScalarValue(
                        new DataType.Decimal(Math.max(v.precision(), Math.max(1, v.scale())), v.scale()), v);
            }
            case String s -> new ScalarValue(DataType.UTF8, s);
            case byte[] b -> new ScalarValue(DataType.BINARY, b.clone());
            case LocalDate d -> new ScalarValue(DataType.DATE32, (int) d.toEpochDay());
            default ->
                throw new IllegalArgumentException(
                        "no Quiver type for a " + value.getClass().getName() + "; use new ScalarValue(type, value)");
        };
    }

    public boolean isNull() {
        return value == null;
    }

    /** The Java class values of {@code t} have, or null when it is not fixed (intervals). */
    public static Class<?> javaClass(DataType t) {
        return switch (t.valueType()) {
            case DataType.Null _ -> Object.class;
            case DataType.Bool _ -> Boolean.class;
            case DataType.Int i
            when i.signed() ->
                switch (i.bitWidth()) {
                    case 8 -> Byte.class;
                    case 16 -> Short.class;
                    case 32 -> Integer.class;
                    default -> Long.class;
                };
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> Short.class;
                    case 16 -> Integer.class;
                    case 32 -> Long.class;
                    default -> BigInteger.class;
                };
            case DataType.FloatingPoint f -> f.bitWidth() == 32 ? Float.class : Double.class;
            case DataType.Decimal _ -> BigDecimal.class;
            case DataType.Utf8 _ -> String.class;
            case DataType.Binary _ -> byte[].class;
            case DataType.Date32 _ -> Integer.class;
            case DataType.Timestamp _ -> Long.class;
            case DataType.Interval _ -> null;
            case DataType.ListType _ -> List.class;
            case DataType.Struct _ -> Map.class;
            case DataType.Dictionary _ -> throw new AssertionError("valueType() is never a dictionary");
        };
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ScalarValue other) || !type.equals(other.type)) {
            return false;
        }
        if (value instanceof byte[] a && other.value instanceof byte[] b) {
            return Arrays.equals(a, b);
        }
        if (value instanceof Float a && other.value instanceof Float b) {
            return Float.floatToIntBits(a) == Float.floatToIntBits(b);
        }
        if (value instanceof Double a && other.value instanceof Double b) {
            return Double.doubleToLongBits(a) == Double.doubleToLongBits(b);
        }
        return Objects.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + (value instanceof byte[] b ? Arrays.hashCode(b) : Objects.hashCode(value));
    }

    /**
     * SQL text that {@code dev.quiver.sql.SqlParser} reads back as this value of this type:
     * {@code 2} (Int32), {@code 3000000000} (Int64 out of Int32 range), {@code 2.5} (Float64),
     * {@code 'a''b'} (Utf8), {@code TRUE}, {@code NULL} (the untyped null), and for every other type
     * a typed literal {@code TYPE 'text'} as in DuckDB ({@code BIGINT '5'}, {@code REAL '1.5'},
     * {@code DOUBLE 'NaN'}, {@code DECIMAL(10, 2) '1.50'}, {@code DATE '2024-01-31'},
     * {@code TIMESTAMP '2024-01-31 10:00:00'}, {@code BLOB 'a\x00'}) or a typed null
     * {@code NULL::BIGINT}.
     *
     * <p>Types without a DuckDB name that can prefix a literal (LargeUtf8, timestamps with a time zone
     * other than UTC in microseconds, intervals, lists, structs) are written as
     * {@code CAST('text' AS type)}, which reads back as a cast of a literal, not as this literal.
     */
    public String toSql() {
        DataType t = type.valueType();
        String typeName = SqlTypes.sqlName(type);
        if (value == null) {
            return t instanceof DataType.Null ? "NULL" : "NULL::" + typeName;
        }
        // The natural literal forms: the parser types them from their spelling alone.
        switch (t) {
            case DataType.Bool _ -> {
                return ((Boolean) value) ? "TRUE" : "FALSE";
            }
            case DataType.Int i
            when i.equals(DataType.INT32)
                    || (i.equals(DataType.INT64) && (Long) value != ((Long) value).intValue()) -> {
                return value.toString();
            }
            case DataType.FloatingPoint f
            when f.bitWidth() == 64 && Double.isFinite((Double) value) -> {
                return plainDouble((Double) value);
            }
            case DataType.Utf8 u
            when !u.large() -> {
                return quote((String) value);
            }
            default -> {}
        }
        String text = switch (t) {
            case DataType.FloatingPoint _ -> value.toString(); // NaN, Infinity, -Infinity read back too
            case DataType.Decimal _ -> ((BigDecimal) value).toPlainString();
            case DataType.Binary _ -> blobText((byte[]) value);
            case DataType.Date32 _ -> TemporalText.formatDate((Integer) value);
            case DataType.Timestamp ts -> TemporalText.formatTimestamp((Long) value, ts.unit());
            default -> value.toString();
        };
        boolean prefixable = !typeName.startsWith("\"")
                && !(t instanceof DataType.Utf8)
                && !(t instanceof DataType.Interval)
                && !(t instanceof DataType.ListType)
                && !(t instanceof DataType.Struct)
                && !(type instanceof DataType.Dictionary);
        return prefixable ? typeName + " " + quote(text) : "CAST(" + quote(text) + " AS " + typeName + ")";
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** DuckDB's BLOB text: printable ASCII as itself, a backslash doubled, other bytes as {@code \xHH}. */
    private static String blobText(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c == '\\') {
                sb.append("\\\\");
            } else if (c >= 0x20 && c < 0x7f) {
                sb.append((char) c);
            } else {
                sb.append(String.format("\\x%02X", c));
            }
        }
        return sb.toString();
    }

    private static String plainDouble(double d) {
        String s = Double.toString(d);
        // SQL reads 2.5 and 1.0E-5 as doubles; make sure there is always a '.' or an exponent.
        return s.contains(".") || s.contains("E") ? s : s + ".0";
    }

    @Override
    public String toString() {
        if (value == null) {
            return "NULL";
        }
        return switch (value) {
            case String s -> "'" + s + "'";
            case byte[] b -> "0x" + HexFormat.of().formatHex(b);
            default ->
                type.valueType() instanceof DataType.Date32
                        ? TemporalText.formatDate((Integer) value)
                        : value.toString();
        };
    }
}
