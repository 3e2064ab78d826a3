package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Random columns of every type the selection kernels move, with hostile values (extremes, NaN,
 * -0.0, empty and non-ASCII strings, strings longer than 16 bytes, empty lists, null elements)
 * and garbage behind null rows (random bytes in fixed-width slots, random bits in Boolean
 * slots, non-empty byte ranges behind null strings, set children behind null structs).
 */
final class RandomColumns {
    static final DataType LIST = new DataType.ListType(DataType.INT32, true);
    static final DataType STRUCT = new DataType.Struct(List.of(
            new DataType.StructField("a", DataType.INT32, true), new DataType.StructField("s", DataType.UTF8, true)));
    static final DataType DECIMAL = new DataType.Decimal(5, 2);
    static final DataType WIDE_DECIMAL = new DataType.Decimal(38, 10);
    static final DataType TIMESTAMP = new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC");

    /** Every type the kernels have a path for; Null last. */
    static final List<DataType> TYPES = List.of(
            DataType.BOOLEAN,
            DataType.INT8,
            DataType.INT16,
            DataType.INT32,
            DataType.INT64,
            DataType.UINT8,
            DataType.UINT16,
            DataType.UINT32,
            DataType.UINT64,
            DataType.FLOAT32,
            DataType.FLOAT64,
            DECIMAL,
            WIDE_DECIMAL,
            DataType.UTF8,
            DataType.LARGE_UTF8,
            DataType.BINARY,
            DataType.DATE32,
            TIMESTAMP,
            LIST,
            STRUCT,
            DataType.NULL);

    static final List<String> STRINGS = List.of(
            "",
            "a",
            "héllo",
            "日本語",
            "😀 emoji",
            "straße",
            "0123456789abcdef",
            "a string of more than thirty-two bytes, to take the long copy",
            "x\u0000y");

    private RandomColumns() {}

    /** A random non-null value of {@code type} (a Java object as {@link ScalarValue} wants it). */
    static Object value(DataType type, Random rnd) {
        return switch (type) {
            case DataType.Null _ -> null;
            case DataType.Bool _ -> rnd.nextBoolean();
            case DataType.Int i
            when i.signed() ->
                switch (i.bitWidth()) {
                    case 8 -> (byte) pick(rnd, rnd.nextInt(), Byte.MIN_VALUE, Byte.MAX_VALUE, 0);
                    case 16 -> (short) pick(rnd, rnd.nextInt(), Short.MIN_VALUE, Short.MAX_VALUE, 0);
                    case 32 -> (int) pick(rnd, rnd.nextInt(), Integer.MIN_VALUE, Integer.MAX_VALUE, 0);
                    default -> pick(rnd, rnd.nextLong(), Long.MIN_VALUE, Long.MAX_VALUE, 0);
                };
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> (short) rnd.nextInt(256);
                    case 16 -> rnd.nextInt(65536);
                    case 32 -> rnd.nextLong() >>> 32;
                    default -> new BigInteger(64, rnd);
                };
            case DataType.FloatingPoint f -> {
                double[] special = {
                    0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE
                };
                double d = rnd.nextInt(4) == 0 ? special[rnd.nextInt(special.length)] : rnd.nextGaussian() * 1e6;
                yield f.bitWidth() == 32 ? (Object) (float) d : (Object) d;
            }
            case DataType.Decimal d -> {
                BigInteger unscaled = new BigInteger(d.precision() * 3, rnd).mod(BigInteger.TEN.pow(d.precision()));
                yield new BigDecimal(rnd.nextBoolean() ? unscaled : unscaled.negate(), d.scale());
            }
            case DataType.Utf8 _ -> string(rnd);
            case DataType.Binary _ -> bytes(rnd);
            case DataType.Date32 _ -> rnd.nextInt(200_000) - 100_000;
            case DataType.Timestamp _ -> rnd.nextLong() >> 8;
            case DataType.ListType l -> {
                List<Object> items = new ArrayList<>();
                for (int k = rnd.nextInt(4); k > 0; k--) {
                    items.add(rnd.nextInt(4) == 0 ? null : value(l.element(), rnd));
                }
                yield items;
            }
            case DataType.Struct s -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (DataType.StructField f : s.fields()) {
                    m.put(f.name(), rnd.nextInt(4) == 0 ? null : value(f.type(), rnd));
                }
                yield m;
            }
            default -> throw new IllegalArgumentException("no random values of " + type);
        };
    }

    private static long pick(Random rnd, long random, long min, long max, long zero) {
        return switch (rnd.nextInt(8)) {
            case 0 -> min;
            case 1 -> max;
            case 2 -> zero;
            default -> random;
        };
    }

    static String string(Random rnd) {
        if (rnd.nextBoolean()) {
            return STRINGS.get(rnd.nextInt(STRINGS.size()));
        }
        StringBuilder sb = new StringBuilder();
        for (int k = rnd.nextInt(40); k > 0; k--) {
            sb.appendCodePoint(rnd.nextInt(8) == 0 ? 0x3B1 + rnd.nextInt(20) : 'a' + rnd.nextInt(26));
        }
        return sb.toString();
    }

    static byte[] bytes(Random rnd) {
        byte[] b = new byte[rnd.nextInt(40)];
        rnd.nextBytes(b);
        return b;
    }

    /** {@code rows} random values, each null with probability {@code nulls}. */
    static List<Object> values(DataType type, int rows, double nulls, Random rnd) {
        List<Object> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            out.add(rnd.nextDouble() < nulls ? null : value(type, rnd));
        }
        return out;
    }

    /**
     * A vector of {@code values} (null entries are nulls) with garbage behind the nulls; the
     * caller closes it.
     */
    static FieldVector vector(DataType type, List<Object> values, Random rnd, BufferAllocator allocator) {
        FieldVector v = Values.allocate(type, "in", values.size(), allocator);
        try {
            for (int i = 0; i < values.size(); i++) {
                Object o = values.get(i);
                if (o != null) {
                    Values.set(v, i, new ScalarValue(type, o));
                } else if (v instanceof VariableWidthFieldVector var) {
                    // A null string with bytes behind it: the offsets give it a length.
                    var.setSafe(i, bytes(rnd));
                    Values.setNull(v, i);
                } else if (v instanceof StructVector s) {
                    ((IntVector) s.getChild("a")).setSafe(i, rnd.nextInt());
                    Values.setNull(v, i);
                } else {
                    Values.setNull(v, i);
                }
            }
            v.setValueCount(values.size());
            if (v instanceof StructVector s) {
                for (FieldVector child : s.getChildrenFromFields()) {
                    child.setValueCount(values.size());
                }
            }
            if (v instanceof BitVector b) {
                for (int i = 0; i < values.size(); i++) {
                    if (values.get(i) == null) {
                        ResultVector.setBit(b.getDataBuffer(), i, rnd.nextBoolean());
                    }
                }
            } else if (v instanceof BaseFixedWidthVector f) {
                ArrowBuf data = f.getDataBuffer();
                int w = f.getTypeWidth();
                for (int i = 0; i < values.size(); i++) {
                    if (values.get(i) == null) {
                        for (int k = 0; k < w; k++) {
                            data.setByte((long) i * w + k, rnd.nextInt());
                        }
                    }
                }
            }
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /** The value at {@code row} as the reference sees it (per-row reads, no kernel code). */
    static ScalarValue get(FieldVector v, int row, DataType type) {
        return Values.get(v, row, type);
    }

    /** All rows of {@code v}, read one at a time. */
    static List<ScalarValue> rows(FieldVector v, DataType type) {
        List<ScalarValue> out = new ArrayList<>();
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(get(v, i, type));
        }
        return out;
    }

    /** A boolean mask of {@code rows} rows in one of the shapes selections take. */
    static boolean[] mask(String shape, int rows, Random rnd) {
        boolean[] m = new boolean[rows];
        switch (shape) {
            case "none" -> {}
            case "all" -> Arrays.fill(m, true);
            case "random" -> fill(m, i -> rnd.nextBoolean());
            case "sparse" -> fill(m, i -> rnd.nextInt(20) == 0);
            case "dense" -> fill(m, i -> rnd.nextInt(20) != 0);
            case "alternating" -> fill(m, i -> i % 2 == 0);
            case "first" -> {
                if (rows > 0) {
                    m[0] = true;
                }
            }
            case "last" -> {
                if (rows > 0) {
                    m[rows - 1] = true;
                }
            }
            case "one" -> {
                if (rows > 0) {
                    m[rnd.nextInt(rows)] = true;
                }
            }
            case "runs" -> {
                boolean on = rnd.nextBoolean();
                for (int i = 0; i < rows; ) {
                    int run = 1 + rnd.nextInt(200);
                    for (int k = 0; k < run && i < rows; k++, i++) {
                        m[i] = on;
                    }
                    on = !on;
                }
            }
            default -> throw new IllegalArgumentException(shape);
        }
        return m;
    }

    static final List<String> SHAPES =
            List.of("none", "all", "random", "sparse", "dense", "alternating", "first", "last", "one", "runs");

    private static void fill(boolean[] m, Function<Integer, Boolean> f) {
        for (int i = 0; i < m.length; i++) {
            m[i] = f.apply(i);
        }
    }

    /** The selection of a mask, built from row numbers (independent of the word layout). */
    static Selection selection(boolean[] mask) {
        int[] rows = new int[mask.length];
        int n = 0;
        for (int i = 0; i < mask.length; i++) {
            if (mask[i]) {
                rows[n++] = i;
            }
        }
        return Selection.ofRows(mask.length, Arrays.copyOf(rows, n));
    }
}
