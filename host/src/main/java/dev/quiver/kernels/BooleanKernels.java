package dev.quiver.kernels;

import dev.quiver.types.DataType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/** Kleene AND, OR, NOT and IS [NOT] NULL, eight rows per step on the bitmaps. */
final class BooleanKernels {
    private BooleanKernels() {
    }

    static FieldVector and(KernelInput l, KernelInput r, int rows, BufferAllocator allocator) {
        return binary(l, r, true, rows, allocator);
    }

    static FieldVector or(KernelInput l, KernelInput r, int rows, BufferAllocator allocator) {
        return binary(l, r, false, rows, allocator);
    }

    private static void requireBoolean(KernelInput in, String op) {
        if (!(in.type instanceof DataType.Bool || in.isNullType())) {
            throw new UnsupportedOperationException(op + " of " + in.type + " is not supported (Boolean only)");
        }
    }

    private static FieldVector binary(KernelInput l, KernelInput r, boolean and, int rows, BufferAllocator allocator) {
        requireBoolean(l, and ? "AND" : "OR");
        requireBoolean(r, and ? "AND" : "OR");
        FieldVector out = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            ArrowBuf validity = out.getValidityBuffer();
            ArrowBuf data = out.getDataBuffer();
            int bytes = ResultVector.validityBytes(rows);
            for (int b = 0; b < bytes; b++) {
                int lv = l.validityByte(b);
                int rv = r.validityByte(b);
                // Values masked by validity: garbage behind nulls never decides a result.
                int ld = l.booleanByte(b) & lv;
                int rd = r.booleanByte(b) & rv;
                int valid;
                int value;
                if (and) {
                    // Known when both are known, or either is a known FALSE.
                    valid = (lv & rv) | (lv & ~ld) | (rv & ~rd);
                    value = ld & rd;
                } else {
                    // Known when both are known, or either is a known TRUE.
                    valid = (lv & rv) | ld | rd;
                    value = ld | rd;
                }
                int live = ResultVector.liveMask(b, rows);
                validity.setByte(b, valid & live);
                data.setByte(b, value & valid & live);
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    static FieldVector not(KernelInput v, int rows, BufferAllocator allocator) {
        requireBoolean(v, "NOT");
        FieldVector out = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            ArrowBuf validity = out.getValidityBuffer();
            ArrowBuf data = out.getDataBuffer();
            int bytes = ResultVector.validityBytes(rows);
            for (int b = 0; b < bytes; b++) {
                int valid = v.validityByte(b) & ResultVector.liveMask(b, rows);
                validity.setByte(b, valid);
                data.setByte(b, ~v.booleanByte(b) & valid);
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    static FieldVector isNull(KernelInput v, boolean negated, int rows, BufferAllocator allocator) {
        FieldVector out = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            ArrowBuf validity = out.getValidityBuffer();
            ArrowBuf data = out.getDataBuffer();
            int bytes = ResultVector.validityBytes(rows);
            for (int b = 0; b < bytes; b++) {
                int live = ResultVector.liveMask(b, rows);
                int valid = v.validityByte(b);
                validity.setByte(b, live);
                data.setByte(b, (negated ? valid : ~valid) & live);
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }
}
