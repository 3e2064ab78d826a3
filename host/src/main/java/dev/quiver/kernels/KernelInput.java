package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.util.function.IntFunction;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;

/**
 * One operand of a kernel as the loops see it: an array's buffers, or a scalar held in a
 * one-row vector that every row reads ({@link #constant}). Readers are built once per call,
 * so the per-row loops run without type switches or boxing.
 *
 * <p>Closing releases the one-row vector of a scalar; an array operand is borrowed and left open.
 */
final class KernelInput implements AutoCloseable {
    /** Reads row {@code row} of an integer-like column (Bool, Int*, UInt*, Date32, Timestamp) as a long. */
    @FunctionalInterface
    interface LongReader {
        long get(int row);
    }

    /** Reads row {@code row} of a float column as a double. */
    @FunctionalInterface
    interface DoubleReader {
        double get(int row);
    }

    final DataType type;
    final FieldVector vector;
    final boolean constant;
    private final boolean ownsVector;

    private KernelInput(DataType type, FieldVector vector, boolean constant, boolean ownsVector) {
        this.type = type;
        this.vector = vector;
        this.constant = constant;
        this.ownsVector = ownsVector;
    }

    /** The operand for {@code value}; a scalar becomes a one-row vector from {@code allocator}. */
    static KernelInput of(ColumnarValue value, int rows, BufferAllocator allocator) {
        return switch (value) {
            case ColumnarValue.Array a -> {
                if (a.vector().getValueCount() < rows) {
                    throw new IllegalArgumentException("an input array has "
                            + a.vector().getValueCount() + " rows, fewer than the batch's " + rows);
                }
                yield new KernelInput(a.dataType().valueType(), a.vector(), false, false);
            }
            case ColumnarValue.Scalar s ->
                new KernelInput(
                        s.dataType().valueType(), Values.broadcast(s.value(), "scalar", 1, allocator), true, true);
        };
    }

    boolean isNullType() {
        return type instanceof DataType.Null;
    }

    /** Byte {@code b} of the validity bitmap (bit set = valid): rows {@code 8b .. 8b+7}. */
    int validityByte(int b) {
        if (isNullType()) {
            return 0;
        }
        if (constant) {
            return vector.isNull(0) ? 0 : 0xFF;
        }
        ArrowBuf validity = vector.getValidityBuffer();
        // A vector imported without nulls may have no bitmap at all.
        if (validity == null || validity.capacity() <= b) {
            return vector.getNullCount() == 0 ? 0xFF : 0;
        }
        return validity.getByte(b) & 0xFF;
    }

    boolean isValid(int row) {
        return ((validityByte(row >>> 3) >>> (row & 7)) & 1) != 0;
    }

    /** Byte {@code b} of a Boolean operand's value bitmap (garbage behind nulls). */
    int booleanByte(int b) {
        if (isNullType()) {
            return 0;
        }
        if (constant) {
            return (vector.getDataBuffer().getByte(0) & 1) != 0 ? 0xFF : 0;
        }
        return vector.getDataBuffer().getByte(b) & 0xFF;
    }

    LongReader longs() {
        if (isNullType()) {
            return r -> 0;
        }
        LongReader read = arrayLongs(vector.getDataBuffer(), type);
        if (constant) {
            long c = read.get(0);
            return r -> c;
        }
        return read;
    }

    private static LongReader arrayLongs(ArrowBuf d, DataType type) {
        return switch (type) {
            case DataType.Bool _ -> r -> (d.getByte(r >>> 3) >>> (r & 7)) & 1;
            case DataType.Int i
            when i.signed() ->
                switch (i.bitWidth()) {
                    case 8 -> r -> d.getByte(r);
                    case 16 -> r -> d.getShort((long) r << 1);
                    case 32 -> r -> d.getInt((long) r << 2);
                    default -> r -> d.getLong((long) r << 3);
                };
            case DataType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> r -> d.getByte(r) & 0xFF;
                    case 16 -> r -> d.getShort((long) r << 1) & 0xFFFF;
                    case 32 -> r -> d.getInt((long) r << 2) & 0xFFFF_FFFFL;
                    default -> r -> d.getLong((long) r << 3);
                };
            case DataType.Date32 _ -> r -> d.getInt((long) r << 2);
            case DataType.Timestamp _ -> r -> d.getLong((long) r << 3);
            // Unreachable from a plan: kernels ask for readers of the types the planner typed them with.
            default -> throw new UnsupportedOperationException("no integer reader for " + type);
        };
    }

    DoubleReader doubles() {
        if (isNullType()) {
            return r -> 0;
        }
        ArrowBuf d = vector.getDataBuffer();
        DoubleReader read = switch (type) {
            case DataType.FloatingPoint f when f.bitWidth() == 32 -> r -> d.getFloat((long) r << 2);
            case DataType.FloatingPoint _ -> r -> d.getDouble((long) r << 3);
            // Unreachable from a plan: only float operands are read as floats.
            default -> throw new UnsupportedOperationException("no float reader for " + type);
        };
        if (constant) {
            double c = read.get(0);
            return r -> c;
        }
        return read;
    }

    /** Decimal values with the column's scale; only call on valid rows. */
    IntFunction<BigDecimal> decimals() {
        if (isNullType()) {
            return r -> BigDecimal.ZERO;
        }
        DecimalVector d = (DecimalVector) vector;
        if (constant) {
            BigDecimal c = d.getObject(0);
            return r -> c;
        }
        return d::getObject;
    }

    /** The values of a Utf8, LargeUtf8 or Binary operand as byte ranges of one buffer. */
    ByteRanges bytes() {
        return new ByteRanges(this);
    }

    /** Byte ranges of a variable-width column; a constant operand reads its one row for every row. */
    static final class ByteRanges {
        final ArrowBuf data;
        private final ArrowBuf offsets;
        private final boolean large;
        private final boolean constant;

        private ByteRanges(KernelInput in) {
            if (in.isNullType()) {
                data = null;
                offsets = null;
                large = false;
                constant = true;
                return;
            }
            if (!(in.type instanceof DataType.Utf8 || in.type instanceof DataType.Binary)) {
                // Unreachable from a plan: only string and binary operands are read as bytes.
                throw new UnsupportedOperationException("no byte reader for " + in.type);
            }
            data = in.vector.getDataBuffer();
            offsets = in.vector.getOffsetBuffer();
            large = in.type instanceof DataType.Utf8 u && u.large();
            constant = in.constant;
        }

        long start(int row) {
            if (offsets == null) {
                return 0;
            }
            int r = constant ? 0 : row;
            return large ? offsets.getLong((long) r << 3) : offsets.getInt((long) r << 2);
        }

        long end(int row) {
            if (offsets == null) {
                return 0;
            }
            int r = constant ? 1 : row + 1;
            return large ? offsets.getLong((long) r << 3) : offsets.getInt((long) r << 2);
        }

        byte[] get(int row) {
            long s = start(row);
            byte[] out = new byte[Math.toIntExact(end(row) - s)];
            if (out.length > 0) {
                data.getBytes(s, out, 0, out.length);
            }
            return out;
        }
    }

    @Override
    public void close() {
        if (ownsVector) {
            vector.close();
        }
    }
}
