package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The constant elements of an IN list, prepared once (per query, when they are literals) in the
 * form {@link Kernels#inList(dev.quiver.value.ColumnarValue, InList, List, boolean, int, org.apache.arrow.memory.BufferAllocator)}
 * probes: the kernel then makes one pass over the column.
 *
 * <p>Equality is that of {@link Kernels#compare} EQ: integers, dates and timestamps by value;
 * floats by SQL's total order ({@code -0.0 = 0.0}, {@code NaN = NaN}); decimals by value
 * whatever their scale; strings and binaries by bytes. Every value becomes a 64-bit key (a
 * float its canonical bits, a decimal its unscaled value at the list's scale) or, for strings,
 * its bytes; the {@link #strategy()} depends on how many distinct values there are:
 * <ul>
 * <li>up to {@value #LINEAR_MAX}: a linear scan of the values;</li>
 * <li>more, all 64-bit keys within a span of {@value #BITMAP_SPAN}: a bitmap indexed by
 *     {@code key - min};</li>
 * <li>otherwise an open-addressing hash set (strings hashed straight from the Arrow buffer, no
 *     copy per row).</li>
 * </ul>
 *
 * <pre>{@code
 * InList list = InList.of(DataType.INT32, List.of(ScalarValue.of(1), ScalarValue.of(2), ScalarValue.nullOf(DataType.INT32)));
 * list.strategy();      // "linear scan of 2 values"
 * list.containsNull();  // true: a value not found gives NULL, not FALSE
 * }</pre>
 */
public final class InList {
    /** Lists of up to this many distinct values are scanned. */
    public static final int LINEAR_MAX = 8;
    /** Longer lists of 64-bit keys within this span use a bitmap (8 KiB at most). */
    public static final long BITMAP_SPAN = 1 << 16;

    /** How values of the list's type are keyed. */
    enum Keys {
        NONE,
        BOOL,
        LONG,
        FLOAT,
        DECIMAL,
        BYTES
    }

    private final DataType type;
    private final Keys keys;
    private final boolean containsNull;
    private final int size;
    final boolean hasTrue;
    final boolean hasFalse;
    /** LONG, FLOAT and the decimals that fit a long (their unscaled value). */
    final LongProbe longs;
    /** Decimals beyond a long, by unscaled value. */
    final Set<BigInteger> wideDecimals;

    final BytesProbe bytes;

    private InList(
            DataType type,
            Keys keys,
            boolean containsNull,
            int size,
            boolean hasTrue,
            boolean hasFalse,
            LongProbe longs,
            Set<BigInteger> wideDecimals,
            BytesProbe bytes) {
        this.type = type;
        this.keys = keys;
        this.containsNull = containsNull;
        this.size = size;
        this.hasTrue = hasTrue;
        this.hasFalse = hasFalse;
        this.longs = longs;
        this.wideDecimals = wideDecimals;
        this.bytes = bytes;
    }

    /**
     * Prepares {@code elements} to be compared with values of {@code type}. Each element has
     * {@code type}, or is a NULL of any type, or (as {@link Kernels#compare} allows) is a decimal
     * of another scale, a Utf8 for a LargeUtf8 list or the reverse, or a timestamp of the same unit.
     * A decimal that no value of {@code type} can equal (more fraction digits than its scale) is
     * left out.
     *
     * @throws UnsupportedOperationException for a type IN does not support (intervals, lists,
     *                                       structs) or an element of another type
     */
    /**
     * Whether {@link #of} prepares lists for values of {@code type}: every type but intervals,
     * lists and structs (for which {@link Kernels#inList} compares each element with {@code =}).
     */
    public static boolean supports(DataType type) {
        return switch (type.valueType()) {
            case DataType.Interval _ -> false;
            case DataType.ListType _ -> false;
            case DataType.Struct _ -> false;
            default -> true;
        };
    }

    public static InList of(DataType type, List<ScalarValue> elements) {
        Objects.requireNonNull(type, "type is null");
        Objects.requireNonNull(elements, "elements is null");
        DataType t = type.valueType();
        Keys keys = switch (t) {
            case DataType.Null _ -> Keys.NONE;
            case DataType.Bool _ -> Keys.BOOL;
            case DataType.Int _ -> Keys.LONG;
            case DataType.Date32 _ -> Keys.LONG;
            case DataType.Timestamp _ -> Keys.LONG;
            case DataType.FloatingPoint _ -> Keys.FLOAT;
            case DataType.Decimal _ -> Keys.DECIMAL;
            case DataType.Utf8 _ -> Keys.BYTES;
            case DataType.Binary _ -> Keys.BYTES;
            // Unreachable from a plan: supports() is checked first (lists and structs compare per element).
            default -> throw new UnsupportedOperationException("IN is not supported for " + type);
        };
        boolean containsNull = false;
        Set<Long> longKeys = new LinkedHashSet<>();
        Set<BigInteger> wide = new HashSet<>();
        List<byte[]> byteKeys = new ArrayList<>();
        Set<String> seenBytes = new HashSet<>();
        boolean hasTrue = false;
        boolean hasFalse = false;
        for (ScalarValue e : elements) {
            Objects.requireNonNull(e, "element is null");
            DataType et = e.type().valueType();
            if (e.isNull() && (et instanceof DataType.Null || comparable(t, et))) {
                containsNull = true;
                continue;
            }
            if (!comparable(t, et)) {
                // Unreachable from a plan: the planner casts every element to the compared type.
                throw new UnsupportedOperationException("comparison " + type + " = " + e.type() + " is not supported");
            }
            Object v = e.value();
            switch (keys) {
                case BOOL -> {
                    hasTrue |= (Boolean) v;
                    hasFalse |= !(Boolean) v;
                }
                case LONG -> longKeys.add(v instanceof BigInteger big ? big.longValue() : ((Number) v).longValue());
                case FLOAT -> longKeys.add(floatKey(((Number) v).doubleValue()));
                case DECIMAL -> {
                    BigInteger unscaled;
                    try {
                        unscaled = ((BigDecimal) v)
                                .setScale(((DataType.Decimal) t).scale(), RoundingMode.UNNECESSARY)
                                .unscaledValue();
                    } catch (ArithmeticException tooPrecise) {
                        continue; // equals no value of this scale
                    }
                    if (unscaled.bitLength() < 64) {
                        longKeys.add(unscaled.longValueExact());
                    } else {
                        wide.add(unscaled);
                    }
                }
                case BYTES -> {
                    byte[] b = v instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : ((byte[]) v).clone();
                    if (seenBytes.add(HexFormat.of().formatHex(b))) {
                        byteKeys.add(b);
                    }
                }
                case NONE -> throw new AssertionError("a non-null element of the Null type");
            }
        }
        long[] ls = longKeys.stream().mapToLong(Long::longValue).toArray();
        int size = switch (keys) {
            case NONE -> 0;
            case BOOL -> (hasTrue ? 1 : 0) + (hasFalse ? 1 : 0);
            case LONG, FLOAT -> ls.length;
            case DECIMAL -> ls.length + wide.size();
            case BYTES -> byteKeys.size();
        };
        return new InList(
                type,
                keys,
                containsNull,
                size,
                hasTrue,
                hasFalse,
                LongProbe.of(ls),
                Set.copyOf(wide),
                BytesProbe.of(byteKeys.toArray(byte[][]::new)));
    }

    /** Whether values of {@code column} (a value type) can be compared with values of {@code element} as {@link Kernels#compare} does. */
    private static boolean comparable(DataType column, DataType element) {
        return switch (column) {
            case DataType.Decimal _ -> element instanceof DataType.Decimal;
            case DataType.Utf8 _ -> element instanceof DataType.Utf8;
            case DataType.Timestamp t -> element instanceof DataType.Timestamp u && t.unit() == u.unit();
            default -> column.equals(element);
        };
    }

    /** A float's key: equal under SQL's total order exactly when the keys are equal (+0.0 for -0.0, one NaN). */
    static long floatKey(double d) {
        return Double.doubleToLongBits(d + 0.0);
    }

    /** The type the list was prepared for. */
    public DataType type() {
        return type;
    }

    /** Whether an element is NULL: then a value found in no element gives NULL rather than FALSE. */
    public boolean containsNull() {
        return containsNull;
    }

    /** The number of distinct non-null values. */
    public int size() {
        return size;
    }

    Keys keys() {
        return keys;
    }

    /** How a value is looked up, for EXPLAIN: "linear scan of 3 values", "hash set of 20 values", ... */
    public String strategy() {
        String how = switch (keys) {
            case NONE -> "no values";
            case BOOL -> "bit test of " + values(size);
            case LONG, FLOAT -> longs.describe(size);
            case DECIMAL -> wideDecimals.isEmpty() ? longs.describe(size) : "hash set of " + values(size);
            case BYTES -> bytes.describe(size);
        };
        return containsNull ? how + " and NULL" : how;
    }

    private static String values(int n) {
        return n == 1 ? "1 value" : n + " values";
    }

    @Override
    public String toString() {
        return "InList[" + type + ", " + strategy() + "]";
    }

    // ---- 64-bit keys

    /** A set of 64-bit keys. */
    abstract static sealed class LongProbe permits LinearLongs, BitmapLongs, HashLongs {
        static LongProbe of(long[] keys) {
            if (keys.length <= LINEAR_MAX) {
                return new LinearLongs(keys);
            }
            long min = Arrays.stream(keys).min().orElseThrow();
            long max = Arrays.stream(keys).max().orElseThrow();
            if (Long.compareUnsigned(max - min, BITMAP_SPAN) < 0) {
                return new BitmapLongs(keys, min, max - min + 1);
            }
            return new HashLongs(keys);
        }

        abstract boolean contains(long key);

        /** Bit {@code j} set when {@code keys[j]} is in the set, for {@code j < count}. */
        abstract long matchWord(long[] keys, int count);

        abstract String describe(int size);
    }

    static final class LinearLongs extends LongProbe {
        private final long[] values;

        LinearLongs(long[] values) {
            this.values = values.clone();
        }

        @Override
        boolean contains(long key) {
            boolean hit = false;
            for (long v : values) {
                hit |= key == v;
            }
            return hit;
        }

        @Override
        long matchWord(long[] keys, int count) {
            long[] vs = values;
            long bits = 0;
            for (int j = 0; j < count; j++) {
                long x = keys[j];
                boolean hit = false;
                for (long v : vs) {
                    hit |= x == v;
                }
                bits |= (hit ? 1L : 0L) << j;
            }
            return bits;
        }

        @Override
        String describe(int size) {
            return "linear scan of " + values(size);
        }
    }

    static final class BitmapLongs extends LongProbe {
        private final long min;
        private final long span;
        private final long[] bits;

        BitmapLongs(long[] keys, long min, long span) {
            this.min = min;
            this.span = span;
            this.bits = new long[(int) ((span + 63) >>> 6)];
            for (long k : keys) {
                long d = k - min;
                bits[(int) (d >>> 6)] |= 1L << d;
            }
        }

        @Override
        boolean contains(long key) {
            long d = key - min;
            return Long.compareUnsigned(d, span) < 0 && (bits[(int) (d >>> 6)] >>> d & 1) != 0;
        }

        @Override
        long matchWord(long[] keys, int count) {
            long out = 0;
            for (int j = 0; j < count; j++) {
                long d = keys[j] - min;
                if (Long.compareUnsigned(d, span) < 0) {
                    out |= (bits[(int) (d >>> 6)] >>> d & 1) << j;
                }
            }
            return out;
        }

        @Override
        String describe(int size) {
            return "bitmap of " + values(size);
        }
    }

    static final class HashLongs extends LongProbe {
        private final long[] table;
        /** A key not in the set, marking empty slots. */
        private final long empty;

        private final int shift;
        private final int mask;

        HashLongs(long[] keys) {
            int capacity = Integer.highestOneBit(keys.length * 2 - 1) << 1; // a power of two, load at most 1/2
            table = new long[capacity];
            mask = capacity - 1;
            shift = 64 - Integer.numberOfTrailingZeros(capacity);
            long e = 0x5DEECE66DL;
            Set<Long> present = new HashSet<>();
            for (long k : keys) {
                present.add(k);
            }
            while (present.contains(e)) {
                e++;
            }
            empty = e;
            Arrays.fill(table, empty);
            for (long k : keys) {
                int i = slot(k);
                while (table[i] != empty && table[i] != k) {
                    i = (i + 1) & mask;
                }
                table[i] = k;
            }
        }

        private int slot(long key) {
            return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
        }

        @Override
        boolean contains(long key) {
            if (key == empty) {
                return false;
            }
            long[] t = table;
            int i = slot(key);
            while (true) {
                long k = t[i];
                if (k == key) {
                    return true;
                }
                if (k == empty) {
                    return false;
                }
                i = (i + 1) & mask;
            }
        }

        @Override
        long matchWord(long[] keys, int count) {
            long bits = 0;
            for (int j = 0; j < count; j++) {
                bits |= (contains(keys[j]) ? 1L : 0L) << j;
            }
            return bits;
        }

        @Override
        String describe(int size) {
            return "hash set of " + values(size);
        }
    }

    // ---- byte strings

    /**
     * A set of byte strings, probed with a row's bytes where they lie. A string of up to 16 bytes
     * is two words read without a loop (most keys are short), longer ones are hashed and compared
     * eight bytes per step.
     */
    abstract static sealed class BytesProbe permits LinearBytes, HashBytes {
        /** Strings up to this long are compared as two words. */
        static final int SHORT = 16;
        /** Per key: its length, its first two words (zero past the end) and its bytes. */
        final long[] lengths;

        final long[] words0;
        final long[] words1;
        final MemorySegment[] values;
        /** Bit {@code min(length, 63)} set for the length of every key: most rows are turned away by their length alone. */
        final long lengthBits;

        /** The keys' lengths and first words when {@link #fewShort}, else null. */
        private final long[] shortLengths;

        private final long[] shortWords;

        /** The distinct lengths of the keys, or null when there are more than {@value #FEW_LENGTHS}. */
        final long[] fewLengths;

        /** Lists whose keys have at most this many lengths get the rows' lengths checked in vector steps. */
        static final int FEW_LENGTHS = 4;

        BytesProbe(byte[][] keys) {
            int n = keys.length;
            lengths = new long[n];
            words0 = new long[n];
            words1 = new long[n];
            values = new MemorySegment[n];
            for (int k = 0; k < n; k++) {
                values[k] = MemorySegment.ofArray(keys[k]);
                lengths[k] = keys[k].length;
                // From the array itself: the readers of row words see only the Arrow buffers (one kind of segment).
                words0[k] = word(keys[k], 0);
                words1[k] = word(keys[k], 8);
            }
            long bits = 0;
            for (byte[] key : keys) {
                bits |= 1L << Math.min(key.length, 63);
            }
            lengthBits = bits;
            long[] distinct = Arrays.stream(lengths).distinct().toArray();
            fewLengths = distinct.length <= FEW_LENGTHS ? distinct : null;
            boolean few = n > 0 && n <= FEW_SHORT && Arrays.stream(lengths).allMatch(l -> l <= 8);
            shortLengths = few ? padded(lengths) : null;
            shortWords = few ? padded(words0) : null;
        }

        /** The bytes {@code [at, at + 8)} of {@code key} as a little-endian word, zero past its end. */
        private static long word(byte[] key, int at) {
            long w = 0;
            for (int i = at; i < Math.min(key.length, at + 8); i++) {
                w |= (key[i] & 0xFFL) << ((i - at) << 3);
            }
            return w;
        }

        /**
         * Whether every key has at most eight bytes and there are at most {@value #FEW_SHORT} of
         * them: a row is then one masked word, tested against every key without a branch.
         */
        final boolean fewShort() {
            return shortWords != null;
        }

        /** Lists of at most this many keys, each of at most eight bytes, are probed by {@link #hasShort}. */
        static final int FEW_SHORT = 8;

        /** Whether the row of {@code len} bytes whose first word (masked to them) is {@code w0} is a key; only when {@link #fewShort}. */
        final boolean hasShort(long len, long w0) {
            long[] ls = shortLengths;
            long[] ws = shortWords;
            // Four keys per step, without a branch (the arrays are padded to a multiple of four by repeating the last
            // key).
            boolean hit = false;
            for (int k = 0; k < ls.length; k += 4) {
                hit |= ((ls[k] == len) & (ws[k] == w0))
                        | ((ls[k + 1] == len) & (ws[k + 1] == w0))
                        | ((ls[k + 2] == len) & (ws[k + 2] == w0))
                        | ((ls[k + 3] == len) & (ws[k + 3] == w0));
            }
            return hit;
        }

        /** {@code a} padded to a multiple of four values by repeating its last. */
        private static long[] padded(long[] a) {
            long[] out = Arrays.copyOf(a, (a.length + 3) & ~3);
            Arrays.fill(out, a.length, out.length, a[a.length - 1]);
            return out;
        }

        /** Whether some key may have {@code len} bytes. */
        final boolean mayHaveLength(long len) {
            return (lengthBits >>> Math.min(len, 63) & 1) != 0;
        }

        static BytesProbe of(byte[][] keys) {
            return keys.length <= LINEAR_MAX ? new LinearBytes(keys) : new HashBytes(keys);
        }

        static long word0(MemorySegment d, long start, long len) {
            return ByteColumn.partialWord(d, start, (int) Math.min(8, len));
        }

        static long word1(MemorySegment d, long start, long len) {
            return ByteColumn.partialWord(d, start + 8, (int) Math.max(0, Math.min(8, len - 8)));
        }

        /** Whether key {@code k} is the {@code len} bytes at {@code start} whose first words are {@code w0, w1}. */
        final boolean isKey(int k, MemorySegment d, long start, long len, long w0, long w1) {
            return lengths[k] == len
                    && words0[k] == w0
                    && words1[k] == w1
                    && (len <= SHORT || ByteColumn.equal(d, start + SHORT, values[k], SHORT, len - SHORT));
        }

        /** Whether the bytes {@code [start, end)} of {@code data} are in the set. */
        abstract boolean contains(MemorySegment data, long start, long end);

        abstract String describe(int size);
    }

    static final class LinearBytes extends BytesProbe {
        LinearBytes(byte[][] keys) {
            super(keys);
        }

        @Override
        boolean contains(MemorySegment data, long start, long end) {
            long len = end - start;
            if (!mayHaveLength(len)) {
                return false;
            }
            long w0 = word0(data, start, len);
            long w1 = word1(data, start, len);
            for (int k = 0; k < lengths.length; k++) {
                if (isKey(k, data, start, len, w0, w1)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        String describe(int size) {
            return "linear scan of " + values(size);
        }
    }

    static final class HashBytes extends BytesProbe {
        /** Slot -> key index plus one; 0 is empty. */
        private final int[] table;

        private final int mask;

        HashBytes(byte[][] keys) {
            super(keys);
            int capacity = Integer.highestOneBit(keys.length * 2 - 1) << 1;
            table = new int[capacity];
            mask = capacity - 1;
            for (int k = 0; k < keys.length; k++) {
                int i = (int) hash(values[k], 0, lengths[k], words0[k], words1[k]) & mask;
                while (table[i] != 0) {
                    i = (i + 1) & mask;
                }
                table[i] = k + 1;
            }
        }

        @Override
        boolean contains(MemorySegment data, long start, long end) {
            long len = end - start;
            if (!mayHaveLength(len)) {
                return false;
            }
            long w0 = word0(data, start, len);
            long w1 = word1(data, start, len);
            int i = (int) hash(data, start, len, w0, w1) & mask;
            while (true) {
                int k = table[i] - 1;
                if (k < 0) {
                    return false;
                }
                if (isKey(k, data, start, len, w0, w1)) {
                    return true;
                }
                i = (i + 1) & mask;
            }
        }

        /** A 64-bit hash of the {@code len} bytes at {@code start}, whose first two words are {@code w0, w1}. */
        static long hash(MemorySegment d, long start, long len, long w0, long w1) {
            long h = (0x9E3779B97F4A7C15L ^ len ^ w0) * 0xBF58476D1CE4E5B9L;
            h = (h ^ (h >>> 31) ^ w1) * 0x94D049BB133111EBL;
            if (len > SHORT) {
                long p = start + SHORT;
                long end = start + len;
                for (; p + 8 <= end; p += 8) {
                    h = (h ^ d.get(PredicateOutput.WORD, p)) * 0xBF58476D1CE4E5B9L;
                    h ^= h >>> 31;
                }
                h = (h ^ ByteColumn.partialWord(d, p, (int) (end - p))) * 0x94D049BB133111EBL;
            }
            return h ^ (h >>> 32);
        }

        @Override
        String describe(int size) {
            return "hash set of " + values(size);
        }
    }
}
