package dev.quiver.kernels;

import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;

/**
 * An Int64 argument of a string kernel: a column of the batch's length, or a one-row vector
 * that every row reads (a literal, passed by {@code ArrayFunctions.Hint.ACCEPTS_SINGULAR}),
 * whose value is then read once. Borrowed: it aliases the vector and closes nothing.
 */
final class LongArgument {
    private final boolean constant;
    private final long value;
    private final boolean constantValid;
    private final ArrowBuf data;
    private final ArrowBuf validity;
    private final int rows;

    private LongArgument(BigIntVector vector, int batchRows) {
        int n = vector.getValueCount();
        this.constant = n == 1 && batchRows != 1;
        if (!constant && n != batchRows) {
            throw new IllegalArgumentException("an Int64 argument of " + n + " rows for a batch of " + batchRows);
        }
        this.rows = n;
        this.data = vector.getDataBuffer();
        this.validity = vector.getNullCount() == 0 ? null : vector.getValidityBuffer();
        this.constantValid = constant && !vector.isNull(0);
        this.value = constantValid ? vector.get(0) : 0;
    }

    /** {@code vector} (an Int64 column or a one-row constant) for a batch of {@code batchRows} rows. */
    static LongArgument of(FieldVector vector, int batchRows) {
        Objects.requireNonNull(vector, "vector is null");
        if (!(vector instanceof BigIntVector v)) {
            throw new IllegalArgumentException("argument '" + vector.getName() + "' of type "
                    + vector.getField().getType() + " is not Int64");
        }
        return new LongArgument(v, batchRows);
    }

    /** Whether every row reads the same value. */
    boolean constant() {
        return constant;
    }

    /** The value of a constant argument (0 when it is null). */
    long constantValue() {
        return value;
    }

    /** The value in row {@code row} (meaningless in a null row). */
    long get(int row) {
        return constant ? value : data.getLong((long) row << 3);
    }

    /** Validity of rows {@code 64w .. 64w+63} as bits (bits past the last row are 0). */
    long validWord(int w, int batchRows) {
        long live = (long) batchRows - ((long) w << 6) >= 64 ? -1L : (1L << (batchRows - (w << 6))) - 1;
        if (constant) {
            return constantValid ? live : 0;
        }
        if (validity == null) {
            return live;
        }
        long base = (long) w << 3;
        long bytes = Math.min(8, ((long) rows + 7) / 8 - base);
        long bits = 0;
        for (int k = 0; k < bytes; k++) {
            bits |= (validity.getByte(base + k) & 0xFFL) << (k << 3);
        }
        return bits & live;
    }
}
