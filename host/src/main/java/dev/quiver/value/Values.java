package dev.quiver.value;

import dev.quiver.types.DataType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Reading and writing single values of Arrow vectors as {@link ScalarValue}s, and building
 * vectors from values. Per-value and therefore slow: for planning (folding), scalars,
 * tests and the rare paths, never for per-row work in a kernel.
 */
public final class Values {
    private Values() {}

    /**
     * The bytes {@code v}'s buffers hold (its children's included), as a {@code long}: Arrow's
     * {@code getBufferSize()} is an {@code int} and wraps negative for a column of 2 GiB or more
     * ({@code repeat('x', 2147483647)} passed a size check that way).
     */
    public static long bufferBytes(ValueVector v) {
        long sum = 0;
        for (ArrowBuf b : v.getBuffers(false)) {
            sum += b.readableBytes();
        }
        return sum;
    }

    /** The value at {@code row} of {@code v}, typed as {@code type} (a dictionary's value type for a decoded vector). */
    public static ScalarValue get(FieldVector v, int row, DataType type) {
        DataType t = type.valueType();
        if (v.isNull(row)) {
            return ScalarValue.nullOf(t);
        }
        Object o = switch (t) {
            case DataType.Null _ -> null;
            case DataType.Bool _ -> ((BitVector) v).get(row) != 0;
            case DataType.Int i
            when i.signed() ->
                switch (i.bitWidth()) {
                    case 8 -> ((TinyIntVector) v).get(row);
                    case 16 -> ((SmallIntVector) v).get(row);
                    case 32 -> ((IntVector) v).get(row);
                    default -> ((BigIntVector) v).get(row);
                };
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> (short) Byte.toUnsignedInt(((UInt1Vector) v).get(row));
                    case 16 -> (int) ((UInt2Vector) v).get(row);
                    case 32 -> Integer.toUnsignedLong(((UInt4Vector) v).get(row));
                    default -> new BigInteger(Long.toUnsignedString(((UInt8Vector) v).get(row)));
                };
            case DataType.FloatingPoint f ->
                f.bitWidth() == 32 ? (Object) ((Float4Vector) v).get(row) : (Object) ((Float8Vector) v).get(row);
            case DataType.Decimal _ -> ((DecimalVector) v).getObject(row);
            case DataType.Utf8 _ ->
                new String(
                        v instanceof LargeVarCharVector l ? l.get(row) : ((BaseVariableWidthVector) v).get(row),
                        StandardCharsets.UTF_8);
            case DataType.Binary _ -> ((VarBinaryVector) v).get(row);
            case DataType.Date32 _ -> ((DateDayVector) v).get(row);
            case DataType.Timestamp _ -> ((TimeStampVector) v).get(row);
            case DataType.Interval _ -> v.getObject(row);
            case DataType.ListType l -> {
                ListVector lv = (ListVector) v;
                FieldVector data = lv.getDataVector();
                List<Object> out = new ArrayList<>();
                for (int k = lv.getElementStartIndex(row); k < lv.getElementEndIndex(row); k++) {
                    out.add(get(data, k, l.element()).value());
                }
                yield out;
            }
            case DataType.Struct s -> {
                StructVector sv = (StructVector) v;
                Map<String, Object> out = new LinkedHashMap<>();
                for (DataType.StructField f : s.fields()) {
                    out.put(
                            f.name(),
                            get((FieldVector) sv.getChild(f.name()), row, f.type())
                                    .value());
                }
                yield out;
            }
            case DataType.Dictionary _ -> throw new AssertionError("valueType() is never a dictionary");
        };
        return new ScalarValue(t, o);
    }

    /** The value at {@code row} of {@code v}, typed by the vector's field. */
    public static ScalarValue get(FieldVector v, int row) {
        return get(v, row, DataType.fromField(v.getField()));
    }

    /** Sets row {@code row} of {@code v} (allocated with room for it) to {@code value}, or to null. */
    public static void set(FieldVector v, int row, ScalarValue value) {
        if (value.isNull()) {
            setNull(v, row);
            return;
        }
        Object o = value.value();
        switch (value.type().valueType()) {
            case DataType.Null _ -> {}
            case DataType.Bool _ -> ((BitVector) v).setSafe(row, ((Boolean) o) ? 1 : 0);
            case DataType.Int i
            when i.signed() -> {
                switch (i.bitWidth()) {
                    case 8 -> ((TinyIntVector) v).setSafe(row, (Byte) o);
                    case 16 -> ((SmallIntVector) v).setSafe(row, (Short) o);
                    case 32 -> ((IntVector) v).setSafe(row, (Integer) o);
                    default -> ((BigIntVector) v).setSafe(row, (Long) o);
                }
            }
            case DataType.Int i -> {
                switch (i.bitWidth()) {
                    case 8 -> ((UInt1Vector) v).setSafe(row, (byte) (short) (Short) o);
                    case 16 -> ((UInt2Vector) v).setSafe(row, (char) (int) (Integer) o);
                    case 32 -> ((UInt4Vector) v).setSafe(row, (int) (long) (Long) o);
                    default -> ((UInt8Vector) v).setSafe(row, ((BigInteger) o).longValue());
                }
            }
            case DataType.FloatingPoint f -> {
                if (f.bitWidth() == 32) {
                    ((Float4Vector) v).setSafe(row, (Float) o);
                } else {
                    ((Float8Vector) v).setSafe(row, (Double) o);
                }
            }
            case DataType.Decimal d -> {
                BigDecimal b = (BigDecimal) o;
                if (b.precision() > d.precision()) {
                    // Arrow would refuse it with an UnsupportedOperationException; say what does not fit.
                    throw new IllegalArgumentException("the value " + b.toPlainString() + " has " + b.precision()
                            + " digits, more than " + d + " holds");
                }
                ((DecimalVector) v).setSafe(row, b);
            }
            case DataType.Utf8 _ -> {
                byte[] bytes = ((String) o).getBytes(StandardCharsets.UTF_8);
                if (v instanceof LargeVarCharVector l) {
                    l.setSafe(row, bytes);
                } else {
                    ((VarCharVector) v).setSafe(row, bytes);
                }
            }
            case DataType.Binary _ -> ((VarBinaryVector) v).setSafe(row, (byte[]) o);
            case DataType.Date32 _ -> ((DateDayVector) v).setSafe(row, (Integer) o);
            case DataType.Timestamp _ -> ((TimeStampVector) v).setSafe(row, (Long) o);
            // Unreachable from a plan: no literal or cast makes an interval value (interval columns are copied whole).
            case DataType.Interval _ ->
                throw new UnsupportedOperationException("writing Interval values is not supported yet");
            case DataType.ListType l -> {
                ListVector lv = (ListVector) v;
                List<?> items = (List<?>) o;
                int start = lv.startNewValue(row);
                FieldVector data = lv.getDataVector();
                for (int k = 0; k < items.size(); k++) {
                    Object item = items.get(k);
                    set(
                            data,
                            start + k,
                            item == null ? ScalarValue.nullOf(l.element()) : new ScalarValue(l.element(), item));
                }
                data.setValueCount(Math.max(data.getValueCount(), start + items.size()));
                lv.endValue(row, items.size());
            }
            case DataType.Struct s -> {
                StructVector sv = (StructVector) v;
                Map<?, ?> m = (Map<?, ?>) o;
                for (DataType.StructField f : s.fields()) {
                    Object item = m.get(f.name());
                    FieldVector child = (FieldVector) sv.getChild(f.name());
                    set(child, row, item == null ? ScalarValue.nullOf(f.type()) : new ScalarValue(f.type(), item));
                    child.setValueCount(Math.max(child.getValueCount(), row + 1));
                }
                sv.setIndexDefined(row);
            }
            case DataType.Dictionary _ -> throw new AssertionError("valueType() is never a dictionary");
        }
    }

    /** Sets row {@code row} of {@code v} to null. */
    public static void setNull(FieldVector v, int row) {
        switch (v) {
            case NullVector _ -> {}
            case BaseFixedWidthVector f -> f.setNull(row);
            case BaseVariableWidthVector b -> b.setNull(row);
            case ListVector l -> l.setNull(row);
            case StructVector s -> s.setNull(row);
            default -> {
                // Other variable-width vectors (LargeVarChar) expose setNull through their own class.
                if (v instanceof LargeVarCharVector l) {
                    l.setNull(row);
                } else {
                    // Unreachable: every Quiver type allocates one of the vector classes above.
                    throw new UnsupportedOperationException(
                            "cannot set a null in a " + v.getClass().getSimpleName());
                }
            }
        }
    }

    /**
     * A new, empty vector of {@code type} (dictionaries give their value type) named {@code name},
     * with room for {@code rows} rows; its value count is still 0.
     */
    public static FieldVector allocate(DataType type, String name, int rows, BufferAllocator allocator) {
        Field field = type.valueType().toField(name, true);
        FieldVector v = field.createVector(allocator);
        try {
            if (v instanceof NullVector n) {
                return n;
            }
            v.setInitialCapacity(Math.max(rows, 1));
            v.allocateNew();
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /** A vector of {@code rows} copies of {@code value}; the caller owns it. */
    public static FieldVector broadcast(ScalarValue value, String name, int rows, BufferAllocator allocator) {
        FieldVector v = allocate(value.type(), name, rows, allocator);
        try {
            for (int i = 0; i < rows; i++) {
                set(v, i, value);
            }
            v.setValueCount(rows);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /** A vector holding {@code values} (all of {@code type}, null entries for nulls); the caller owns it. */
    public static FieldVector of(DataType type, String name, List<?> values, BufferAllocator allocator) {
        FieldVector v = allocate(type, name, values.size(), allocator);
        try {
            for (int i = 0; i < values.size(); i++) {
                Object o = values.get(i);
                set(v, i, o == null ? ScalarValue.nullOf(type.valueType()) : new ScalarValue(type.valueType(), o));
            }
            v.setValueCount(values.size());
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /**
     * {@code value} as an array of {@code rows} rows: an array as it is (borrowed when it was),
     * a scalar broadcast into a new vector the caller owns.
     */
    public static ColumnarValue.Array toArray(ColumnarValue value, int rows, BufferAllocator allocator) {
        return switch (value) {
            case ColumnarValue.Array a -> a;
            case ColumnarValue.Scalar s -> new ColumnarValue.Array(broadcast(s.value(), "value", rows, allocator));
        };
    }
}
