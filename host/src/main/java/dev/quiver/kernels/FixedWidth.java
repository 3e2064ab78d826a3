package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;

/**
 * Chunks of fixed-width Arrow values converted to and from Java {@code long[]} and
 * {@code double[]}, the form the arithmetic and comparison loops compute on: every integer
 * width computes in one set of {@code long} loops, both float widths in {@code double} loops.
 * The conversion loops are simple enough for the JIT to vectorize.
 */
final class FixedWidth {
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private FixedWidth() {}

    /** How an integer-like column stores a value, and the range of values it holds. */
    enum IntKind {
        INT8(1, true),
        UINT8(1, false),
        INT16(2, true),
        UINT16(2, false),
        INT32(4, true),
        UINT32(4, false),
        INT64(8, true),
        UINT64(8, false);

        final int bytes;
        final boolean signed;
        /** The smallest value (as a long); for UInt64 0. */
        final long min;
        /** The largest value (as a long); for UInt64 -1, that is 2^64-1 read as unsigned. */
        final long max;

        IntKind(int bytes, boolean signed) {
            this.bytes = bytes;
            this.signed = signed;
            int bits = bytes * 8;
            this.min = signed ? (bits == 64 ? Long.MIN_VALUE : -(1L << (bits - 1))) : 0;
            this.max = signed
                    ? (bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1)
                    : (bits == 64 ? -1L : (1L << bits) - 1);
        }

        boolean wide() {
            return bytes == 8;
        }
    }

    /** The kind of an integer, Date32 (Int32 days) or Timestamp (Int64 ticks) type; null for any other type. */
    static IntKind intKind(DataType t) {
        return switch (t) {
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> i.signed() ? IntKind.INT8 : IntKind.UINT8;
                    case 16 -> i.signed() ? IntKind.INT16 : IntKind.UINT16;
                    case 32 -> i.signed() ? IntKind.INT32 : IntKind.UINT32;
                    default -> i.signed() ? IntKind.INT64 : IntKind.UINT64;
                };
            case DataType.Date32 _ -> IntKind.INT32;
            case DataType.Timestamp _ -> IntKind.INT64;
            default -> null;
        };
    }

    /** {@code dst[i]} = row {@code from + i} of {@code data}, for {@code i < n}: sign- or zero-extended as {@code kind} says. */
    static void widen(MemorySegment data, IntKind kind, int from, int n, long[] dst) {
        long base = from;
        switch (kind) {
            case INT8 -> {
                for (int i = 0; i < n; i++) {
                    dst[i] = data.get(ValueLayout.JAVA_BYTE, base + i);
                }
            }
            case UINT8 -> {
                for (int i = 0; i < n; i++) {
                    dst[i] = data.get(ValueLayout.JAVA_BYTE, base + i) & 0xFFL;
                }
            }
            case INT16 -> {
                for (int i = 0; i < n; i++) {
                    dst[i] = data.get(SHORT, (base + i) << 1);
                }
            }
            case UINT16 -> {
                for (int i = 0; i < n; i++) {
                    dst[i] = data.get(SHORT, (base + i) << 1) & 0xFFFFL;
                }
            }
            case INT32 -> {
                for (int i = 0; i < n; i++) {
                    dst[i] = data.get(INT, (base + i) << 2);
                }
            }
            case UINT32 -> {
                for (int i = 0; i < n; i++) {
                    dst[i] = data.get(INT, (base + i) << 2) & 0xFFFF_FFFFL;
                }
            }
            case INT64, UINT64 -> MemorySegment.copy(data, LONG, base << 3, dst, 0, n);
        }
    }

    /** Row {@code from + i} of {@code data} = {@code src[i]} truncated to {@code kind}'s width, for {@code i < n}. */
    static void narrow(long[] src, int n, IntKind kind, MemorySegment data, int from) {
        long base = from;
        switch (kind.bytes) {
            case 1 -> {
                for (int i = 0; i < n; i++) {
                    data.set(ValueLayout.JAVA_BYTE, base + i, (byte) src[i]);
                }
            }
            case 2 -> {
                for (int i = 0; i < n; i++) {
                    data.set(SHORT, (base + i) << 1, (short) src[i]);
                }
            }
            case 4 -> {
                for (int i = 0; i < n; i++) {
                    data.set(INT, (base + i) << 2, (int) src[i]);
                }
            }
            default -> MemorySegment.copy(src, 0, data, LONG, base << 3, n);
        }
    }

    /** {@code dst[i]} = row {@code from + i} of a Float32 ({@code float32}) or Float64 column, for {@code i < n}. */
    static void widen(MemorySegment data, boolean float32, int from, int n, double[] dst) {
        long base = from;
        if (float32) {
            for (int i = 0; i < n; i++) {
                dst[i] = data.get(FLOAT, (base + i) << 2);
            }
        } else {
            MemorySegment.copy(data, DOUBLE, base << 3, dst, 0, n);
        }
    }

    /** Row {@code from + i} of a float column = {@code src[i]} (rounded once to Float32 when {@code float32}). */
    static void narrow(double[] src, int n, boolean float32, MemorySegment data, int from) {
        long base = from;
        if (float32) {
            for (int i = 0; i < n; i++) {
                data.set(FLOAT, (base + i) << 2, (float) src[i]);
            }
        } else {
            MemorySegment.copy(src, 0, data, DOUBLE, base << 3, n);
        }
    }

    /** A non-null integer, Date32 or Timestamp scalar as the loops hold it (UInt64: its 64 bits). */
    static long toLong(ScalarValue v) {
        return switch (v.value()) {
            case BigInteger b -> b.longValue();
            case Number x -> x.longValue();
            case Boolean b -> b ? 1 : 0;
            default -> throw new IllegalArgumentException("not an integer value: " + v);
        };
    }

    /** A non-null float scalar as a double. */
    static double toDouble(ScalarValue v) {
        return ((Number) v.value()).doubleValue();
    }
}
