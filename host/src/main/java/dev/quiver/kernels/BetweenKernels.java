package dev.quiver.kernels;

import dev.quiver.types.DataType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code v [NOT] BETWEEN lo AND hi} with constant bounds over a fixed-width column, in one pass
 * of 64 rows per step: {@code lo <= v AND v <= hi} under Kleene logic, compared as
 * {@link ComparisonKernels} does (floats in SQL's total order).
 *
 * <p>Each value becomes a key whose signed order is the type's order (an unsigned 64-bit value
 * with its top bit flipped, a float its {@link #floatKey}), so a row is in range when
 * {@code key - lo} is at most {@code hi - lo} unsigned: one comparison per row.
 */
final class BetweenKernels {
    private enum Reader {
        I8,
        U8,
        I16,
        U16,
        I32,
        U32,
        I64,
        U64,
        F32,
        F64,
        DEC128
    }

    private BetweenKernels() {}

    /** Whether {@link #between} takes a value of {@code v} with bounds of {@code lo} and {@code hi} (a bound may be the Null type). */
    static boolean supports(DataType v, DataType lo, DataType hi) {
        DataType t = v.valueType();
        boolean fixedWidth = t instanceof DataType.Int
                || t instanceof DataType.FloatingPoint
                || t instanceof DataType.Date32
                || t instanceof DataType.Timestamp
                || t instanceof DataType.Decimal;
        return fixedWidth && boundOk(t, lo.valueType()) && boundOk(t, hi.valueType());
    }

    private static boolean boundOk(DataType t, DataType bound) {
        return switch (bound) {
            case DataType.Null _ -> true;
            case DataType.Decimal d -> t instanceof DataType.Decimal e && d.scale() == e.scale();
            case DataType.Timestamp u -> t instanceof DataType.Timestamp ts && ts.unit() == u.unit();
            default -> t.equals(bound);
        };
    }

    /** {@code lo} and {@code hi} are constant; the types are as {@link #supports} requires. */
    static FieldVector between(
            KernelInput v, KernelInput lo, KernelInput hi, boolean negated, int rows, BufferAllocator allocator) {
        if (!lo.constant || !hi.constant || !supports(v.type, lo.type, hi.type)) {
            throw new IllegalArgumentException("the one-pass BETWEEN takes constant bounds of the value's type, not "
                    + v.type + " BETWEEN " + lo.type + " AND " + hi.type);
        }
        try (PredicateOutput out = PredicateOutput.allocate(rows, allocator)) {
            if (v.isNullType()) {
                return out.finish();
            }
            boolean loKnown = !lo.isNullType() && lo.isValid(0);
            boolean hiKnown = !hi.isNullType() && hi.isValid(0);
            if (!loKnown && !hiKnown) {
                return out.finish(); // NULL AND NULL
            }
            Reader reader = reader(v.type);
            MemorySegment data = out.view(v.vector.getDataBuffer());
            PredicateOutput.ValidityWords validity = out.validity(v);
            if (reader == Reader.DEC128) {
                return decimals(v, lo, hi, loKnown, hiKnown, negated, data, validity, out);
            }
            // The one range test: lo <= key <= hi; a NULL bound tests only the other side.
            long low = loKnown ? key(reader, out.view(lo.vector.getDataBuffer()), 0) : Long.MIN_VALUE;
            long high = hiKnown ? key(reader, out.view(hi.vector.getDataBuffer()), 0) : Long.MAX_VALUE;
            boolean empty = low > high;
            long span = high - low;
            boolean bothKnown = loKnown && hiKnown;
            long constant = v.constant ? (inRange(reader, data, 0, 1, low, span) & 1) != 0 ? -1L : 0 : 0;
            for (int w = 0; w < out.words(); w++) {
                int count = Math.min(64, rows - (w << 6));
                long valid = validity.get(w);
                long in = empty ? 0 : v.constant ? constant : inRange(reader, data, w << 6, count, low, span);
                // With a NULL bound a row is FALSE when the known side fails, else NULL.
                long isTrue = bothKnown ? in : 0;
                long isFalse = ~in;
                out.store(w, valid & (isTrue | isFalse), negated ? isFalse : isTrue);
            }
            return out.finish();
        }
    }

    /** Bit {@code j} set when the key of row {@code first + j} is in {@code [low, low + span]}. */
    private static long inRange(Reader reader, MemorySegment d, int first, int count, long low, long span) {
        long f = first;
        long bits = 0;
        switch (reader) {
            case I8 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(d.get(ValueLayout.JAVA_BYTE, f + j), low, span) << j;
                }
            }
            case U8 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(d.get(ValueLayout.JAVA_BYTE, f + j) & 0xFFL, low, span) << j;
                }
            }
            case I16 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(d.get(PredicateOutput.SHORT, (f + j) << 1), low, span) << j;
                }
            }
            case U16 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(d.get(PredicateOutput.SHORT, (f + j) << 1) & 0xFFFFL, low, span) << j;
                }
            }
            case I32 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(d.get(PredicateOutput.INT, (f + j) << 2), low, span) << j;
                }
            }
            case U32 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(d.get(PredicateOutput.INT, (f + j) << 2) & 0xFFFF_FFFFL, low, span) << j;
                }
            }
            case I64 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(d.get(PredicateOutput.WORD, (f + j) << 3), low, span) << j;
                }
            }
            case U64 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(d.get(PredicateOutput.WORD, (f + j) << 3) ^ Long.MIN_VALUE, low, span) << j;
                }
            }
            case F32 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(floatKey(d.get(PredicateOutput.FLOAT, (f + j) << 2)), low, span) << j;
                }
            }
            case F64 -> {
                for (int j = 0; j < count; j++) {
                    bits |= test(floatKey(d.get(PredicateOutput.DOUBLE, (f + j) << 3)), low, span) << j;
                }
            }
            case DEC128 -> throw new AssertionError("decimals compare 128 bits");
        }
        return bits;
    }

    /** 1 when {@code low <= key <= low + span} (signed), else 0. */
    private static long test(long key, long low, long span) {
        return Long.compareUnsigned(key - low, span) <= 0 ? 1L : 0L;
    }

    /**
     * A float's key: its order as a signed long is SQL's total order on floats (-0.0 = 0.0, one
     * NaN above +Infinity).
     */
    static long floatKey(double d) {
        long bits = Double.doubleToLongBits(d + 0.0); // -0.0 + 0.0 is 0.0; every NaN becomes the canonical one
        return bits ^ ((bits >> 63) >>> 1); // negative floats: larger magnitude, smaller key
    }

    private static long key(Reader reader, MemorySegment d, int row) {
        return switch (reader) {
            case I8 -> d.get(ValueLayout.JAVA_BYTE, row);
            case U8 -> d.get(ValueLayout.JAVA_BYTE, row) & 0xFFL;
            case I16 -> d.get(PredicateOutput.SHORT, (long) row << 1);
            case U16 -> d.get(PredicateOutput.SHORT, (long) row << 1) & 0xFFFFL;
            case I32 -> d.get(PredicateOutput.INT, (long) row << 2);
            case U32 -> d.get(PredicateOutput.INT, (long) row << 2) & 0xFFFF_FFFFL;
            case I64 -> d.get(PredicateOutput.WORD, (long) row << 3);
            case U64 -> d.get(PredicateOutput.WORD, (long) row << 3) ^ Long.MIN_VALUE;
            case F32 -> floatKey(d.get(PredicateOutput.FLOAT, (long) row << 2));
            case F64 -> floatKey(d.get(PredicateOutput.DOUBLE, (long) row << 3));
            case DEC128 -> throw new AssertionError("decimals compare 128 bits");
        };
    }

    private static Reader reader(DataType t) {
        return switch (t) {
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> i.signed() ? Reader.I8 : Reader.U8;
                    case 16 -> i.signed() ? Reader.I16 : Reader.U16;
                    case 32 -> i.signed() ? Reader.I32 : Reader.U32;
                    default -> i.signed() ? Reader.I64 : Reader.U64;
                };
            case DataType.Date32 _ -> Reader.I32;
            case DataType.Timestamp _ -> Reader.I64;
            case DataType.FloatingPoint f -> f.bitWidth() == 32 ? Reader.F32 : Reader.F64;
            case DataType.Decimal _ -> Reader.DEC128;
            // Unreachable from a plan: Kernels.between takes this pass only where supports() holds.
            default -> throw new UnsupportedOperationException("BETWEEN: no one-pass reader for " + t);
        };
    }

    /** Decimal128 of one scale: the two's complement unscaled values compared as 128-bit integers. */
    private static FieldVector decimals(
            KernelInput v,
            KernelInput lo,
            KernelInput hi,
            boolean loKnown,
            boolean hiKnown,
            boolean negated,
            MemorySegment data,
            PredicateOutput.ValidityWords validity,
            PredicateOutput out) {
        MemorySegment l = out.view(lo.vector.getDataBuffer());
        MemorySegment h = out.view(hi.vector.getDataBuffer());
        long loLow = loKnown ? l.get(PredicateOutput.WORD, 0) : 0;
        long loHigh = loKnown ? l.get(PredicateOutput.WORD, 8) : 0;
        long hiLow = hiKnown ? h.get(PredicateOutput.WORD, 0) : 0;
        long hiHigh = hiKnown ? h.get(PredicateOutput.WORD, 8) : 0;
        for (int w = 0; w < out.words(); w++) {
            int count = Math.min(64, out.rows() - (w << 6));
            long valid = validity.get(w);
            long ge = 0;
            long le = 0;
            for (int j = 0; j < count; j++) {
                long at = v.constant ? 0 : (long) ((w << 6) + j) << 4;
                long xLow = data.get(PredicateOutput.WORD, at);
                long xHigh = data.get(PredicateOutput.WORD, at + 8);
                ge |= (compare128(xHigh, xLow, loHigh, loLow) >= 0 ? 1L : 0L) << j;
                le |= (compare128(xHigh, xLow, hiHigh, hiLow) <= 0 ? 1L : 0L) << j;
            }
            long geKnown = loKnown ? -1L : 0;
            long leKnown = hiKnown ? -1L : 0;
            long isTrue = geKnown & ge & leKnown & le;
            long isFalse = (geKnown & ~ge) | (leKnown & ~le);
            out.store(w, valid & (isTrue | isFalse), negated ? isFalse : isTrue);
        }
        return out.finish();
    }

    private static int compare128(long aHigh, long aLow, long bHigh, long bLow) {
        return aHigh != bHigh ? Long.compare(aHigh, bHigh) : Long.compareUnsigned(aLow, bLow);
    }
}
