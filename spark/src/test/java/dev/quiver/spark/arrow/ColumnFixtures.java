package dev.quiver.spark.arrow;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Hostile values of every supported Spark type, and two independent readings of a column, one
 * through Spark's {@link ColumnVector} and {@code InternalRow} getters and one through Arrow's
 * own getters, normalized so that equal values compare equal: integers as Long (after the
 * type's own sign extension), floats as their raw bits (NaN payloads and the sign of zero
 * count), strings and binaries as their bytes, decimals as BigDecimal with the column's scale.
 */
final class ColumnFixtures {
    static final List<DataType> TYPES = List.of(
            DataTypes.BooleanType,
            DataTypes.ByteType,
            DataTypes.ShortType,
            DataTypes.IntegerType,
            DataTypes.LongType,
            DataTypes.FloatType,
            DataTypes.DoubleType,
            DataTypes.StringType,
            DataTypes.BinaryType,
            DataTypes.DateType,
            DataTypes.TimestampType,
            DataTypes.TimestampNTZType,
            DataTypes.createDecimalType(9, 2),
            DataTypes.createDecimalType(18, 0),
            DataTypes.createDecimalType(38, 10));

    private static final String[] STRINGS = {
        "", "a", "héllo wörld", "日本語テキスト", "😀 emoji \uD83D\uDE80", "x".repeat(300), "\u0000nul inside"
    };

    private ColumnFixtures() {}

    /**
     * Value {@code i} of type {@code t} in Spark's internal form (Boolean, Byte, Short, Integer for
     * int and date, Long for bigint and timestamps, Float, Double, UTF8String, byte[], Decimal):
     * the type's extremes and oddities first, then random values.
     */
    static Object value(DataType t, Random r, int i) {
        return switch (t) {
            case BooleanType _ -> i < 2 ? i == 0 : r.nextBoolean();
            case ByteType _ -> (byte) pick(i, r, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case ShortType _ -> (short) pick(i, r, Short.MIN_VALUE, Short.MAX_VALUE);
            case IntegerType _ -> (int) pick(i, r, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case DateType _ -> (int) pick(i, r, -719_162, 2_932_896); // 0001-01-01 .. 9999-12-31
            case LongType _ -> pick(i, r, Long.MIN_VALUE, Long.MAX_VALUE);
            case TimestampType _ -> pick(i, r, Long.MIN_VALUE, Long.MAX_VALUE);
            case TimestampNTZType _ -> pick(i, r, Long.MIN_VALUE, Long.MAX_VALUE);
            case FloatType _ -> {
                float[] odd = {
                    Float.NaN,
                    Float.intBitsToFloat(0x7fc0_0123),
                    Float.intBitsToFloat(0xff80_0001),
                    -0f,
                    0f,
                    Float.POSITIVE_INFINITY,
                    Float.NEGATIVE_INFINITY,
                    Float.MIN_VALUE,
                    -Float.MIN_VALUE,
                    Float.MAX_VALUE,
                    -Float.MAX_VALUE,
                    Float.MIN_NORMAL
                };
                yield i < odd.length ? odd[i] : (r.nextFloat() - 0.5f) * 2e6f;
            }
            case DoubleType _ -> {
                double[] odd = {
                    Double.NaN,
                    Double.longBitsToDouble(0x7ff8_0000_0000_0123L),
                    Double.longBitsToDouble(0xfff0_0000_0000_0001L),
                    -0.0,
                    0.0,
                    Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY,
                    Double.MIN_VALUE,
                    -Double.MIN_VALUE,
                    Double.MAX_VALUE,
                    -Double.MAX_VALUE,
                    Double.MIN_NORMAL
                };
                yield i < odd.length ? odd[i] : (r.nextDouble() - 0.5) * 2e12;
            }
            case StringType _ -> UTF8String.fromBytes(bytes(r, i));
            case BinaryType _ -> bytes(r, i);
            case DecimalType d -> {
                BigInteger max = BigInteger.TEN.pow(d.precision()).subtract(BigInteger.ONE);
                BigInteger[] odd = {max, max.negate(), BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE.negate()};
                BigInteger unscaled = i < odd.length
                        ? odd[i]
                        : new BigInteger(130, r)
                                .mod(max.add(BigInteger.ONE))
                                .multiply(BigInteger.valueOf(r.nextBoolean() ? 1 : -1));
                yield Decimal.apply(new BigDecimal(unscaled, d.scale()), d.precision(), d.scale());
            }
            default -> throw new IllegalArgumentException("no fixture for " + t);
        };
    }

    private static long pick(int i, Random r, long min, long max) {
        long[] odd = {min, max, 0, -1, 1, min + 1, max - 1};
        if (i < odd.length) {
            return odd[i];
        }
        long v = r.nextLong();
        return min == Long.MIN_VALUE ? v : min + Math.floorMod(v, max - min + 1);
    }

    private static byte[] bytes(Random r, int i) {
        if (i < STRINGS.length) {
            return STRINGS[i].getBytes(StandardCharsets.UTF_8);
        }
        if (i == STRINGS.length) {
            return new byte[] {(byte) 0xff, (byte) 0xfe, 'A', (byte) 0xc3}; // not UTF-8: must be copied as it is
        }
        byte[] b = new byte[r.nextInt(24)];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (' ' + r.nextInt(95));
        }
        return b;
    }

    /** Writes {@code value} (from {@link #value}) into row {@code row} of {@code v} and marks the row non-null. */
    static void put(WritableColumnVector v, int row, Object value) {
        switch (value) {
            case Boolean b -> v.putBoolean(row, b);
            case Byte b -> v.putByte(row, b);
            case Short s -> v.putShort(row, s);
            case Integer n -> v.putInt(row, n);
            case Long l -> v.putLong(row, l);
            case Float f -> v.putFloat(row, f);
            case Double d -> v.putDouble(row, d);
            case UTF8String s -> v.putByteArray(row, s.getBytes());
            case byte[] b -> v.putByteArray(row, b);
            case Decimal d -> v.putDecimal(row, d, ((DecimalType) v.dataType()).precision());
            default -> throw new IllegalArgumentException("cannot put " + value.getClass());
        }
        v.putNotNull(row);
    }

    /**
     * Row {@code row} of a Spark column read through the ColumnVector API (by way of
     * {@link ColumnarArray}, which calls the column's own getters), normalized; null for a null row.
     */
    static Object read(ColumnVector v, int row) {
        return read(new ColumnarArray(v, 0, row + 1), row, v.dataType());
    }

    /** Value {@code ordinal} of a Spark row or array, normalized as {@link #read(ColumnVector, int)}. */
    static Object read(SpecializedGetters r, int ordinal, DataType t) {
        if (r.isNullAt(ordinal)) {
            return null;
        }
        return switch (t) {
            case BooleanType _ -> r.getBoolean(ordinal);
            case ByteType _ -> (long) r.getByte(ordinal);
            case ShortType _ -> (long) r.getShort(ordinal);
            case IntegerType _ -> (long) r.getInt(ordinal);
            case DateType _ -> (long) r.getInt(ordinal);
            case FloatType _ -> Float.floatToRawIntBits(r.getFloat(ordinal));
            case DoubleType _ -> Double.doubleToRawLongBits(r.getDouble(ordinal));
            case StringType _ -> ByteBuffer.wrap(r.getUTF8String(ordinal).getBytes());
            case BinaryType _ -> ByteBuffer.wrap(r.getBinary(ordinal));
            case DecimalType d ->
                r.getDecimal(ordinal, d.precision(), d.scale()).toJavaBigDecimal();
            default -> r.getLong(ordinal); // bigint, timestamp, timestamp_ntz
        };
    }

    /** Row {@code row} of an Arrow vector read with Arrow's own getters, normalized as {@link #read(ColumnVector, int)}. */
    static Object read(ValueVector v, int row) {
        if (v.isNull(row)) {
            return null;
        }
        return switch (v) {
            case BitVector b -> b.get(row) == 1;
            case TinyIntVector b -> (long) b.get(row);
            case SmallIntVector s -> (long) s.get(row);
            case IntVector n -> (long) n.get(row);
            case DateDayVector d -> (long) d.get(row);
            case BigIntVector l -> l.get(row);
            case TimeStampVector ts -> ts.get(row);
            case Float4Vector f -> Float.floatToRawIntBits(f.get(row));
            case Float8Vector d -> Double.doubleToRawLongBits(d.get(row));
            case VarCharVector s -> ByteBuffer.wrap(s.get(row));
            case VarBinaryVector b -> ByteBuffer.wrap(b.get(row));
            case DecimalVector d -> d.getObject(row);
            default -> throw new IllegalArgumentException("no reader for " + v.getClass());
        };
    }

    /**
     * The bytes a vector of {@code rows} values of type {@code t} occupies, computed from the
     * Arrow format (not from the vector): validity, values, offsets and string bytes.
     */
    static long expectedBytes(DataType t, int rows, long stringBytes) {
        if (rows == 0) {
            return 0;
        }
        long validity = (rows + 7) / 8;
        return validity
                + switch (t) {
                    case BooleanType _ -> validity;
                    case ByteType _ -> rows;
                    case ShortType _ -> 2L * rows;
                    case IntegerType _ -> 4L * rows;
                    case DateType _ -> 4L * rows;
                    case FloatType _ -> 4L * rows;
                    case StringType _ -> 4L * (rows + 1) + stringBytes;
                    case BinaryType _ -> 4L * (rows + 1) + stringBytes;
                    case DecimalType _ -> 16L * rows;
                    default -> 8L * rows;
                };
    }
}
