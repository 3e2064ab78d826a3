package dev.quiver.kernels;

import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * The running result of an AND (or OR) chain nested in another chain: a Kleene Boolean column
 * of one batch held as validity and value words on the Java heap, so that terms combine into it
 * 64 rows at a time and it is merged into the outer result ({@link #mergeInto}) without an
 * Arrow vector of its own. It starts as the operator's identity (all
 * TRUE for AND, all FALSE for OR); comparisons and IS NULL tests combine straight from their
 * operands ({@link #combineComparison}, {@link #combineIsNull}), anything else from its value.
 * One batch, one thread.
 */
public final class BooleanAccumulator {
    private final boolean and;
    private final int rows;
    /** At least one word, so a chain of scalars keeps its one value even on an empty batch. */
    private final long[] valid;

    private final long[] value;
    private final MemorySegment validSegment;
    private final MemorySegment valueSegment;
    /** Whether some term was an array (else the result is a scalar). */
    private boolean array;
    /** Nothing combined yet: the words hold the identity, and the first comparison is written over them. */
    private boolean fresh = true;

    /** The identity of {@code and ? AND : OR} over {@code rows} rows. */
    public BooleanAccumulator(boolean and, int rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, not " + rows);
        }
        this.and = and;
        this.rows = rows;
        int words = Math.max(1, Bitmaps.words(rows));
        valid = new long[words];
        value = new long[words];
        Arrays.fill(valid, -1L);
        if (and) {
            Arrays.fill(value, -1L);
        }
        validSegment = MemorySegment.ofArray(valid);
        valueSegment = MemorySegment.ofArray(value);
    }

    /**
     * The identity of {@code and ? AND : OR} on the rows {@code care} selects, and already decided
     * on the others (FALSE for AND, TRUE for OR), so that no term reads them: for a chain nested
     * in another whose result matters only on {@code care}. Its value on the other rows is
     * meaningless; the outer chain, which has decided them, ignores it.
     */
    public BooleanAccumulator(boolean and, int rows, Selection care) {
        this(and, rows);
        if (care.rows() != rows) {
            throw new IllegalArgumentException("a selection of " + care.rows() + " rows on a batch of " + rows);
        }
        if (care.isAll()) {
            return;
        }
        for (int w = 0; w < Bitmaps.words(rows); w++) {
            long c = care.word(w);
            // AND: identity TRUE where cared for, FALSE elsewhere; OR: FALSE where cared for, TRUE elsewhere.
            value[w] = and ? c : ~c;
        }
        fresh = false;
        array = true; // the rows differ: never a scalar, even when every term is one
    }

    /** The rows the next term can still change: not known FALSE (AND) or not known TRUE (OR). */
    public Selection undecided() {
        long[] w = new long[Bitmaps.words(rows)];
        for (int i = 0; i < w.length; i++) {
            w[i] = Kleene.undecided(and, valid[i], value[i] & valid[i]);
        }
        return Selection.ofWords(w, rows);
    }

    /** The rows where the result is TRUE (NULL is not). */
    public Selection trueRows() {
        long[] w = new long[Bitmaps.words(rows)];
        for (int i = 0; i < w.length; i++) {
            w[i] = valid[i] & value[i];
        }
        return Selection.ofWords(w, rows);
    }

    /** Combines a Boolean value (array of the batch's rows, or scalar) into the result. */
    public void combine(ColumnarValue v) {
        Objects.requireNonNull(v, "v is null");
        DataType t = v.dataType().valueType();
        if (!(t instanceof DataType.Bool || t instanceof DataType.Null)) {
            // Unreachable from a plan: the planner casts AND/OR operands to Boolean or refuses them.
            throw new UnsupportedOperationException(
                    (and ? "AND" : "OR") + " of " + t + " is not supported (Boolean only)");
        }
        if (v instanceof ColumnarValue.Scalar s) {
            Boolean b = (Boolean) s.value().value();
            long cv = b == null ? 0 : -1L;
            long cd = Boolean.TRUE.equals(b) ? -1L : 0;
            for (int w = 0; w < valid.length; w++) {
                merge(w, cv, cd);
            }
            return;
        }
        array = true;
        Operand a = Operand.of(v, rows);
        MemorySegment data = a.allNull() ? null : a.data();
        for (int w = 0; w < Bitmaps.words(rows); w++) {
            long cv = a.validWord(w);
            merge(w, cv, data == null ? 0 : Bitmaps.word(data, w) & cv);
        }
    }

    /** Combines another chain's result (of the same batch). */
    public void combine(BooleanAccumulator other) {
        if (other.rows != rows) {
            throw new IllegalArgumentException("results of " + other.rows + " and " + rows + " rows do not combine");
        }
        array |= other.array;
        for (int w = 0; w < valid.length; w++) {
            merge(w, other.valid[w], other.value[w] & other.valid[w]);
        }
    }

    private void merge(int w, long cv, long cd) {
        fresh = false;
        long tv = valid[w];
        long td = value[w] & tv;
        long nv = Kleene.valid(and, tv, td, cv, cd);
        valid[w] = nv;
        value[w] = Kleene.value(and, td, cd, nv);
    }

    /** Combines {@code l op r} (a comparison) without building its vector. {@code l}, {@code r} stay borrowed. */
    public void combineComparison(Operator op, ColumnarValue l, ColumnarValue r, BufferAllocator allocator) {
        Objects.requireNonNull(op, "op is null");
        boolean anyArray = l instanceof ColumnarValue.Array || r instanceof ColumnarValue.Array;
        if (anyArray
                && ComparisonKernels.compareInto(
                        op, l, r, validSegment, valueSegment, and, fresh && rows > 0, rows, allocator)) {
            array = true;
            fresh = false;
            return;
        }
        try (ColumnarValue c = Kernels.compare(op, l, r, rows, allocator)) {
            combine(c);
        }
    }

    /**
     * Combines {@code v [NOT] IN list} (literal elements, prepared) without building its vector,
     * looking up only the rows not yet decided. {@code v} stays borrowed.
     */
    public void combineInList(ColumnarValue v, InList list, boolean negated, BufferAllocator allocator) {
        Objects.requireNonNull(list, "list is null");
        if (InListKernels.combineInto(v, list, negated, rows, validSegment, valueSegment, and, allocator)) {
            array = true;
            fresh = false;
            return;
        }
        try (ColumnarValue c = Kernels.inList(v, list, List.of(), negated, rows, allocator)) {
            combine(c);
        }
    }

    /**
     * Combines {@code v [NOT] LIKE compiled} without building its vector; where most rows are
     * decided, only the undecided ones are matched. {@code v} stays borrowed.
     */
    public void combineLike(ColumnarValue v, LikePattern compiled, boolean negated, BufferAllocator allocator) {
        Objects.requireNonNull(compiled, "compiled is null");
        if (LikeKernels.combineInto(v, compiled, negated, rows, validSegment, valueSegment, and, allocator)) {
            array = true;
            fresh = false;
            return;
        }
        try (ColumnarValue c = Kernels.like(v, compiled, negated, rows, allocator)) {
            combine(c);
        }
    }

    /** Combines {@code v IS [NOT] NULL} (any type) reading only {@code v}'s validity. */
    public void combineIsNull(ColumnarValue v, boolean negated) {
        if (v instanceof ColumnarValue.Scalar s) {
            combine(ColumnarValue.scalar(DataType.BOOLEAN, s.isNull() != negated));
            return;
        }
        array = true;
        fresh = false;
        BooleanKernels.isNullInto(v, negated, validSegment, valueSegment, and, rows);
    }

    /**
     * {@code outer AND this} ({@code outerAnd}; OR otherwise) taking ownership of {@code outer}
     * as {@link Kernels#logicConsumingLeft} does: merged into it word by word when it is an owned
     * Boolean array of the batch's rows, so this result never becomes a vector.
     */
    public ColumnarValue mergeInto(ColumnarValue outer, boolean outerAnd, BufferAllocator allocator) {
        FieldVector target = array && rows > 0 ? BooleanKernels.reusable(outer, rows) : null;
        if (target == null) {
            ColumnarValue mine;
            try {
                mine = toValue(allocator);
            } catch (RuntimeException | Error e) {
                outer.close();
                throw e;
            }
            try (mine) {
                return Kernels.logicConsumingLeft(outer, mine, outerAnd, rows, allocator);
            }
        }
        MemorySegment tv = Bitmaps.view(target.getValidityBuffer());
        MemorySegment td = Bitmaps.view(target.getDataBuffer());
        for (int w = 0; w < Bitmaps.words(rows); w++) {
            long a = Bitmaps.word(tv, w);
            long ad = Bitmaps.word(td, w) & a;
            long cv = valid[w];
            long cd = value[w] & cv;
            long nv = Kleene.valid(outerAnd, a, ad, cv, cd) & Bitmaps.liveMask(w, rows);
            Bitmaps.setWord(tv, w, nv, rows);
            Bitmaps.setWord(td, w, Kleene.value(outerAnd, ad, cd, nv), rows);
        }
        return outer;
    }

    /**
     * The result: a new Boolean array of the batch's rows from {@code allocator} (the caller
     * closes it), or a scalar when every term was a scalar.
     */
    public ColumnarValue toValue(BufferAllocator allocator) {
        if (!array) {
            boolean known = (valid[0] & 1) != 0;
            return ColumnarValue.scalar(DataType.BOOLEAN, known ? (value[0] & 1) != 0 : null);
        }
        FieldVector out = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            int words = Bitmaps.words(rows);
            if (words > 0) {
                long[] v = Arrays.copyOf(valid, words);
                long[] d = new long[words];
                for (int w = 0; w < words; w++) {
                    long live = Bitmaps.liveMask(w, rows);
                    v[w] &= live;
                    d[w] = value[w] & v[w];
                }
                Bitmaps.setWords(Bitmaps.view(out.getValidityBuffer()), 0, words, v, rows);
                Bitmaps.setWords(Bitmaps.view(out.getDataBuffer()), 0, words, d, rows);
            }
            return new ColumnarValue.Array(out, true);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }
}
