package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Kleene AND, OR, NOT and IS [NOT] NULL, 64 rows per step on the value and validity words.
 * Values are masked by validity before they decide anything, so garbage behind nulls never
 * shows. A scalar operand is a constant word: AND with FALSE is all FALSE, AND with TRUE is the
 * other side, AND with NULL is FALSE where the other side is FALSE and NULL elsewhere (OR
 * likewise); the other side's values are not read when the scalar decides alone.
 */
final class BooleanKernels {
    private BooleanKernels() {}

    static ColumnarValue and(ColumnarValue l, ColumnarValue r, int rows, BufferAllocator allocator) {
        return binary(l, r, true, rows, allocator, null);
    }

    static ColumnarValue or(ColumnarValue l, ColumnarValue r, int rows, BufferAllocator allocator) {
        return binary(l, r, false, rows, allocator, null);
    }

    /**
     * The vector of {@code v} when it can take a kernel's result in place: an owned, Boolean
     * array of exactly {@code rows} rows. Reading word {@code w} of it before writing word
     * {@code w} is all the word-wise kernels do, so writing over it is safe.
     */
    static FieldVector reusable(ColumnarValue v, int rows) {
        return v instanceof ColumnarValue.Array a
                        && a.owned()
                        && a.vector() instanceof BitVector b
                        && b.getValueCount() == rows
                        && b.getValidityBuffer() != null
                        && b.getDataBuffer() != null
                ? b
                : null;
    }

    /** {@code l AND r} (or OR) that consumes {@code l}: written over it when {@link #reusable}, else {@code l} is closed. */
    static ColumnarValue consumingLeft(
            ColumnarValue l, ColumnarValue r, boolean and, int rows, BufferAllocator allocator) {
        FieldVector target = reusable(l, rows);
        try {
            if (target == null) {
                try (l) {
                    return binary(l, r, and, rows, allocator, null);
                }
            }
            return binary(l, r, and, rows, allocator, target);
        } catch (RuntimeException | Error e) {
            if (target != null) {
                l.close();
            }
            throw e;
        }
    }

    /**
     * {@code target = target AND (v IS [NOT] NULL)} (OR when {@code and} is false), written over
     * {@code target} (a Boolean vector of {@code rows} rows): reads only {@code v}'s validity.
     */
    static void isNullInto(ColumnarValue v, boolean negated, FieldVector target, boolean and, int rows) {
        isNullInto(
                v, negated, Bitmaps.view(target.getValidityBuffer()), Bitmaps.view(target.getDataBuffer()), and, rows);
    }

    /** {@link #isNullInto(ColumnarValue, boolean, FieldVector, boolean, int)} into bitmaps given as segments. */
    static void isNullInto(
            ColumnarValue v, boolean negated, MemorySegment validity, MemorySegment data, boolean and, int rows) {
        Operand a = Operand.of(v, rows);
        for (int w = 0; w < Bitmaps.words(rows); w++) {
            long live = Bitmaps.liveMask(w, rows);
            long valid = a.validWord(w);
            long cd = negated ? valid : ~valid; // IS NULL is never NULL
            long tv = Bitmaps.word(validity, w);
            long td = Bitmaps.word(data, w) & tv;
            long nv = and ? tv | ~cd : tv | cd;
            long nd = (and ? td & cd : td | cd) & nv;
            Bitmaps.setWord(validity, w, nv & live, rows);
            Bitmaps.setWord(data, w, nd & live, rows);
        }
    }

    /** NOT that consumes {@code v}: flipped in place when {@link #reusable}, else {@code v} is closed. */
    static ColumnarValue notConsuming(ColumnarValue v, int rows, BufferAllocator allocator) {
        FieldVector target = reusable(v, rows);
        if (target == null) {
            try (v) {
                return not(v, rows, allocator);
            }
        }
        MemorySegment validity = Bitmaps.view(target.getValidityBuffer());
        MemorySegment data = Bitmaps.view(target.getDataBuffer());
        for (int w = 0; w < Bitmaps.words(rows); w++) {
            long valid = Bitmaps.word(validity, w) & Bitmaps.liveMask(w, rows);
            Bitmaps.setWord(data, w, ~Bitmaps.word(data, w) & valid, rows);
        }
        return v;
    }

    private static void check(ColumnarValue v, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(v, "input is null");
        Objects.requireNonNull(allocator, "allocator is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, not " + rows);
        }
    }

    private static void requireBoolean(ColumnarValue v, String op) {
        DataType t = v.dataType().valueType();
        if (!(t instanceof DataType.Bool || t instanceof DataType.Null)) {
            // Unreachable from a plan: the planner casts NOT/AND/OR operands to Boolean or refuses them.
            throw new UnsupportedOperationException(op + " of " + t + " is not supported (Boolean only)");
        }
    }

    /** A Boolean scalar's value (null for NULL). */
    private static Boolean value(ColumnarValue.Scalar s) {
        return (Boolean) s.value().value();
    }

    private static ColumnarValue binary(
            ColumnarValue l, ColumnarValue r, boolean and, int rows, BufferAllocator allocator, FieldVector target) {
        check(l, rows, allocator);
        check(r, rows, allocator);
        requireBoolean(l, and ? "AND" : "OR");
        requireBoolean(r, and ? "AND" : "OR");
        if (l instanceof ColumnarValue.Scalar ls && r instanceof ColumnarValue.Scalar rs) {
            Boolean x = value(ls);
            Boolean y = value(rs);
            Boolean decisive = and ? Boolean.FALSE : Boolean.TRUE;
            Boolean v = decisive.equals(x) || decisive.equals(y) ? decisive : x == null || y == null ? null : !decisive;
            return ColumnarValue.scalar(DataType.BOOLEAN, v);
        }
        Operand a = Operand.of(l, rows);
        Operand b = Operand.of(r, rows);
        boolean bConstant = b.isScalar() || b.allNull();
        if (a.isScalar() || (a.allNull() && !bConstant)) {
            // Both are commutative: keep the constant (a scalar, else an all-null array) on the right.
            Operand t = a;
            a = b;
            b = t;
        }
        FieldVector out = target != null ? target : ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            MemorySegment validity = Bitmaps.view(out.getValidityBuffer());
            MemorySegment data = Bitmaps.view(out.getDataBuffer());
            MemorySegment ad = a.allNull() ? null : a.data();
            int words = Bitmaps.words(rows);
            if (b.isScalar() || b.allNull()) {
                Boolean s = b.allNull() ? null : (Boolean) b.scalar.value();
                boolean decides = s != null && s == !and; // AND FALSE, OR TRUE
                for (int w = 0; w < words; w++) {
                    long live = Bitmaps.liveMask(w, rows);
                    long valid;
                    long value;
                    if (decides) {
                        valid = live;
                        value = and ? 0 : live;
                    } else {
                        long va = a.validWord(w);
                        long da = ad == null ? 0 : Bitmaps.word(ad, w) & va;
                        if (s != null) {
                            valid = va; // AND TRUE, OR FALSE: the other side as it is
                            value = da;
                        } else {
                            // With NULL only a known FALSE (AND) or a known TRUE (OR) is known.
                            valid = and ? va & ~da : da;
                            value = and ? 0 : da;
                        }
                    }
                    Bitmaps.setWord(validity, w, valid & live, rows);
                    Bitmaps.setWord(data, w, value & valid & live, rows);
                }
            } else {
                MemorySegment bd = b.data();
                for (int w = 0; w < words; w++) {
                    long va = a.validWord(w);
                    long vb = b.validWord(w);
                    long da = Bitmaps.word(ad, w) & va;
                    long db = Bitmaps.word(bd, w) & vb;
                    long valid;
                    long value;
                    if (and) {
                        // Known when both are known, or either is a known FALSE.
                        valid = (va & vb) | (va & ~da) | (vb & ~db);
                        value = da & db;
                    } else {
                        // Known when both are known, or either is a known TRUE.
                        valid = (va & vb) | da | db;
                        value = da | db;
                    }
                    long live = Bitmaps.liveMask(w, rows);
                    Bitmaps.setWord(validity, w, valid & live, rows);
                    Bitmaps.setWord(data, w, value & valid & live, rows);
                }
            }
            return target != null ? l : new ColumnarValue.Array(out, true);
        } catch (RuntimeException | Error e) {
            if (target == null) {
                out.close();
            }
            throw e;
        }
    }

    static ColumnarValue not(ColumnarValue v, int rows, BufferAllocator allocator) {
        check(v, rows, allocator);
        requireBoolean(v, "NOT");
        if (v instanceof ColumnarValue.Scalar s) {
            Boolean x = value(s);
            return ColumnarValue.scalar(DataType.BOOLEAN, x == null ? null : !x);
        }
        Operand a = Operand.of(v, rows);
        FieldVector out = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            if (a.allNull()) {
                return new ColumnarValue.Array(out, true);
            }
            MemorySegment validity = Bitmaps.view(out.getValidityBuffer());
            MemorySegment data = Bitmaps.view(out.getDataBuffer());
            MemorySegment ad = a.data();
            for (int w = 0; w < Bitmaps.words(rows); w++) {
                long valid = a.validWord(w) & Bitmaps.liveMask(w, rows);
                Bitmaps.setWord(validity, w, valid, rows);
                Bitmaps.setWord(data, w, ~Bitmaps.word(ad, w) & valid, rows);
            }
            return new ColumnarValue.Array(out, true);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    static ColumnarValue isNull(ColumnarValue v, boolean negated, int rows, BufferAllocator allocator) {
        check(v, rows, allocator);
        if (v instanceof ColumnarValue.Scalar s) {
            return ColumnarValue.scalar(DataType.BOOLEAN, s.isNull() != negated);
        }
        Operand a = Operand.of(v, rows);
        FieldVector out = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            MemorySegment validity = Bitmaps.view(out.getValidityBuffer());
            MemorySegment data = Bitmaps.view(out.getDataBuffer());
            boolean constant = !a.hasNulls() || a.allNull();
            for (int w = 0; w < Bitmaps.words(rows); w++) {
                long live = Bitmaps.liveMask(w, rows);
                // Only the validity bitmap is read; a vector without nulls gives constant words.
                long valid = constant ? (a.allNull() ? 0 : -1L) : a.validWord(w);
                Bitmaps.setWord(validity, w, live, rows);
                Bitmaps.setWord(data, w, (negated ? valid : ~valid) & live, rows);
            }
            return new ColumnarValue.Array(out, true);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }
}
