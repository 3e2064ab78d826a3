package dev.quiver.types;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Quiver's logical types, one to one with the Arrow types they are stored as. The mapping is
 * the table in README.md ("Types"); {@link #toArrow()} and {@link #fromField(Field)} are its
 * two directions.
 *
 * <p>Planning works on these types; a dictionary-encoded column has type
 * {@link Dictionary}{@code (index, value)} and computes as its value type.
 */
public sealed interface DataType {

    Null NULL = new Null();
    Bool BOOLEAN = new Bool();
    Int INT8 = new Int(8, true);
    Int INT16 = new Int(16, true);
    Int INT32 = new Int(32, true);
    Int INT64 = new Int(64, true);
    Int UINT8 = new Int(8, false);
    Int UINT16 = new Int(16, false);
    Int UINT32 = new Int(32, false);
    Int UINT64 = new Int(64, false);
    FloatingPoint FLOAT32 = new FloatingPoint(32);
    FloatingPoint FLOAT64 = new FloatingPoint(64);
    Utf8 UTF8 = new Utf8(false);
    Utf8 LARGE_UTF8 = new Utf8(true);
    Binary BINARY = new Binary();
    Date32 DATE32 = new Date32();

    /** The Arrow type a vector of this type has (for a dictionary, the value type's). */
    ArrowType toArrow();

    /** A field of this type; lists and structs get their child fields, dictionaries their encoding. */
    default Field toField(String name, boolean nullable) {
        return new Field(name, new FieldType(nullable, toArrow(), null), List.of());
    }

    /** The type values of this type compute as: the value type of a dictionary, else itself. */
    default DataType valueType() {
        return this;
    }

    default boolean isNumeric() {
        return this instanceof Int || this instanceof FloatingPoint || this instanceof Decimal;
    }

    default boolean isInteger() {
        return this instanceof Int;
    }

    default boolean isFloat() {
        return this instanceof FloatingPoint;
    }

    default boolean isString() {
        return this instanceof Utf8;
    }

    default boolean isTemporal() {
        return this instanceof Date32 || this instanceof Timestamp || this instanceof Interval;
    }

    /** The kernel element type of this type, when the fused kernels (CPU and OpenCL) compute on it. */
    default Optional<ElementType> elementType() {
        return ElementType.fromArrow(toArrow());
    }

    record Null() implements DataType {
        public ArrowType toArrow() {
            return ArrowType.Null.INSTANCE;
        }

        public String toString() {
            return "Null";
        }
    }

    record Bool() implements DataType {
        public ArrowType toArrow() {
            return ArrowType.Bool.INSTANCE;
        }

        public String toString() {
            return "Boolean";
        }
    }

    /** A signed or unsigned integer of 8, 16, 32 or 64 bits. */
    record Int(int bitWidth, boolean signed) implements DataType {
        public Int {
            if (bitWidth != 8 && bitWidth != 16 && bitWidth != 32 && bitWidth != 64) {
                throw new IllegalArgumentException("integer width must be 8, 16, 32 or 64, not " + bitWidth);
            }
        }

        public ArrowType toArrow() {
            return new ArrowType.Int(bitWidth, signed);
        }

        public String toString() {
            return (signed ? "Int" : "UInt") + bitWidth;
        }
    }

    /** Float32 or Float64 (Arrow's half precision is not supported). */
    record FloatingPoint(int bitWidth) implements DataType {
        public FloatingPoint {
            if (bitWidth != 32 && bitWidth != 64) {
                throw new IllegalArgumentException("float width must be 32 or 64, not " + bitWidth);
            }
        }

        public ArrowType toArrow() {
            return new ArrowType.FloatingPoint(
                    bitWidth == 32 ? FloatingPointPrecision.SINGLE : FloatingPointPrecision.DOUBLE);
        }

        public String toString() {
            return "Float" + bitWidth;
        }
    }

    /** Decimal128(precision 1..38, scale 0..precision). */
    record Decimal(int precision, int scale) implements DataType {
        public static final int MAX_PRECISION = 38;

        public Decimal {
            if (precision < 1 || precision > MAX_PRECISION || scale < 0 || scale > precision) {
                throw new IllegalArgumentException(
                        "Decimal128 needs 1 <= precision <= 38 and 0 <= scale <= precision, not (" + precision + ", "
                                + scale + ")");
            }
        }

        public ArrowType toArrow() {
            return new ArrowType.Decimal(precision, scale, 128);
        }

        public String toString() {
            return "Decimal128(" + precision + ", " + scale + ")";
        }
    }

    /** Utf8 (32-bit offsets) or LargeUtf8 (64-bit offsets). */
    record Utf8(boolean large) implements DataType {
        public ArrowType toArrow() {
            return large ? ArrowType.LargeUtf8.INSTANCE : ArrowType.Utf8.INSTANCE;
        }

        public String toString() {
            return large ? "LargeUtf8" : "Utf8";
        }
    }

    record Binary() implements DataType {
        public ArrowType toArrow() {
            return ArrowType.Binary.INSTANCE;
        }

        public String toString() {
            return "Binary";
        }
    }

    /** Days since 1970-01-01. */
    record Date32() implements DataType {
        public ArrowType toArrow() {
            return new ArrowType.Date(DateUnit.DAY);
        }

        public String toString() {
            return "Date32";
        }
    }

    enum TimeUnit {
        SECOND("s"),
        MILLISECOND("ms"),
        MICROSECOND("us"),
        NANOSECOND("ns");

        private final String abbreviation;

        TimeUnit(String abbreviation) {
            this.abbreviation = abbreviation;
        }

        public String abbreviation() {
            return abbreviation;
        }

        @SuppressWarnings("checkstyle:inlinefqn") // Arrow's TimeUnit, beside this one
        public org.apache.arrow.vector.types.TimeUnit toArrow() {
            return org.apache.arrow.vector.types.TimeUnit.valueOf(name());
        }

        /** Ticks of this unit in one second. */
        public long perSecond() {
            return switch (this) {
                case SECOND -> 1;
                case MILLISECOND -> 1_000;
                case MICROSECOND -> 1_000_000;
                case NANOSECOND -> 1_000_000_000;
            };
        }
    }

    /**
     * Ticks of {@code unit} since 1970-01-01T00:00:00Z; {@code timezone} is null for a
     * timestamp without time zone, else an IANA name or offset such as {@code "UTC"}.
     */
    record Timestamp(TimeUnit unit, String timezone) implements DataType {
        public Timestamp {
            Objects.requireNonNull(unit, "unit is null");
        }

        public ArrowType toArrow() {
            return new ArrowType.Timestamp(unit.toArrow(), timezone);
        }

        public String toString() {
            return "Timestamp(" + unit.abbreviation() + (timezone == null ? "" : ", " + timezone) + ")";
        }
    }

    /** Arrow's intervals: YEAR_MONTH, DAY_TIME and MONTH_DAY_NANO. */
    record Interval(IntervalUnit unit) implements DataType {
        public Interval {
            Objects.requireNonNull(unit, "unit is null");
        }

        public ArrowType toArrow() {
            return new ArrowType.Interval(unit);
        }

        public String toString() {
            return "Interval(" + unit + ")";
        }
    }

    /** A list whose elements have type {@code element}. */
    record ListType(DataType element, boolean elementNullable) implements DataType {
        public ListType {
            Objects.requireNonNull(element, "element is null");
        }

        public ArrowType toArrow() {
            return ArrowType.List.INSTANCE;
        }

        @Override
        public Field toField(String name, boolean nullable) {
            return new Field(
                    name, new FieldType(nullable, toArrow(), null), List.of(element.toField("item", elementNullable)));
        }

        public String toString() {
            return "List(" + element + ")";
        }
    }

    /** One named, typed child of a {@link Struct}. */
    record StructField(String name, DataType type, boolean nullable) {
        public StructField {
            Objects.requireNonNull(name, "name is null");
            Objects.requireNonNull(type, "type is null");
        }
    }

    record Struct(List<StructField> fields) implements DataType {
        public Struct {
            fields = List.copyOf(fields);
        }

        public ArrowType toArrow() {
            return ArrowType.Struct.INSTANCE;
        }

        @Override
        public Field toField(String name, boolean nullable) {
            List<Field> children = new ArrayList<>();
            for (StructField f : fields) {
                children.add(f.type().toField(f.name(), f.nullable()));
            }
            return new Field(name, new FieldType(nullable, toArrow(), null), children);
        }

        public String toString() {
            StringBuilder sb = new StringBuilder("Struct(");
            for (int i = 0; i < fields.size(); i++) {
                sb.append(i == 0 ? "" : ", ")
                        .append(fields.get(i).name())
                        .append(' ')
                        .append(fields.get(i).type());
            }
            return sb.append(')').toString();
        }
    }

    /**
     * A dictionary-encoded column: integer indices into a dictionary of {@code value}s.
     * Computes as its value type; results are plain (not dictionary-encoded) vectors.
     */
    record Dictionary(Int index, DataType value) implements DataType {
        public Dictionary {
            Objects.requireNonNull(index, "index is null");
            Objects.requireNonNull(value, "value is null");
            if (value instanceof Dictionary) {
                throw new IllegalArgumentException("a dictionary of dictionaries is not supported");
            }
        }

        public ArrowType toArrow() {
            return value.toArrow();
        }

        @Override
        public DataType valueType() {
            return value;
        }

        /** The field with {@code id} as its dictionary id; its Arrow type is the index type, as Arrow requires. */
        public Field toField(String name, boolean nullable, long id) {
            return new Field(
                    name,
                    new FieldType(nullable, index.toArrow(), new DictionaryEncoding(id, false, (ArrowType.Int)
                            index.toArrow())),
                    List.of());
        }

        @Override
        public Field toField(String name, boolean nullable) {
            return toField(name, nullable, 0);
        }

        public String toString() {
            return "Dictionary(" + index + ", " + value + ")";
        }
    }

    /**
     * The type of an Arrow field. A dictionary-encoded field gives {@link Dictionary} with the
     * value type {@code valueType} (Arrow's schema does not carry it; pass {@code null} when the
     * field is not dictionary-encoded).
     *
     * @throws IllegalArgumentException for an Arrow type Quiver does not support, naming it
     */
    static DataType fromField(Field field, DataType dictionaryValueType) {
        DictionaryEncoding enc = field.getDictionary();
        if (enc != null) {
            if (dictionaryValueType == null) {
                throw new IllegalArgumentException("column '" + field.getName() + "' is dictionary-encoded (id "
                        + enc.getId() + ") and its dictionary's value type is unknown");
            }
            ArrowType.Int idx = enc.getIndexType();
            return new Dictionary(new Int(idx.getBitWidth(), idx.getIsSigned()), dictionaryValueType);
        }
        ArrowType t = field.getType();
        return switch (t) {
            case ArrowType.List _ -> {
                Field child = field.getChildren().getFirst();
                yield new ListType(fromField(child, null), child.isNullable());
            }
            case ArrowType.Struct _ -> {
                List<StructField> fs = new ArrayList<>();
                for (Field c : field.getChildren()) {
                    fs.add(new StructField(c.getName(), fromField(c, null), c.isNullable()));
                }
                yield new Struct(fs);
            }
            default -> fromArrow(t);
        };
    }

    /** The type of a non-nested, non-dictionary field. */
    static DataType fromField(Field field) {
        return fromField(field, null);
    }

    /**
     * The Quiver type of a flat Arrow type.
     *
     * @throws IllegalArgumentException for nested types (use {@link #fromField}) and for Arrow
     *                                  types Quiver does not support
     */
    /** The shared constant for an integer type (types are compared by value; this only saves allocations per batch). */
    private static Int intType(int bits, boolean signed) {
        return switch (bits) {
            case 8 -> signed ? INT8 : UINT8;
            case 16 -> signed ? INT16 : UINT16;
            case 32 -> signed ? INT32 : UINT32;
            case 64 -> signed ? INT64 : UINT64;
            default -> new Int(bits, signed);
        };
    }

    static DataType fromArrow(ArrowType t) {
        return switch (t) {
            case ArrowType.Null _ -> NULL;
            case ArrowType.Bool _ -> BOOLEAN;
            case ArrowType.Int i -> intType(i.getBitWidth(), i.getIsSigned());
            case ArrowType.FloatingPoint f when f.getPrecision() == FloatingPointPrecision.SINGLE -> FLOAT32;
            case ArrowType.FloatingPoint f when f.getPrecision() == FloatingPointPrecision.DOUBLE -> FLOAT64;
            case ArrowType.Decimal d when d.getBitWidth() == 128 -> new Decimal(d.getPrecision(), d.getScale());
            case ArrowType.Utf8 _ -> UTF8;
            case ArrowType.LargeUtf8 _ -> LARGE_UTF8;
            case ArrowType.Binary _ -> BINARY;
            case ArrowType.Date d when d.getUnit() == DateUnit.DAY -> DATE32;
            case ArrowType.Timestamp ts ->
                new Timestamp(TimeUnit.valueOf(ts.getUnit().name()), ts.getTimezone());
            case ArrowType.Interval iv -> new Interval(iv.getUnit());
            case ArrowType.Utf8View _ ->
                throw new IllegalArgumentException(
                        "Arrow type Utf8View (string views) is not supported: "
                                + "Quiver's string kernels read Utf8 and LargeUtf8; convert the column to one of those (docs/strings.md)");
            default ->
                throw new IllegalArgumentException("Arrow type " + t + " is not supported (supported: "
                        + "Null, Bool, Int8-64, UInt8-64, Float32/64, Decimal128, Utf8, LargeUtf8, Binary, Date32, Timestamp, "
                        + "Interval, List, Struct, and dictionaries of these)");
        };
    }

    /**
     * Parses a type name as written on the command line and in SQL casts, case-insensitively:
     * {@code int8..int64, uint8..uint64, float32/float64 (float, real, double), boolean,
     * decimal(p,s), utf8 (string, varchar, text), large_utf8, binary, date32 (date),
     * timestamp[unit] or timestamp[unit, tz], null} and the SQL names
     * {@code tinyint smallint integer int bigint}.
     */
    static DataType parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT).replace(" ", "");
        if ((s.startsWith("decimal(") || s.startsWith("numeric(")) && s.endsWith(")")) {
            String[] ps = s.substring(s.indexOf('(') + 1, s.length() - 1).split(",");
            try {
                return new Decimal(Integer.parseInt(ps[0]), ps.length > 1 ? Integer.parseInt(ps[1]) : 0);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad decimal type '" + text + "' (write decimal(precision, scale))");
            }
        }
        if (s.equals("timestamp")) {
            return new Timestamp(TimeUnit.MICROSECOND, null);
        }
        if (s.startsWith("timestamp[") && s.endsWith("]")) {
            String inner = s.substring(s.indexOf('[') + 1, s.length() - 1);
            String[] ps = inner.split(",", 2);
            TimeUnit unit = switch (ps[0]) {
                case "s" -> TimeUnit.SECOND;
                case "ms" -> TimeUnit.MILLISECOND;
                case "us" -> TimeUnit.MICROSECOND;
                case "ns" -> TimeUnit.NANOSECOND;
                default ->
                    throw new IllegalArgumentException(
                            "unknown time unit '" + ps[0] + "' in '" + text + "' (s, ms, us, ns)");
            };
            String original = text.trim();
            return new Timestamp(
                    unit,
                    ps.length > 1
                            ? original.substring(original.indexOf(',') + 1, original.length() - 1)
                                    .trim()
                            : null);
        }
        return switch (s) {
            case "null" -> NULL;
            case "boolean", "bool" -> BOOLEAN;
            case "int8", "tinyint" -> INT8;
            case "int16", "smallint" -> INT16;
            case "int32", "int", "integer" -> INT32;
            case "int64", "bigint", "long" -> INT64;
            case "uint8", "utinyint" -> UINT8;
            case "uint16", "usmallint" -> UINT16;
            case "uint32", "uinteger" -> UINT32;
            case "uint64", "ubigint" -> UINT64;
            case "float32", "float", "real" -> FLOAT32;
            case "float64", "double" -> FLOAT64;
            case "utf8", "string", "varchar", "text" -> UTF8;
            case "large_utf8", "largeutf8" -> LARGE_UTF8;
            case "binary", "blob", "varbinary", "bytea" -> BINARY;
            case "date32", "date" -> DATE32;
            default ->
                throw new IllegalArgumentException(
                        "unknown type '" + text + "' (int8..int64, uint8..uint64, float32, float64, "
                                + "boolean, decimal(p,s), utf8, large_utf8, binary, date32, timestamp[unit] or timestamp[unit, tz], null)");
        };
    }
}
