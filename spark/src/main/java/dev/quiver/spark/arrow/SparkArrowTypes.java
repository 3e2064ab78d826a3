package dev.quiver.spark.arrow;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StringType$;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * The Spark SQL types Quiver reads and writes as Arrow, and their Arrow types, in both
 * directions:
 *
 * <table>
 * <caption>Spark type and Arrow type</caption>
 * <tr><th>Spark</th><th>Arrow</th></tr>
 * <tr><td>boolean</td><td>Bool</td></tr>
 * <tr><td>tinyint, smallint, int, bigint</td><td>Int(8, 16, 32, 64, signed)</td></tr>
 * <tr><td>float, double</td><td>FloatingPoint(SINGLE, DOUBLE)</td></tr>
 * <tr><td>string (default UTF8_BINARY collation only; char(n) and varchar(n) too)</td><td>Utf8 (LargeUtf8 back to string)</td></tr>
 * <tr><td>binary</td><td>Binary (LargeBinary back to binary)</td></tr>
 * <tr><td>date</td><td>Date(DAY)</td></tr>
 * <tr><td>timestamp</td><td>Timestamp(MICROSECOND, "UTC") (any time zone back to timestamp)</td></tr>
 * <tr><td>timestamp_ntz</td><td>Timestamp(MICROSECOND, no time zone)</td></tr>
 * <tr><td>decimal(p, s)</td><td>Decimal(p, s, 128)</td></tr>
 * <tr><td>void (Arrow to Spark only)</td><td>Null</td></tr>
 * </table>
 *
 * <p>Every other type (arrays, maps, structs, intervals, variants, strings with a collation
 * other than UTF8_BINARY, ...) has no Arrow import: {@link #arrowType} is empty for it and
 * {@link #unsupportedReason} says so, so that a plan can leave such columns to Spark.
 */
public final class SparkArrowTypes {
    /** The time zone of the Arrow type of Spark's {@code timestamp}: its values are UTC instants. */
    public static final String UTC = "UTC";

    private SparkArrowTypes() {}

    /**
     * The Arrow type Spark's {@code t} is stored as, or empty when Quiver does not import it.
     *
     * <pre>{@code
     * SparkArrowTypes.arrowType(DataTypes.IntegerType)   // Optional[Int(32, true)]
     * SparkArrowTypes.arrowType(DataTypes.createArrayType(DataTypes.IntegerType))   // Optional.empty
     * }</pre>
     */
    public static Optional<ArrowType> arrowType(DataType t) {
        Objects.requireNonNull(t, "t is null");
        ArrowType a = switch (t) {
            case BooleanType _ -> ArrowType.Bool.INSTANCE;
            case ByteType _ -> new ArrowType.Int(8, true);
            case ShortType _ -> new ArrowType.Int(16, true);
            case IntegerType _ -> new ArrowType.Int(32, true);
            case LongType _ -> new ArrowType.Int(64, true);
            case FloatType _ -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case DoubleType _ -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case StringType s when isDefaultCollation(s) -> ArrowType.Utf8.INSTANCE;
            case BinaryType _ -> ArrowType.Binary.INSTANCE;
            case DateType _ -> new ArrowType.Date(DateUnit.DAY);
            case TimestampType _ -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, UTC);
            case TimestampNTZType _ -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
            case DecimalType d
            when d.precision() <= 38 && d.scale() >= 0 && d.scale() <= d.precision() ->
                new ArrowType.Decimal(d.precision(), d.scale(), 128);
            default -> null;
        };
        return Optional.ofNullable(a);
    }

    /**
     * Why {@code t} has no Arrow import, for EXPLAIN and error messages; empty when
     * {@link #arrowType} supports it.
     */
    public static Optional<String> unsupportedReason(DataType t) {
        Objects.requireNonNull(t, "t is null");
        if (arrowType(t).isPresent()) {
            return Optional.empty();
        }
        if (t instanceof StringType s) {
            return Optional.of("type " + t.simpleString() + " has no Arrow import: its collation " + s.collationName()
                    + " is not the default UTF8_BINARY");
        }
        return Optional.of("type " + t.simpleString() + " has no Arrow import");
    }

    /**
     * The Arrow field of a Spark column: {@code name}, {@link #arrowType}, {@code nullable}, no
     * children.
     *
     * @throws IllegalArgumentException with {@link #unsupportedReason} when {@code t} has no Arrow import
     */
    public static Field field(String name, DataType t, boolean nullable) {
        Objects.requireNonNull(name, "name is null");
        ArrowType a = arrowType(t)
                .orElseThrow(() -> new IllegalArgumentException(
                        "column '" + name + "': " + unsupportedReason(t).orElseThrow()));
        return new Field(name, new FieldType(nullable, a, null), List.of());
    }

    /**
     * The Spark type of Arrow's {@code t}: the inverse of {@link #arrowType}, also accepting
     * LargeUtf8 (string), LargeBinary (binary), a timestamp in microseconds with any time zone
     * ({@code timestamp}: Arrow's values are UTC instants whatever the zone) and Null
     * ({@code void}, the type of an expression such as {@code NULL}). Empty for every other type
     * (unsigned integers, half floats, other units, nested types, ...).
     */
    public static Optional<DataType> sparkType(ArrowType t) {
        Objects.requireNonNull(t, "t is null");
        DataType s = switch (t) {
            case ArrowType.Bool _ -> DataTypes.BooleanType;
            case ArrowType.Int i
            when i.getIsSigned() ->
                switch (i.getBitWidth()) {
                    case 8 -> DataTypes.ByteType;
                    case 16 -> DataTypes.ShortType;
                    case 32 -> DataTypes.IntegerType;
                    case 64 -> DataTypes.LongType;
                    default -> null;
                };
            case ArrowType.FloatingPoint f
            when f.getPrecision() == FloatingPointPrecision.SINGLE -> DataTypes.FloatType;
            case ArrowType.FloatingPoint f
            when f.getPrecision() == FloatingPointPrecision.DOUBLE -> DataTypes.DoubleType;
            case ArrowType.Utf8 _ -> DataTypes.StringType;
            case ArrowType.LargeUtf8 _ -> DataTypes.StringType;
            case ArrowType.Binary _ -> DataTypes.BinaryType;
            case ArrowType.LargeBinary _ -> DataTypes.BinaryType;
            case ArrowType.Date d when d.getUnit() == DateUnit.DAY -> DataTypes.DateType;
            case ArrowType.Timestamp ts
            when ts.getUnit() == TimeUnit.MICROSECOND ->
                ts.getTimezone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
            case ArrowType.Decimal d
            when d.getBitWidth() == 128
                    && d.getPrecision() >= 1
                    && d.getPrecision() <= 38
                    && d.getScale() >= 0
                    && d.getScale() <= d.getPrecision() -> DataTypes.createDecimalType(d.getPrecision(), d.getScale());
            case ArrowType.Null _ -> DataTypes.NullType;
            default -> null;
        };
        return Optional.ofNullable(s);
    }

    private static boolean isDefaultCollation(StringType s) {
        return s.collationId() == StringType$.MODULE$.collationId();
    }
}
