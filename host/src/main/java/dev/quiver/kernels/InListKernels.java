package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/** {@code v [NOT] IN (list)} against a prepared {@link InList}: one pass, 64 rows per step. */
final class InListKernels {
    private static final BigInteger LOW_64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** How a fixed-width column's values become keys. */
    private enum Reader {
        I8,
        U8,
        I16,
        U16,
        I32,
        U32,
        I64,
        F32,
        F64
    }

    private InListKernels() {}

    static FieldVector inList(KernelInput v, InList list, boolean negated, int rows, BufferAllocator allocator) {
        check(v.type, list);
        try (PredicateOutput out = PredicateOutput.allocate(rows, allocator)) {
            if (v.isNullType()) {
                return out.finish(); // every row NULL
            }
            fill(v, list, negated, rows, out);
            return out.finish();
        }
    }

    /**
     * {@code target = target AND (v [NOT] IN list)} (OR when {@code and} is false), Kleene, into
     * the bitmaps of a chain's running result, with no vector of its own: only the rows the
     * target has not decided are looked up. {@code v} must be an array, not of the Null type.
     */
    static void inListInto(
            KernelInput v,
            InList list,
            boolean negated,
            int rows,
            MemorySegment targetValidity,
            MemorySegment targetData,
            boolean and) {
        check(v.type, list);
        if (v.isNullType() || v.constant) {
            throw new IllegalArgumentException("IN is combined into a result from an array operand only");
        }
        try (PredicateOutput out = PredicateOutput.into(targetValidity, targetData, rows, and)) {
            fill(v, list, negated, rows, out);
            out.finish();
        }
    }

    /**
     * {@link #inListInto} for {@code v} as a chain term holds it; false, with nothing written, when
     * {@code v} is not an array (a scalar, or of the Null type), which the caller then combines as a value.
     */
    static boolean combineInto(
            ColumnarValue v,
            InList list,
            boolean negated,
            int rows,
            MemorySegment targetValidity,
            MemorySegment targetData,
            boolean and,
            BufferAllocator allocator) {
        if (rows == 0 || !(v instanceof ColumnarValue.Array) || v.dataType().valueType() instanceof DataType.Null) {
            return false;
        }
        try (KernelInput in = KernelInput.of(v, rows, allocator)) {
            inListInto(in, list, negated, rows, targetValidity, targetData, and);
        }
        return true;
    }

    /** The IN result word by word into {@code out}: stored, or combined where {@code out} is combining. */
    private static void fill(KernelInput v, InList list, boolean negated, int rows, PredicateOutput out) {
        PredicateOutput.ValidityWords validity = out.validity(v);
        Hits hits = hits(v, list, out);
        long constant = v.constant ? ((hits.word(0, 1, 1L) & 1) != 0 ? -1L : 0L) : 0;
        boolean containsNull = list.containsNull();
        boolean combining = out.combining();
        for (int w = 0; w < out.words(); w++) {
            int count = Math.min(64, rows - (w << 6));
            long valid = validity.get(w) & out.liveMask(w);
            long want = combining ? out.undecided(w) : -1L;
            long found = (v.constant ? constant : (want == 0 ? 0 : hits.word(w << 6, count, valid & want))) & valid;
            long resultValid = containsNull ? found : valid; // not found, with a NULL in the list: NULL
            long resultValue = containsNull ? (negated ? 0 : found) : (negated ? ~found : found);
            if (combining) {
                out.combine(w, resultValid, resultValue);
            } else {
                out.store(w, resultValid, resultValue);
            }
        }
    }

    /** The rows of a word whose value is in the list. */
    @FunctionalInterface
    private interface Hits {
        /** Bit {@code j} set when row {@code first + j} is in the list, for {@code j < count}; rows not in {@code valid} may be anything. */
        long word(int first, int count, long valid);
    }

    private static Hits hits(KernelInput v, InList list, PredicateOutput out) {
        MemorySegment data = v.type instanceof DataType.Utf8 || v.type instanceof DataType.Binary
                ? null
                : out.view(v.vector.getDataBuffer());
        return switch (list.keys()) {
            case BOOL -> {
                long whenSet = list.hasTrue ? -1L : 0;
                long whenClear = list.hasFalse ? -1L : 0;
                yield (first, count, valid) -> {
                    long bits = PredicateOutput.bitsWord(data, first >>> 6);
                    return (bits & whenSet) | (~bits & whenClear);
                };
            }
            case LONG, FLOAT -> {
                Reader reader = reader(v.type);
                long[] keys = new long[64];
                InList.LongProbe probe = list.longs;
                yield (first, count, valid) -> {
                    read(reader, data, first, count, keys);
                    return probe.matchWord(keys, count);
                };
            }
            case DECIMAL -> {
                InList.LongProbe probe = list.longs;
                boolean anyWide = !list.wideDecimals.isEmpty();
                yield (first, count, valid) -> {
                    long found = 0;
                    for (long m = valid; m != 0; m &= m - 1) {
                        int j = Long.numberOfTrailingZeros(m);
                        long at = (long) (first + j) << 4;
                        long lo = data.get(PredicateOutput.WORD, at);
                        long hi = data.get(PredicateOutput.WORD, at + 8);
                        boolean hit = hi == lo >> 63
                                ? probe.contains(lo)
                                : anyWide
                                        && list.wideDecimals.contains(BigInteger.valueOf(hi)
                                                .shiftLeft(64)
                                                .or(BigInteger.valueOf(lo).and(LOW_64)));
                        found |= (hit ? 1L : 0L) << j;
                    }
                    return found;
                };
            }
            case BYTES -> {
                ByteColumn column = ByteColumn.of(v, out);
                InList.BytesProbe probe = list.bytes;
                long[] lengths = probe.fewLengths;
                boolean byLength = lengths != null && !column.constant && ComparisonKernels.VECTOR_API;
                if (probe.fewShort() && !column.constant) {
                    yield shortKeyHits(column, probe, byLength ? lengths : null);
                }
                yield (first, count, valid) -> {
                    long found = 0;
                    // Lengths first: a row of no key's length is no key, and its bytes are not read.
                    long candidates = byLength
                            ? valid & StringLengths.anyOf(column.offsets, column.large, first, count, lengths)
                            : valid;
                    for (long m = candidates; m != 0; m &= m - 1) {
                        int j = Long.numberOfTrailingZeros(m);
                        if (probe.contains(column.data, column.start(first + j), column.end(first + j))) {
                            found |= 1L << j;
                        }
                    }
                    return found;
                };
            }
            case NONE -> (first, count, valid) -> 0L; // no values, NULLs at most
        };
    }

    /**
     * {@link Hits} for a few keys of at most eight bytes: a candidate row is its first word masked
     * to its length, compared with every key without a branch on the data ({@code lengths}: the
     * keys' distinct lengths, to turn rows away by their length in vector steps first; null for
     * none).
     */
    private static Hits shortKeyHits(ByteColumn column, InList.BytesProbe probe, long[] lengths) {
        MemorySegment data = column.data;
        long lastWord = data.byteSize() - 8; // a row starting past it is read byte by byte
        return (first, count, valid) -> {
            long candidates = lengths == null
                    ? valid
                    : valid & StringLengths.anyOf(column.offsets, column.large, first, count, lengths);
            long found = 0;
            for (long m = candidates; m != 0; m &= m - 1) {
                int j = Long.numberOfTrailingZeros(m);
                long start = column.start(first + j);
                long len = column.end(first + j) - start;
                int bytes = (int) Math.min(8, len);
                long w = start <= lastWord
                        ? data.get(PredicateOutput.WORD, start) & ByteColumn.lowBytes(bytes)
                        : ByteColumn.partialWord(data, start, bytes);
                found |= (probe.hasShort(len, w) ? 1L : 0L) << j;
            }
            return found;
        };
    }

    private static Reader reader(DataType t) {
        return switch (t) {
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> i.signed() ? Reader.I8 : Reader.U8;
                    case 16 -> i.signed() ? Reader.I16 : Reader.U16;
                    case 32 -> i.signed() ? Reader.I32 : Reader.U32;
                    default -> Reader.I64;
                };
            case DataType.Date32 _ -> Reader.I32;
            case DataType.Timestamp _ -> Reader.I64;
            case DataType.FloatingPoint f -> f.bitWidth() == 32 ? Reader.F32 : Reader.F64;
            // Unreachable from a plan: InList.supports decides which types are prepared.
            default -> throw new UnsupportedOperationException("no key reader for " + t);
        };
    }

    /** Keys of rows {@code first .. first + count - 1}, as {@link InList} keys them. */
    private static void read(Reader reader, MemorySegment d, int first, int count, long[] out) {
        long f = first;
        switch (reader) {
            case I8 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = d.get(ValueLayout.JAVA_BYTE, f + j);
                }
            }
            case U8 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = d.get(ValueLayout.JAVA_BYTE, f + j) & 0xFFL;
                }
            }
            case I16 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = d.get(PredicateOutput.SHORT, (f + j) << 1);
                }
            }
            case U16 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = d.get(PredicateOutput.SHORT, (f + j) << 1) & 0xFFFFL;
                }
            }
            case I32 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = d.get(PredicateOutput.INT, (f + j) << 2);
                }
            }
            case U32 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = d.get(PredicateOutput.INT, (f + j) << 2) & 0xFFFF_FFFFL;
                }
            }
            case I64 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = d.get(PredicateOutput.WORD, (f + j) << 3);
                }
            }
            case F32 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = InList.floatKey(d.get(PredicateOutput.FLOAT, (f + j) << 2));
                }
            }
            case F64 -> {
                for (int j = 0; j < count; j++) {
                    out[j] = InList.floatKey(d.get(PredicateOutput.DOUBLE, (f + j) << 3));
                }
            }
        }
    }

    /** A value of type {@code t} can be looked up in {@code list}: the types agree as {@link InList#of} requires. */
    private static void check(DataType t, InList list) {
        DataType l = list.type().valueType();
        boolean ok = t instanceof DataType.Null
                || l instanceof DataType.Null
                || switch (t) {
                    case DataType.Decimal d -> l instanceof DataType.Decimal e && d.scale() == e.scale();
                    case DataType.Utf8 _ -> l instanceof DataType.Utf8;
                    case DataType.Timestamp ts -> l instanceof DataType.Timestamp u && ts.unit() == u.unit();
                    default -> t.equals(l);
                };
        if (!ok) {
            throw new IllegalArgumentException("a " + t + " value looked up in an IN list prepared for " + list.type());
        }
    }
}
