package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.apache.arrow.vector.FieldVector;

/**
 * One operand of the arithmetic, comparison and Boolean kernels: an array, read through
 * bounds-checked views of its buffers, or a scalar, whose value the kernels read once and never
 * turn into a vector. An operand is a local of one kernel call; it borrows the array.
 */
final class Operand {
    final DataType type;
    /** The array's vector; null for a scalar. */
    final FieldVector vector;
    /** The scalar's value; null for an array. */
    final ScalarValue scalar;
    /** The array's validity bitmap; null when every row is valid (or every row is null). */
    private final MemorySegment validity;

    private final boolean allNull;

    private Operand(DataType type, FieldVector vector, ScalarValue scalar, MemorySegment validity, boolean allNull) {
        this.type = type;
        this.vector = vector;
        this.scalar = scalar;
        this.validity = validity;
        this.allNull = allNull;
    }

    /** The operand for {@code value}, whose first {@code rows} rows a kernel reads. */
    static Operand of(ColumnarValue value, int rows) {
        return switch (value) {
            case ColumnarValue.Scalar s -> {
                DataType t = s.dataType().valueType();
                yield new Operand(t, null, s.value(), null, s.isNull() || t instanceof DataType.Null);
            }
            case ColumnarValue.Array a -> {
                FieldVector v = a.vector();
                if (v.getValueCount() < rows) {
                    throw new IllegalArgumentException(
                            "an input array has " + v.getValueCount() + " rows, fewer than the batch's " + rows);
                }
                DataType t = a.dataType().valueType();
                if (t instanceof DataType.Null) {
                    yield new Operand(t, v, null, null, true);
                }
                // A vector without nulls contributes all-ones validity words without reading its bitmap.
                MemorySegment validity = v.getNullCount() == 0 ? null : Bitmaps.view(v.getValidityBuffer());
                yield new Operand(t, v, null, validity, false);
            }
        };
    }

    boolean isScalar() {
        return vector == null;
    }

    /** Every row is null: a NULL scalar or a Null-typed array. */
    boolean allNull() {
        return allNull;
    }

    /** Some row may be null. */
    boolean hasNulls() {
        return allNull || validity != null;
    }

    /** Validity word {@code w} (bits past the batch's rows are arbitrary). */
    long validWord(int w) {
        return allNull ? 0 : validity == null ? -1L : Bitmaps.word(validity, w);
    }

    /** Validity words {@code first .. first+count-1} into {@code dst} (bits past the batch's rows are arbitrary). */
    void validWords(int first, int count, long[] dst) {
        if (allNull || validity == null) {
            Arrays.fill(dst, 0, count, allNull ? 0 : -1L);
        } else {
            Bitmaps.words(validity, first, count, dst);
        }
    }

    /** Writes the AND of {@code a}'s and {@code b}'s validity into the bitmap {@code out} of {@code rows} rows, 16 words per step. */
    static void andValidity(Operand a, Operand b, MemorySegment out, int rows) {
        int words = Bitmaps.words(rows);
        long[] x = new long[Math.min(16, words)];
        long[] y = new long[x.length];
        for (int first = 0; first < words; first += x.length) {
            int count = Math.min(x.length, words - first);
            a.validWords(first, count, x);
            b.validWords(first, count, y);
            for (int k = 0; k < count; k++) {
                x[k] &= y[k];
            }
            if (first + count == words) {
                x[count - 1] &= Bitmaps.liveMask(words - 1, rows);
            }
            Bitmaps.setWords(out, first, count, x, rows);
        }
    }

    /** A view of the array's data buffer. */
    MemorySegment data() {
        return Bitmaps.view(vector.getDataBuffer());
    }

    /** A view of the array's offsets buffer (strings and binaries). */
    MemorySegment offsets() {
        return Bitmaps.view(vector.getOffsetBuffer());
    }
}
