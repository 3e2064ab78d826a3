package dev.quiver.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The indices of a dictionary-encoded column, read 64 rows at a time as the entries of a table
 * with one entry per dictionary value and one more, last, for a row whose index is null. Any
 * Arrow integer type (Int8 to Int64, signed or unsigned); a null row's index is never looked at
 * (writers leave garbage there). One loop per index width, chosen once per 64 rows.
 */
final class DictionaryIndices {
    private static final int I8 = 0, U8 = 1, I16 = 2, U16 = 3, I32 = 4, I64 = 5;

    private final String name;
    private final int size;
    private final int rows;
    private final int kind;
    private final MemorySegment data;
    /** The validity bitmap; null when the vector has none (no nulls). */
    private final MemorySegment validity;

    /** The indices of {@code v} into a dictionary of {@code size} values. */
    DictionaryIndices(FieldVector v, int size) {
        if (!readable(v)) {
            throw new IllegalArgumentException("not dictionary indices: " + v.getField());
        }
        ArrowType.Int t = (ArrowType.Int) v.getField().getType();
        this.name = v.getName();
        this.size = size;
        this.rows = v.getValueCount();
        // Unsigned 32- and 64-bit indices read as signed: every index at or past 2^31 is out of
        // range anyway (a dictionary holds fewer values), and reads as a negative int below.
        this.kind = switch (t.getBitWidth()) {
            case 8 -> t.getIsSigned() ? I8 : U8;
            case 16 -> t.getIsSigned() ? I16 : U16;
            case 32 -> I32;
            default -> I64;
        };
        this.data = PackedBits.view(v.getDataBuffer());
        ArrowBuf valid = v.getValidityBuffer();
        this.validity = valid == null || valid.capacity() == 0 ? null : PackedBits.view(valid);
    }

    /** Whether {@code v} is a vector of indices this class reads: an Arrow integer vector. */
    static boolean readable(FieldVector v) {
        return v instanceof BaseIntVector
                && v instanceof BaseFixedWidthVector
                && v.getField().getType() instanceof ArrowType.Int;
    }

    int rows() {
        return rows;
    }

    /**
     * The entries of rows {@code base .. base + n - 1} (n ≤ 64) into {@code out}: the row's
     * index, or {@code size} where it is null.
     *
     * @throws IndexOutOfBoundsException for a valid index outside {@code 0 .. size - 1}
     */
    void entries(int base, int n, int[] out) {
        read(base, n, out);
        long present = validity == null ? -1L : validityWord(base, n);
        boolean bad = false;
        for (int b = 0; b < n; b++) {
            int i = out[b];
            boolean isValid = ((present >>> b) & 1) != 0;
            boolean inRange = Integer.compareUnsigned(i, size) < 0;
            bad |= isValid & !inRange;
            out[b] = isValid & inRange ? i : size;
        }
        if (bad) {
            throw outOfRange(base, n, present);
        }
    }

    private IndexOutOfBoundsException outOfRange(int base, int n, long present) {
        int[] raw = new int[64];
        read(base, n, raw);
        for (int b = 0; b < n; b++) {
            if (((present >>> b) & 1) != 0 && Integer.compareUnsigned(raw[b], size) >= 0) {
                return new IndexOutOfBoundsException("dictionary index at row " + (base + b) + " of '" + name
                        + "' is outside its dictionary of " + size + " values");
            }
        }
        return new IndexOutOfBoundsException("a dictionary index of '" + name + "' is outside its dictionary");
    }

    /** Rows {@code base .. base + n - 1} as ints (an index that does not fit an int reads as -1). */
    private void read(int base, int n, int[] out) {
        switch (kind) {
            case I8 -> {
                for (int b = 0; b < n; b++) {
                    out[b] = data.get(ValueLayout.JAVA_BYTE, base + b);
                }
            }
            case U8 -> {
                for (int b = 0; b < n; b++) {
                    out[b] = data.get(ValueLayout.JAVA_BYTE, base + b) & 0xFF;
                }
            }
            case I16 -> {
                for (int b = 0; b < n; b++) {
                    out[b] = data.get(ValueLayout.JAVA_SHORT_UNALIGNED, (long) (base + b) << 1);
                }
            }
            case U16 -> {
                for (int b = 0; b < n; b++) {
                    out[b] = data.get(ValueLayout.JAVA_SHORT_UNALIGNED, (long) (base + b) << 1) & 0xFFFF;
                }
            }
            case I32 -> {
                for (int b = 0; b < n; b++) {
                    out[b] = data.get(ValueLayout.JAVA_INT_UNALIGNED, (long) (base + b) << 2);
                }
            }
            default -> {
                for (int b = 0; b < n; b++) {
                    long x = data.get(ValueLayout.JAVA_LONG_UNALIGNED, (long) (base + b) << 3);
                    out[b] = (x >>> 31) == 0 ? (int) x : -1;
                }
            }
        }
    }

    private long validityWord(int base, int n) {
        long at = base >>> 3;
        if (at + 8 <= validity.byteSize()) {
            return validity.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
        }
        long w = 0;
        int bytes = (n + 7) >>> 3;
        for (int k = 0; k < bytes; k++) {
            w |= (validity.get(ValueLayout.JAVA_BYTE, at + k) & 0xFFL) << (k << 3);
        }
        return w;
    }
}
