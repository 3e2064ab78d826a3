package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;

/**
 * A set of rows of one batch, as a packed bitmap (bit {@code i} of word {@code i >>> 6} is row
 * {@code i}), with its size counted once. Immutable; the operations return new selections.
 * Selections drive the lazy evaluation of AND/OR, CASE and filters: the words are combined
 * 64 rows at a time and counted with {@link Long#bitCount}.
 *
 * <pre>{@code
 * Selection keep = Selection.ofTrue(predicate, rows);   // NULL counts as not selected
 * if (keep.isNone()) { ... } else if (keep.isAll()) { ... }
 * }</pre>
 */
public final class Selection {
    private final long[] words;
    private final int rows;
    private final int count;
    /** {@link #indices()}, kept once a gather asked for it: every column of a batch is gathered by the same rows. */
    private volatile int[] positions;

    private Selection(long[] words, int rows) {
        this.words = words;
        this.rows = rows;
        int tail = rows & 63;
        if (tail != 0 && words.length > 0) {
            words[words.length - 1] &= (1L << tail) - 1;
        }
        int c = 0;
        for (long w : words) {
            c += Long.bitCount(w);
        }
        this.count = c;
    }

    private static int wordsFor(int rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, not " + rows);
        }
        return (rows + 63) >>> 6;
    }

    /** Every row of {@code rows}. */
    public static Selection all(int rows) {
        long[] w = new long[wordsFor(rows)];
        Arrays.fill(w, -1L);
        return new Selection(w, rows);
    }

    /** No row of {@code rows}. */
    public static Selection none(int rows) {
        return new Selection(new long[wordsFor(rows)], rows);
    }

    /** A selection from its words (copied); bits at or beyond {@code rows} are ignored. */
    public static Selection ofWords(long[] words, int rows) {
        Objects.requireNonNull(words, "words is null");
        int n = wordsFor(rows);
        if (words.length < n) {
            throw new IllegalArgumentException(words.length + " words cannot hold " + rows + " rows");
        }
        return new Selection(Arrays.copyOf(words, n), rows);
    }

    /** The given rows (any order, duplicates allowed). */
    public static Selection ofRows(int rows, int... selected) {
        long[] w = new long[wordsFor(rows)];
        for (int r : selected) {
            Objects.checkIndex(r, rows);
            w[r >>> 6] |= 1L << r;
        }
        return new Selection(w, rows);
    }

    /** The rows where a Boolean value is TRUE (NULL is not selected). */
    public static Selection ofTrue(ColumnarValue bool, int rows) {
        return ofBoolean(bool, rows, Shape.TRUE);
    }

    /** The rows where a Boolean value is TRUE or NULL (not known FALSE). */
    public static Selection ofNotFalse(ColumnarValue bool, int rows) {
        return ofBoolean(bool, rows, Shape.NOT_FALSE);
    }

    /** The rows where a Boolean value is FALSE or NULL (not known TRUE). */
    public static Selection ofNotTrue(ColumnarValue bool, int rows) {
        return ofBoolean(bool, rows, Shape.NOT_TRUE);
    }

    /** The rows where a value of any type is NULL. */
    public static Selection ofNull(ColumnarValue value, int rows) {
        return switch (Objects.requireNonNull(value, "value is null")) {
            case ColumnarValue.Scalar s -> s.isNull() ? all(rows) : none(rows);
            case ColumnarValue.Array a -> {
                if (a.vector().getValueCount() < rows) {
                    throw new IllegalArgumentException(
                            "an array of " + a.vector().getValueCount() + " rows cannot select among " + rows);
                }
                long[] w = new long[wordsFor(rows)];
                readValidity(a.vector(), w, rows);
                for (int i = 0; i < w.length; i++) {
                    w[i] = ~w[i];
                }
                yield new Selection(w, rows);
            }
        };
    }

    private enum Shape {
        TRUE,
        NOT_FALSE,
        NOT_TRUE
    }

    private static Selection ofBoolean(ColumnarValue bool, int rows, Shape shape) {
        Objects.requireNonNull(bool, "bool is null");
        DataType t = bool.dataType();
        if (!(t instanceof DataType.Bool || t instanceof DataType.Null)) {
            throw new IllegalArgumentException("a selection needs a Boolean value, not " + t);
        }
        if (bool instanceof ColumnarValue.Scalar s) {
            Object v = s.value().value();
            boolean selected = switch (shape) {
                case TRUE -> Boolean.TRUE.equals(v);
                case NOT_FALSE -> !Boolean.FALSE.equals(v);
                case NOT_TRUE -> !Boolean.TRUE.equals(v);
            };
            return selected ? all(rows) : none(rows);
        }
        FieldVector v = ((ColumnarValue.Array) bool).vector();
        if (v.getValueCount() < rows) {
            throw new IllegalArgumentException(
                    "a Boolean array of " + v.getValueCount() + " rows cannot select among " + rows);
        }
        long[] valid = new long[wordsFor(rows)];
        readValidity(v, valid, rows);
        // Values behind nulls are garbage; every shape below masks them with the validity.
        long[] value = t instanceof DataType.Bool ? PackedBits.read(v.getDataBuffer(), rows) : new long[valid.length];
        for (int i = 0; i < valid.length; i++) {
            valid[i] = switch (shape) {
                case TRUE -> valid[i] & value[i];
                case NOT_FALSE -> ~(valid[i] & ~value[i]);
                case NOT_TRUE -> ~(valid[i] & value[i]);
            };
        }
        return new Selection(valid, rows);
    }

    /**
     * The validity bitmap of {@code v}'s first {@code rows} rows into {@code out} (all valid when
     * the vector has no bitmap: Arrow omits it when there are no nulls).
     */
    static void readValidity(FieldVector v, long[] out, int rows) {
        long[] valid = PackedBits.validity(v, rows);
        if (valid == null) {
            Arrays.fill(out, -1L);
        } else {
            System.arraycopy(valid, 0, out, 0, valid.length);
        }
    }

    /** These rows as a bitmap of {@code rows} bits ({@code ceil(rows / 8)} bytes) in {@code bits}. */
    void writeBits(ArrowBuf bits) {
        PackedBits.write(words, PackedBits.view(bits), rows);
    }

    public int rows() {
        return rows;
    }

    /** How many rows are selected. */
    public int count() {
        return count;
    }

    public boolean isAll() {
        return count == rows;
    }

    public boolean isNone() {
        return count == 0;
    }

    public boolean get(int row) {
        Objects.checkIndex(row, rows);
        return (words[row >>> 6] & (1L << row)) != 0;
    }

    /** Number of 64-row words. */
    public int wordCount() {
        return words.length;
    }

    /** Word {@code i}: rows {@code 64i .. 64i+63}; bits beyond {@link #rows()} are zero. */
    public long word(int i) {
        return words[i];
    }

    /** The first selected row at or after {@code from} (>= 0), or -1. */
    public int nextSetBit(int from) {
        if (from < 0) {
            throw new IndexOutOfBoundsException("from must be >= 0, not " + from);
        }
        if (from >= rows) {
            return -1;
        }
        int wi = from >>> 6;
        long w = words[wi] & (-1L << from);
        while (true) {
            if (w != 0) {
                return (wi << 6) + Long.numberOfTrailingZeros(w);
            }
            if (++wi == words.length) {
                return -1;
            }
            w = words[wi];
        }
    }

    /** The last selected row, or -1 when none is. */
    public int lastSetBit() {
        for (int wi = words.length - 1; wi >= 0; wi--) {
            if (words[wi] != 0) {
                return (wi << 6) + 63 - Long.numberOfLeadingZeros(words[wi]);
            }
        }
        return -1;
    }

    /**
     * The first selected row when the selected rows are consecutive (rows {@code start} to
     * {@code start + count() - 1}, all selected), else -1; -1 when none is selected. Consecutive
     * rows can be sliced rather than gathered.
     */
    public int runStart() {
        if (count == 0) {
            return -1;
        }
        int start = nextSetBit(0);
        return lastSetBit() - start + 1 == count ? start : -1;
    }

    /**
     * The first {@code n} selected rows, in row order (this selection itself when it selects
     * {@code n} rows or fewer): what a {@code LIMIT n} keeps of it.
     *
     * @throws IllegalArgumentException when {@code n < 0}
     */
    public Selection first(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0, not " + n);
        }
        if (n >= count) {
            return this;
        }
        long[] w = new long[words.length];
        int left = n;
        for (int wi = 0; left > 0; wi++) {
            long word = words[wi];
            int c = Long.bitCount(word);
            if (c <= left) {
                w[wi] = word;
                left -= c;
            } else {
                long kept = 0;
                for (; left > 0; left--) {
                    long low = word & -word;
                    kept |= low;
                    word ^= low;
                }
                w[wi] = kept;
            }
        }
        return new Selection(w, rows);
    }

    /** The selected rows in ascending order, computed once and shared: callers must not write to it. */
    int[] positions() {
        int[] p = positions;
        if (p == null) {
            p = indices();
            positions = p;
        }
        return p;
    }

    /** The selected rows in ascending order. */
    public int[] indices() {
        int[] out = new int[count];
        int k = 0;
        for (int wi = 0; wi < words.length; wi++) {
            long w = words[wi];
            while (w != 0) {
                out[k++] = (wi << 6) + Long.numberOfTrailingZeros(w);
                w &= w - 1;
            }
        }
        return out;
    }

    /**
     * The rows of this selection whose rank is selected by {@code inner}: {@code inner} selects
     * among this selection's {@link #count()} rows (its row k is this selection's k-th row).
     */
    public Selection within(Selection inner) {
        Objects.requireNonNull(inner, "inner is null");
        if (inner.rows != count) {
            throw new IllegalArgumentException("a selection of " + inner.rows + " rows cannot select among " + count);
        }
        if (inner.isAll()) {
            return this;
        }
        long[] w = new long[words.length];
        int k = 0;
        for (int wi = 0; wi < words.length; wi++) {
            long word = words[wi];
            long out = 0;
            while (word != 0) {
                long low = word & -word;
                if ((inner.words[k >>> 6] & (1L << k)) != 0) {
                    out |= low;
                }
                k++;
                word ^= low;
            }
            w[wi] = out;
        }
        return new Selection(w, rows);
    }

    public Selection and(Selection other) {
        long[] w = sameRows(other);
        for (int i = 0; i < w.length; i++) {
            w[i] = words[i] & other.words[i];
        }
        return new Selection(w, rows);
    }

    public Selection or(Selection other) {
        long[] w = sameRows(other);
        for (int i = 0; i < w.length; i++) {
            w[i] = words[i] | other.words[i];
        }
        return new Selection(w, rows);
    }

    /** These rows without {@code other}'s. */
    public Selection andNot(Selection other) {
        long[] w = sameRows(other);
        for (int i = 0; i < w.length; i++) {
            w[i] = words[i] & ~other.words[i];
        }
        return new Selection(w, rows);
    }

    /** The rows not selected here. */
    public Selection not() {
        long[] w = new long[words.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = ~words[i];
        }
        return new Selection(w, rows);
    }

    private long[] sameRows(Selection other) {
        Objects.requireNonNull(other, "other is null");
        if (other.rows != rows) {
            throw new IllegalArgumentException("selections of " + rows + " and " + other.rows + " rows do not combine");
        }
        return new long[words.length];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Selection s && s.rows == rows && Arrays.equals(s.words, words);
    }

    @Override
    public int hashCode() {
        return 31 * rows + Arrays.hashCode(words);
    }

    @Override
    public String toString() {
        return "Selection(" + count + " of " + rows + " rows)";
    }
}
