package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/** Allocating a kernel's result vector and writing its bitmaps and fixed-width values directly. */
final class ResultVector {
    /** Writes a long to row {@code row} of a fixed-width vector, truncating to its width. */
    @FunctionalInterface
    interface LongWriter {
        void set(int row, long value);
    }

    /** Writes a double to row {@code row} of a float vector (rounded to Float32 when it is one). */
    @FunctionalInterface
    interface DoubleWriter {
        void set(int row, double value);
    }

    private ResultVector() {}

    /** A zeroed (all-null) vector named "result" of {@code type} with room for {@code rows} rows and value count {@code rows}. */
    static FieldVector allocate(DataType type, int rows, BufferAllocator allocator) {
        FieldVector v = Values.allocate(type, "result", rows, allocator);
        try {
            v.setValueCount(rows);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    static int validityBytes(int rows) {
        return (rows + 7) >>> 3;
    }

    /** The mask of the live bits of byte {@code b} for {@code rows} rows. */
    static int liveMask(int b, int rows) {
        int live = rows - (b << 3);
        return live >= 8 ? 0xFF : (1 << live) - 1;
    }

    /** Sets {@code out}'s validity to the AND of the inputs' validity (all valid when there are none). */
    static void intersectValidity(FieldVector out, int rows, KernelInput... inputs) {
        ArrowBuf validity = out.getValidityBuffer();
        int bytes = validityBytes(rows);
        for (int b = 0; b < bytes; b++) {
            int v = 0xFF;
            for (KernelInput in : inputs) {
                v &= in.validityByte(b);
            }
            validity.setByte(b, v & liveMask(b, rows));
        }
    }

    static boolean isValid(ArrowBuf validity, int row) {
        return ((validity.getByte(row >>> 3) >>> (row & 7)) & 1) != 0;
    }

    static void setBit(ArrowBuf bits, int row, boolean value) {
        long index = row >>> 3;
        int old = bits.getByte(index);
        int mask = 1 << (row & 7);
        bits.setByte(index, value ? old | mask : old & ~mask);
    }

    static LongWriter longs(FieldVector out, DataType type) {
        ArrowBuf d = out.getDataBuffer();
        return switch (type) {
            case DataType.Bool _ -> (r, v) -> setBit(d, r, v != 0);
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> (r, v) -> d.setByte(r, (byte) v);
                    case 16 -> (r, v) -> d.setShort((long) r << 1, (short) v);
                    case 32 -> (r, v) -> d.setInt((long) r << 2, (int) v);
                    default -> (r, v) -> d.setLong((long) r << 3, v);
                };
            case DataType.Date32 _ -> (r, v) -> d.setInt((long) r << 2, (int) v);
            case DataType.Timestamp _ -> (r, v) -> d.setLong((long) r << 3, v);
            // Unreachable from a plan: kernels ask for writers of the types they were dispatched on.
            default -> throw new UnsupportedOperationException("no integer writer for " + type);
        };
    }

    static DoubleWriter doubles(FieldVector out, DataType type) {
        ArrowBuf d = out.getDataBuffer();
        if (type instanceof DataType.FloatingPoint f) {
            return f.bitWidth() == 32
                    ? (r, v) -> d.setFloat((long) r << 2, (float) v)
                    : (r, v) -> d.setDouble((long) r << 3, v);
        }
        // Unreachable from a plan: only float results ask for a float writer.
        throw new UnsupportedOperationException("no float writer for " + type);
    }
}
