package dev.quiver.kernels;

import dev.quiver.expr.Operator;
import dev.quiver.kernels.FixedWidth.IntKind;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code = <> < <= > >=} and the DISTINCT FROM forms over two values of one type, producing
 * packed Boolean bitmaps 64 rows at a time.
 *
 * <p>For each run of 64 rows an {@link Order} computes two words, "left is less" and "left is
 * equal" (so "greater" is what is neither); the operator picks its rows from those three, and
 * the result's validity is the AND of the operands' validity words. Values behind nulls are
 * compared like any other and masked out. A scalar on the left is moved to the right with the
 * operator swapped. Floats, Int32/Int64, Date32 and timestamps compare with the Vector API
 * ({@link VectorComparisons}) when it is present, a loop per shape of the right side (array or
 * scalar), as the JIT compiles vector code fastest. Every other type, and every type without the
 * Vector API, shares one plain loop over chunks of {@code long}s that order as the values do
 * ({@link #compareLongs}): integers widened, floats as keys of SQL's total order, a scalar's key
 * broadcast to every row, and for lists and structs each row's sign. Booleans compare 64 rows per
 * step; decimals row by row with a loop per shape of the right side (through the shared loop, a
 * decimal column against a scalar took about a third longer); strings and binaries where they lie,
 * lengths first for equality and eight bytes per step ({@link StringOrder}).
 */
final class ComparisonKernels {
    /** Whether the Vector API module is present (Quiver's launcher and tests add it); without it every type takes the plain loops. */
    static final boolean VECTOR_API =
            ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    /** Rows per step of an {@link Order}: 16 words. */
    static final int CHUNK = 1024;

    private static final int CHUNK_WORDS = CHUNK >>> 6;

    /** The order of the left operand against the right, for rows {@code from .. from+n-1} ({@code from} a multiple of 64). */
    @FunctionalInterface
    interface Order {
        /** Bit {@code j} of {@code lt[k]} / {@code eq[k]}: row {@code from + 64k + j} of the left side is less than / equal to the right's. */
        void words(int from, int n, long[] lt, long[] eq);
    }

    /**
     * An {@link Order} that can skip rows: only the rows set in {@code needed[k]} (for word
     * {@code k} of the run) need their bits; the others may be anything. Combining into a running
     * AND/OR result, the rows it has already decided are not needed, so a string comparison under
     * a sparse chain reads only the bytes of the undecided rows.
     */
    @FunctionalInterface
    interface MaskedOrder extends Order {
        void words(int from, int n, long[] lt, long[] eq, long[] needed);

        @Override
        default void words(int from, int n, long[] lt, long[] eq) {
            words(from, n, lt, eq, null);
        }
    }

    private ComparisonKernels() {}

    static ColumnarValue compare(Operator op, ColumnarValue l, ColumnarValue r, int rows, BufferAllocator allocator) {
        return compare(op, l, r, rows, allocator, VECTOR_API);
    }

    /** {@link #compare}, with the Vector API loops ({@code vectorApi}, where present) or without (for tests: both must agree). */
    static ColumnarValue compare(
            Operator op, ColumnarValue l, ColumnarValue r, int rows, BufferAllocator allocator, boolean vectorApi) {
        return compare(op, l, r, rows, allocator, vectorApi, null, null, false, false);
    }

    /**
     * {@code target = target AND (l op r)} (OR when {@code and} is false), Kleene, written over
     * {@code target} (a Boolean vector of {@code rows} rows) with no intermediate vector. Returns
     * false, leaving {@code target} untouched, for the shapes it does not take (two scalars, an
     * all-null side, the DISTINCT FROM forms); the caller then combines a plain comparison.
     */
    static boolean compareInto(
            Operator op,
            ColumnarValue l,
            ColumnarValue r,
            FieldVector target,
            boolean and,
            int rows,
            BufferAllocator allocator) {
        Objects.requireNonNull(target, "target is null");
        return compareInto(
                op,
                l,
                r,
                Bitmaps.view(target.getValidityBuffer()),
                Bitmaps.view(target.getDataBuffer()),
                and,
                rows,
                allocator);
    }

    /** {@link #compareInto(Operator, ColumnarValue, ColumnarValue, FieldVector, boolean, int, BufferAllocator)} into bitmaps given as segments. */
    static boolean compareInto(
            Operator op,
            ColumnarValue l,
            ColumnarValue r,
            MemorySegment targetValidity,
            MemorySegment targetData,
            boolean and,
            int rows,
            BufferAllocator allocator) {
        return compareInto(op, l, r, targetValidity, targetData, and, false, rows, allocator);
    }

    /** As above; {@code overwrite}: the target holds the operator's identity, so the comparison is simply written over it. */
    static boolean compareInto(
            Operator op,
            ColumnarValue l,
            ColumnarValue r,
            MemorySegment targetValidity,
            MemorySegment targetData,
            boolean and,
            boolean overwrite,
            int rows,
            BufferAllocator allocator) {
        if (op == Operator.IS_DISTINCT_FROM
                || op == Operator.IS_NOT_DISTINCT_FROM
                || (l instanceof ColumnarValue.Scalar && r instanceof ColumnarValue.Scalar)
                || l.dataType() instanceof DataType.Null
                || r.dataType() instanceof DataType.Null
                || (l instanceof ColumnarValue.Scalar s && s.isNull())
                || (r instanceof ColumnarValue.Scalar t && t.isNull())) {
            return false;
        }
        compare(op, l, r, rows, allocator, VECTOR_API, targetValidity, targetData, and, overwrite);
        return true;
    }

    private static ColumnarValue compare(
            Operator op,
            ColumnarValue l,
            ColumnarValue r,
            int rows,
            BufferAllocator allocator,
            boolean vectorApi,
            MemorySegment intoValidity,
            MemorySegment intoData,
            boolean intoAnd,
            boolean overwrite) {
        boolean into = intoValidity != null;
        if (!op.isComparison()) {
            throw new IllegalArgumentException(op + " is not a comparison operator");
        }
        Objects.requireNonNull(l, "l is null");
        Objects.requireNonNull(r, "r is null");
        Objects.requireNonNull(allocator, "allocator is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, not " + rows);
        }
        DataType lt = l.dataType().valueType();
        DataType rt = r.dataType().valueType();
        if (!comparable(lt, rt)) {
            // Unreachable from a plan: the planner checks Kernels.canCompare (this method) for every comparison it
            // plans.
            throw new UnsupportedOperationException(
                    "comparison " + lt + " " + op.sql() + " " + rt + " is not supported");
        }
        boolean distinct = op == Operator.IS_DISTINCT_FROM || op == Operator.IS_NOT_DISTINCT_FROM;
        if (l instanceof ColumnarValue.Scalar ls && r instanceof ColumnarValue.Scalar rs) {
            return scalars(op, ls, rs, distinct, allocator, vectorApi);
        }
        Operand a = Operand.of(l, rows);
        Operand b = Operand.of(r, rows);
        if (a.isScalar()) {
            Operand t = a;
            a = b;
            b = t;
            op = op.swap();
        }
        FieldVector out = into ? null : ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        FieldVector scalarRow = null; // a nested scalar, as a one-row vector the nested order reads
        try {
            MemorySegment validity = into ? intoValidity : Bitmaps.view(out.getValidityBuffer());
            MemorySegment data = into ? intoData : Bitmaps.view(out.getDataBuffer());
            boolean combine = into && !overwrite;
            long[] targetValid = combine ? new long[Math.min(CHUNK_WORDS, Bitmaps.words(rows))] : null;
            long[] targetValue = combine ? new long[Math.min(CHUNK_WORDS, Bitmaps.words(rows))] : null;
            if (a.allNull() || b.allNull()) {
                if (distinct) {
                    nullDistinct(op, a, b, rows, validity, data);
                }
                return new ColumnarValue.Array(out, true); // otherwise all null
            }
            long less = op == Operator.LT || op == Operator.LT_EQ || op == Operator.NOT_EQ ? -1L : 0;
            long equal = op == Operator.EQ || op == Operator.LT_EQ || op == Operator.GT_EQ ? -1L : 0;
            long greater = op == Operator.GT || op == Operator.GT_EQ || op == Operator.NOT_EQ ? -1L : 0;
            // = and <> (and DISTINCT FROM) read only the equal rows: the order of strings need not be found.
            boolean equalityOnly = distinct || op == Operator.EQ || op == Operator.NOT_EQ;
            Order order;
            if (NestedOrder.isNested(a.type)) {
                if (b.isScalar()) {
                    scalarRow = Values.broadcast(b.scalar, "scalar", 1, allocator);
                }
                order = nested(a, b, scalarRow, Math.min(CHUNK, rows));
            } else {
                order = order(a, b, vectorApi && VECTOR_API, rows, equalityOnly);
            }
            boolean wantDistinct = op == Operator.IS_DISTINCT_FROM;
            int scratchWords = Math.min(CHUNK_WORDS, Bitmaps.words(rows));
            long[] ltWords = new long[scratchWords];
            long[] eqWords = new long[scratchWords];
            long[] va = new long[scratchWords];
            long[] vb = new long[scratchWords];
            long[] valid = new long[scratchWords];
            long[] value = new long[scratchWords];
            // Combining with a masked order: the target's words are read first, and only the rows
            // they leave undecided (not FALSE for AND, not TRUE for OR) are compared.
            MaskedOrder masked = combine && order instanceof MaskedOrder m ? m : null;
            long[] needed = masked == null ? null : new long[scratchWords];
            for (int from = 0; from < rows; from += CHUNK) {
                int n = Math.min(CHUNK, rows - from);
                int first = from >>> 6;
                int words = Bitmaps.words(n);
                if (masked != null) {
                    Bitmaps.words(validity, first, words, targetValid);
                    Bitmaps.words(data, first, words, targetValue);
                    for (int k = 0; k < words; k++) {
                        long tv = targetValid[k];
                        long td = targetValue[k] & tv;
                        needed[k] = Kleene.undecided(intoAnd, tv, td);
                    }
                    masked.words(from, n, ltWords, eqWords, needed);
                } else {
                    order.words(from, n, ltWords, eqWords);
                }
                a.validWords(first, words, va);
                b.validWords(first, words, vb);
                for (int k = 0; k < words; k++) {
                    long lt0 = ltWords[k];
                    long eq0 = eqWords[k];
                    if (distinct) {
                        // Distinct: both valid and unequal, or exactly one null. Never null.
                        long differ = (va[k] & vb[k] & ~eq0) | (va[k] ^ vb[k]);
                        valid[k] = -1L;
                        value[k] = wantDistinct ? differ : ~differ;
                    } else {
                        long holds = (lt0 & less) | (eq0 & equal) | (~(lt0 | eq0) & greater);
                        long v = va[k] & vb[k];
                        valid[k] = v;
                        value[k] = holds & v;
                    }
                }
                if (combine) {
                    // Kleene-combine with the target's words, read before they are written over.
                    if (masked == null) {
                        Bitmaps.words(validity, first, words, targetValid);
                        Bitmaps.words(data, first, words, targetValue);
                    }
                    for (int k = 0; k < words; k++) {
                        long tv = targetValid[k];
                        long td = targetValue[k] & tv;
                        long cv = valid[k];
                        long cd = value[k];
                        long nv = Kleene.valid(intoAnd, tv, td, cv, cd);
                        valid[k] = nv;
                        value[k] = Kleene.value(intoAnd, td, cd, nv);
                    }
                }
                long live = Bitmaps.liveMask(first + words - 1, rows);
                valid[words - 1] &= live;
                value[words - 1] &= live;
                Bitmaps.setWords(validity, first, words, valid, rows);
                Bitmaps.setWords(data, first, words, value, rows);
            }
            return into ? null : new ColumnarValue.Array(out, true);
        } catch (RuntimeException | Error e) {
            if (out != null) {
                out.close();
            }
            throw e;
        } finally {
            if (scalarRow != null) {
                scalarRow.close();
            }
        }
    }

    /** A DISTINCT FROM form where one side is all null: distinct exactly where the other side is valid. */
    private static void nullDistinct(
            Operator op, Operand a, Operand b, int rows, MemorySegment validity, MemorySegment data) {
        for (int w = 0; w < Bitmaps.words(rows); w++) {
            long live = Bitmaps.liveMask(w, rows);
            long differ = a.validWord(w) ^ b.validWord(w);
            Bitmaps.setWord(validity, w, live, rows);
            Bitmaps.setWord(data, w, (op == Operator.IS_DISTINCT_FROM ? differ : ~differ) & live, rows);
        }
    }

    /** Two scalars: one row of two one-row arrays, so scalars and arrays agree exactly. */
    private static ColumnarValue scalars(
            Operator op,
            ColumnarValue.Scalar l,
            ColumnarValue.Scalar r,
            boolean distinct,
            BufferAllocator allocator,
            boolean vectorApi) {
        if (l.isNull() || r.isNull()) {
            boolean bothNull = l.isNull() && r.isNull();
            Boolean v = !distinct ? null : (op == Operator.IS_DISTINCT_FROM) != bothNull;
            return ColumnarValue.scalar(DataType.BOOLEAN, v);
        }
        try (FieldVector lv = Values.broadcast(l.value(), "l", 1, allocator)) {
            try (FieldVector rv = Values.broadcast(r.value(), "r", 1, allocator);
                    ColumnarValue out = compare(
                            op,
                            ColumnarValue.Array.borrowed(lv),
                            ColumnarValue.Array.borrowed(rv),
                            1,
                            allocator,
                            vectorApi)) {
                return new ColumnarValue.Scalar(Values.get(((ColumnarValue.Array) out).vector(), 0, DataType.BOOLEAN));
            }
        }
    }

    static boolean comparable(DataType lt, DataType rt) {
        if (lt instanceof DataType.Null || rt instanceof DataType.Null) {
            return true;
        }
        return switch (lt) {
            case DataType.Int _ -> rt.equals(lt);
            case DataType.Bool _ -> rt.equals(lt);
            case DataType.Date32 _ -> rt.equals(lt);
            case DataType.FloatingPoint _ -> rt.equals(lt);
            case DataType.Timestamp t -> rt instanceof DataType.Timestamp u && t.unit() == u.unit();
            case DataType.Decimal _ -> rt instanceof DataType.Decimal;
            case DataType.Utf8 _ -> rt instanceof DataType.Utf8;
            case DataType.Binary _ -> rt instanceof DataType.Binary;
            case DataType.ListType _ -> NestedOrder.comparable(lt, rt);
            case DataType.Struct _ -> NestedOrder.comparable(lt, rt);
            default -> false;
        };
    }

    /** Lists and structs ({@link NestedOrder}): row by row; a scalar {@code b} is read from {@code scalarRow}, its one row. */
    private static Order nested(Operand a, Operand b, FieldVector scalarRow, int scratch) {
        FieldVector bv = b.isScalar() ? scalarRow : b.vector;
        NestedOrder.RowOrder rowOrder = NestedOrder.of(a.vector, a.type, bv, b.type);
        int bRows = b.isScalar() ? 0 : -1; // the scalar's one row stands for every row
        return bySign(scratch, (from, n, signs) -> {
            for (int i = 0; i < n; i++) {
                int row = from + i;
                signs[i] = rowOrder.compare(row, row & bRows);
            }
        });
    }

    /** The order of array {@code a} against array or scalar {@code b}, both non-null and of comparable types. */
    private static Order order(Operand a, Operand b, boolean vectorApi, int rows, boolean equalityOnly) {
        if (a.type instanceof DataType.Utf8 || a.type instanceof DataType.Binary) {
            return StringOrder.of(a, b, equalityOnly, vectorApi);
        }
        Order whole = vectorApi ? VectorComparisons.order(a, b) : null;
        // The plain loops' scratch arrays: a chunk, or just the batch (a small batch pays for no more),
        // or one partial word when the Vector API does the whole words.
        if (whole != null && (rows & 63) == 0) {
            return whole; // no partial word: the plain loops are not needed
        }
        Order plain = plain(a, b, whole == null ? Math.min(CHUNK, rows) : Math.min(64, rows));
        return whole == null ? plain : withTail(whole, plain);
    }

    /** {@code whole} on the whole words of a chunk, {@code tail} on the last partial word of the batch. */
    private static Order withTail(Order whole, Order tail) {
        long[] tl = new long[1];
        long[] te = new long[1];
        return (from, n, lt, eq) -> {
            int words = n >>> 6;
            if (words > 0) {
                whole.words(from, words << 6, lt, eq);
            }
            if (words << 6 < n) {
                tail.words(from + (words << 6), n - (words << 6), tl, te);
                lt[words] = tl[0];
                eq[words] = te[0];
            }
        };
    }

    /** The order computed with plain Java loops. */
    private static Order plain(Operand a, Operand b, int scratch) {
        return switch (a.type) {
            case DataType.Bool _ -> booleans(a, b);
            case DataType.Decimal _ -> decimals(a, b);
            default -> numbers(a, b, scratch);
        };
    }

    // ---- the plain loops: each type turns a chunk of rows into longs, which one loop orders

    /** Rows {@code from .. from+n-1} as longs in {@code dst}: an operand's values as order keys, or each row's sign. */
    @FunctionalInterface
    private interface Rows {
        void read(int from, int n, long[] dst);
    }

    /** The order of {@code x[i]} against {@code y[i]} for {@code i < n}, 64 rows per word: the loop the plain orders share. */
    private static void compareLongs(long[] x, long[] y, int n, long[] lt, long[] eq) {
        for (int k = 0; k < Bitmaps.words(n); k++) {
            int base = k << 6;
            int end = Math.min(64, n - base);
            long l = 0;
            long e = 0;
            for (int j = 0; j < end; j++) {
                long u = x[base + j];
                long v = y[base + j];
                l |= (u < v ? 1L : 0L) << j;
                e |= (u == v ? 1L : 0L) << j;
            }
            lt[k] = l;
            eq[k] = e;
        }
    }

    /** Rows compared one by one: {@code signs} gives each row's comparison (negative, zero, positive), ordered against 0. */
    private static Order bySign(int scratch, Rows signs) {
        long[] c = new long[scratch];
        long[] zeros = new long[scratch];
        return (from, n, lt, eq) -> {
            signs.read(from, n, c);
            compareLongs(c, zeros, n, lt, eq);
        };
    }

    // ---- integers of every width, Date32, timestamps and floats, as longs in their order

    private static Order numbers(Operand a, Operand b, int scratch) {
        Rows x = keys(a.type, a.data());
        // The right side: an array's keys, read per chunk, or a scalar's key in every row, written once (a broadcast).
        Rows y = b.isScalar() ? null : keys(a.type, b.data());
        long[] xs = new long[scratch];
        long[] ys = new long[scratch];
        if (y == null) {
            Arrays.fill(ys, key(a.type, b.scalar));
        }
        return (from, n, lt, eq) -> {
            x.read(from, n, xs);
            if (y != null) {
                y.read(from, n, ys);
            }
            compareLongs(xs, ys, n, lt, eq);
        };
    }

    /** The rows of a column of {@code type} as order keys: see {@link #key}. */
    private static Rows keys(DataType type, MemorySegment data) {
        if (type instanceof DataType.FloatingPoint f) {
            boolean f32 = f.bitWidth() == 32;
            return (from, n, dst) -> {
                for (int i = 0; i < n; i++) {
                    long off = (long) (from + i) << (f32 ? 2 : 3);
                    dst[i] = floatKey(f32 ? data.get(FixedWidth.FLOAT, off) : data.get(FixedWidth.DOUBLE, off));
                }
            };
        }
        IntKind kind = FixedWidth.intKind(type);
        if (kind == IntKind.UINT64) {
            return (from, n, dst) -> {
                FixedWidth.widen(data, kind, from, n, dst);
                for (int i = 0; i < n; i++) {
                    dst[i] ^= Long.MIN_VALUE;
                }
            };
        }
        return (from, n, dst) -> FixedWidth.widen(data, kind, from, n, dst);
    }

    /**
     * A value as a long that orders as the value does: an integer as itself (UInt64 with its sign bit flipped, so
     * it orders as signed); a float in SQL's total order ({@code -0.0 = 0.0}, NaN = NaN, NaN above everything else).
     */
    private static long key(DataType type, ScalarValue value) {
        if (type instanceof DataType.FloatingPoint) {
            return floatKey(FixedWidth.toDouble(value));
        }
        long v = FixedWidth.toLong(value);
        return FixedWidth.intKind(type) == IntKind.UINT64 ? v ^ Long.MIN_VALUE : v;
    }

    /** {@code d}'s bits ordered as signed longs: one zero and one NaN, negatives' magnitudes reversed. */
    private static long floatKey(double d) {
        long bits = Double.doubleToLongBits(d + 0.0); // -0.0 + 0.0 is 0.0; every NaN becomes the canonical one
        return bits ^ ((bits >> 63) >>> 1);
    }

    // ---- Booleans, 64 rows per step: FALSE < TRUE

    private static Order booleans(Operand a, Operand b) {
        MemorySegment ad = a.data();
        MemorySegment bd = b.isScalar() ? null : b.data();
        long scalarWord = b.isScalar() && (Boolean) b.scalar.value() ? -1L : 0; // the scalar in every row
        return (from, n, lt, eq) -> {
            for (int k = 0; k < Bitmaps.words(n); k++) {
                long x = Bitmaps.word(ad, (from >>> 6) + k);
                long y = bd == null ? scalarWord : Bitmaps.word(bd, (from >>> 6) + k);
                lt[k] = ~x & y;
                eq[k] = ~(x ^ y);
            }
        };
    }

    // ---- decimals: 128-bit unscaled values at one scale, else BigDecimal

    private static Order decimals(Operand a, Operand b) {
        DataType.Decimal at = (DataType.Decimal) a.type;
        DataType.Decimal bt = (DataType.Decimal) b.type;
        MemorySegment ad = a.data();
        if (b.isScalar()) {
            BigDecimal s = (BigDecimal) b.scalar.value();
            BigInteger unscaled = null;
            if (s.scale() <= at.scale()) {
                // Exactly at the array's scale; it still orders correctly as long as it fits in 128 bits.
                BigInteger u = s.setScale(at.scale()).unscaledValue();
                unscaled = u.bitLength() < 128 ? u : null;
            }
            if (unscaled != null) {
                long sLow = unscaled.longValue();
                long sHigh = unscaled.shiftRight(64).longValue();
                return (from, n, lt, eq) -> {
                    for (int k = 0; k < Bitmaps.words(n); k++) {
                        long l = 0;
                        long e = 0;
                        int end = Math.min(64, n - (k << 6));
                        for (int j = 0; j < end; j++) {
                            long off = (long) (from + (k << 6) + j) << 4;
                            int c = compare128(
                                    ad.get(FixedWidth.LONG, off + 8), ad.get(FixedWidth.LONG, off), sHigh, sLow);
                            l |= (c < 0 ? 1L : 0L) << j;
                            e |= (c == 0 ? 1L : 0L) << j;
                        }
                        lt[k] = l;
                        eq[k] = e;
                    }
                };
            }
            return (from, n, lt, eq) -> {
                for (int k = 0; k < Bitmaps.words(n); k++) {
                    long l = 0;
                    long e = 0;
                    int end = Math.min(64, n - (k << 6));
                    for (int j = 0; j < end; j++) {
                        int c = decimal(ad, from + (k << 6) + j, at.scale()).compareTo(s);
                        l |= (c < 0 ? 1L : 0L) << j;
                        e |= (c == 0 ? 1L : 0L) << j;
                    }
                    lt[k] = l;
                    eq[k] = e;
                }
            };
        }
        MemorySegment bd = b.data();
        boolean sameScale = at.scale() == bt.scale();
        return (from, n, lt, eq) -> {
            for (int k = 0; k < Bitmaps.words(n); k++) {
                long l = 0;
                long e = 0;
                int end = Math.min(64, n - (k << 6));
                for (int j = 0; j < end; j++) {
                    int row = from + (k << 6) + j;
                    long off = (long) row << 4;
                    int c = sameScale
                            ? compare128(
                                    ad.get(FixedWidth.LONG, off + 8),
                                    ad.get(FixedWidth.LONG, off),
                                    bd.get(FixedWidth.LONG, off + 8),
                                    bd.get(FixedWidth.LONG, off))
                            : decimal(ad, row, at.scale()).compareTo(decimal(bd, row, bt.scale()));
                    l |= (c < 0 ? 1L : 0L) << j;
                    e |= (c == 0 ? 1L : 0L) << j;
                }
                lt[k] = l;
                eq[k] = e;
            }
        };
    }

    /** The order of two 128-bit two's complement integers given as (high, low) words. */
    private static int compare128(long aHigh, long aLow, long bHigh, long bLow) {
        return aHigh != bHigh ? Long.compare(aHigh, bHigh) : Long.compareUnsigned(aLow, bLow);
    }

    private static BigDecimal decimal(MemorySegment d, int row, int scale) {
        long off = (long) row << 4;
        long low = d.get(FixedWidth.LONG, off);
        long high = d.get(FixedWidth.LONG, off + 8);
        BigInteger u = BigInteger.valueOf(high)
                .shiftLeft(64)
                .add(BigInteger.valueOf(low).and(LOW_64));
        return new BigDecimal(u, scale);
    }

    private static final BigInteger LOW_64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
}
