package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code CASE operand WHEN k1 THEN v1 WHEN k2 THEN v2 ... [ELSE e] END} with literal keys and
 * values, prepared once per query: one hash probe per row picks the branch, then the values
 * are written per branch. The first of equal keys wins; a NULL key never matches; a NULL
 * operand takes the ELSE (NULL without one). Keys of integer, Boolean, Date32, Timestamp and
 * string types; {@link #of} declines the others.
 */
public final class LookupTable {
    private final DataType keyType;
    private final DataType resultType;
    /** Branch values, then the ELSE value (NULL when absent) at index {@code size}. */
    private final List<ScalarValue> values;

    private final LongTable longs;
    private final BytesTable strings;

    private LookupTable(
            DataType keyType, DataType resultType, List<ScalarValue> values, LongTable longs, BytesTable strings) {
        this.keyType = keyType;
        this.resultType = resultType;
        this.values = values;
        this.longs = longs;
        this.strings = strings;
    }

    /**
     * The table for these branches, or empty when the key type has no lookup (floats, decimals,
     * nested types). {@code keys} have the operand's type; {@code values} and {@code otherwise}
     * (null: no ELSE) have {@code resultType}.
     */
    public static Optional<LookupTable> of(
            DataType keyType,
            List<ScalarValue> keys,
            List<ScalarValue> values,
            ScalarValue otherwise,
            DataType resultType) {
        Objects.requireNonNull(keyType, "keyType is null");
        Objects.requireNonNull(resultType, "resultType is null");
        if (keys.size() != values.size() || keys.isEmpty()) {
            throw new IllegalArgumentException("a lookup needs one value per key, and at least one");
        }
        DataType t = keyType.valueType();
        List<ScalarValue> all = new ArrayList<>(values);
        all.add(otherwise == null ? ScalarValue.nullOf(resultType) : otherwise);
        int branch = 0;
        if (isLongKeyed(t)) {
            LongTable table = new LongTable(keys.size());
            for (ScalarValue k : keys) {
                if (!k.isNull()) {
                    table.putIfAbsent(asLong(k.value()), branch);
                }
                branch++;
            }
            return Optional.of(new LookupTable(t, resultType, List.copyOf(all), table, null));
        }
        if (t instanceof DataType.Utf8 || t instanceof DataType.Binary) {
            BytesTable table = new BytesTable(keys.size());
            for (ScalarValue k : keys) {
                if (!k.isNull()) {
                    Object v = k.value();
                    table.putIfAbsent(
                            v instanceof byte[] b ? b : v.toString().getBytes(StandardCharsets.UTF_8), branch);
                }
                branch++;
            }
            return Optional.of(new LookupTable(t, resultType, List.copyOf(all), null, table));
        }
        return Optional.empty();
    }

    private static boolean isLongKeyed(DataType t) {
        return t instanceof DataType.Int
                || t instanceof DataType.Bool
                || t instanceof DataType.Date32
                || t instanceof DataType.Timestamp;
    }

    private static long asLong(Object v) {
        return switch (v) {
            case Boolean b -> b ? 1 : 0;
            case BigInteger b -> b.longValue();
            case Number n -> n.longValue();
            default -> throw new IllegalArgumentException("not an integer key: " + v);
        };
    }

    /** Number of WHEN branches. */
    public int size() {
        return values.size() - 1;
    }

    /** How the keys are probed, for EXPLAIN. */
    public String strategy() {
        return "lookup table of " + size() + " literal branch(es)";
    }

    /** The CASE over {@code operand}'s first {@code rows} rows; a scalar operand gives a scalar. */
    public ColumnarValue apply(ColumnarValue operand, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(operand, "operand is null");
        int none = size();
        if (operand instanceof ColumnarValue.Scalar s) {
            int b = s.isNull()
                    ? none
                    : longs != null
                            ? longs.get(asLong(s.value().value()), none)
                            : strings.get(scalarBytes(s.value().value()), none);
            return new ColumnarValue.Scalar(values.get(b));
        }
        FieldVector v = ((ColumnarValue.Array) operand).vector();
        if (v.getValueCount() < rows) {
            throw new IllegalArgumentException("the operand has " + v.getValueCount() + " rows, fewer than " + rows);
        }
        int words = (rows + 63) >>> 6;
        long[][] branchWords = new long[values.size()][words];
        long[] valid = new long[words];
        Selection.readValidity(v, valid, rows);
        if (longs != null) {
            KernelInput.LongReader read = longReader(v);
            for (int r = 0; r < rows; r++) {
                int b = (valid[r >>> 6] & (1L << r)) != 0 ? longs.get(read.get(r), none) : none;
                branchWords[b][r >>> 6] |= 1L << r;
            }
        } else {
            ArrowBuf data = v.getDataBuffer();
            ArrowBuf offsets = v.getOffsetBuffer();
            boolean large = keyType instanceof DataType.Utf8 u && u.large();
            for (int r = 0; r < rows; r++) {
                int b = none;
                if ((valid[r >>> 6] & (1L << r)) != 0) {
                    long start = large ? offsets.getLong((long) r << 3) : offsets.getInt((long) r << 2);
                    long end = large ? offsets.getLong((long) (r + 1) << 3) : offsets.getInt((long) (r + 1) << 2);
                    b = strings.get(data, start, (int) (end - start), none);
                }
                branchWords[b][r >>> 6] |= 1L << r;
            }
        }
        List<Kernels.Piece> pieces = new ArrayList<>(values.size());
        for (int b = 0; b < values.size(); b++) {
            Selection s = Selection.ofWords(branchWords[b], rows);
            if (!s.isNone() && !values.get(b).isNull()) {
                pieces.add(new Kernels.Piece(s, new ColumnarValue.Scalar(values.get(b)), false));
            }
        }
        return Kernels.merge(resultType, rows, pieces, allocator);
    }

    private KernelInput.LongReader longReader(FieldVector v) {
        ArrowBuf d = v.getDataBuffer();
        return switch (keyType) {
            case DataType.Bool _ -> r -> (d.getByte(r >>> 3) >>> (r & 7)) & 1;
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> i.signed() ? r -> d.getByte(r) : r -> d.getByte(r) & 0xFF;
                    case 16 -> i.signed() ? r -> d.getShort((long) r << 1) : r -> d.getShort((long) r << 1) & 0xFFFF;
                    case 32 -> i.signed() ? r -> d.getInt((long) r << 2) : r -> d.getInt((long) r << 2) & 0xFFFF_FFFFL;
                    default -> r -> d.getLong((long) r << 3);
                };
            case DataType.Date32 _ -> r -> d.getInt((long) r << 2);
            default -> r -> d.getLong((long) r << 3);
        };
    }

    private static byte[] scalarBytes(Object v) {
        return v instanceof byte[] b ? b : v.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Open addressing, long keys to branch indexes. */
    private static final class LongTable {
        private final long[] keys;
        private final int[] branches;
        private final boolean[] used;
        private final int mask;

        LongTable(int n) {
            int cap = Integer.highestOneBit(Math.max(4, n * 4) - 1) << 1;
            keys = new long[cap];
            branches = new int[cap];
            used = new boolean[cap];
            mask = cap - 1;
        }

        private static int hash(long k) {
            long h = k * 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 32));
        }

        void putIfAbsent(long k, int branch) {
            int i = hash(k) & mask;
            while (used[i]) {
                if (keys[i] == k) {
                    return;
                }
                i = (i + 1) & mask;
            }
            used[i] = true;
            keys[i] = k;
            branches[i] = branch;
        }

        int get(long k, int missing) {
            int i = hash(k) & mask;
            while (used[i]) {
                if (keys[i] == k) {
                    return branches[i];
                }
                i = (i + 1) & mask;
            }
            return missing;
        }
    }

    /** Open addressing, byte strings to branch indexes, probed straight from an Arrow buffer. */
    private static final class BytesTable {
        private final byte[][] keys;
        private final int[] hashes;
        private final int[] branches;
        private final int mask;

        BytesTable(int n) {
            int cap = Integer.highestOneBit(Math.max(4, n * 4) - 1) << 1;
            keys = new byte[cap][];
            hashes = new int[cap];
            branches = new int[cap];
            mask = cap - 1;
        }

        private static int mix(int h) {
            h *= 0x9E3779B9;
            return h ^ (h >>> 16);
        }

        void putIfAbsent(byte[] k, int branch) {
            int h = mix(Arrays.hashCode(k));
            int i = h & mask;
            while (keys[i] != null) {
                if (hashes[i] == h && Arrays.equals(keys[i], k)) {
                    return;
                }
                i = (i + 1) & mask;
            }
            keys[i] = k;
            hashes[i] = h;
            branches[i] = branch;
        }

        int get(byte[] k, int missing) {
            int h = mix(Arrays.hashCode(k));
            for (int i = h & mask; keys[i] != null; i = (i + 1) & mask) {
                if (hashes[i] == h && Arrays.equals(keys[i], k)) {
                    return branches[i];
                }
            }
            return missing;
        }

        int get(ArrowBuf data, long start, int length, int missing) {
            int raw = 1; // Arrays.hashCode over the bytes, without copying them
            for (int k = 0; k < length; k++) {
                raw = 31 * raw + data.getByte(start + k);
            }
            int h = mix(raw);
            for (int i = h & mask; keys[i] != null; i = (i + 1) & mask) {
                if (hashes[i] == h && equal(keys[i], data, start, length)) {
                    return branches[i];
                }
            }
            return missing;
        }

        private static boolean equal(byte[] key, ArrowBuf data, long start, int length) {
            if (key.length != length) {
                return false;
            }
            for (int k = 0; k < length; k++) {
                if (key[k] != data.getByte(start + k)) {
                    return false;
                }
            }
            return true;
        }
    }
}
