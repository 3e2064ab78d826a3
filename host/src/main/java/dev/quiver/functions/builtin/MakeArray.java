package dev.quiver.functions.builtin;

import dev.quiver.errors.ResourceException;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.memory.Resources;
import dev.quiver.types.DataType;
import dev.quiver.types.TypeCoercion;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * {@code make_array(a, b, ...)} (alias {@code array}; DuckDB's {@code list_value}): per row, the
 * list {@code [a, b, ...]}. One or more arguments, cast to their common type T; the result is
 * {@code List(T)} with nullable elements. A row is never NULL itself; a NULL argument is a NULL
 * element. Scalar arguments are broadcast.
 *
 * <p>One pass over the rows writes the offsets ({@code i * N}) and copies the elements. The
 * child is allocated once at its final size: {@code rows * N} elements for fixed-width and
 * Boolean types, the exact byte total of the arguments for strings and binary. Those are copied
 * straight between the Arrow buffers (a strided copy per argument); other element types (lists,
 * structs) are copied per element with {@code copyFromSafe}.
 */
final class MakeArray implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    @Override
    public String name() {
        return "make_array";
    }

    @Override
    public List<String> aliases() {
        return List.of("array", "list_value");
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (argTypes.isEmpty()) {
            throw new PlanningException("make_array needs at least one argument");
        }
        DataType t = TypeCoercion.commonType(
                        argTypes.stream().map(DataType::valueType).toList())
                .orElseThrow(
                        () -> new PlanningException("the arguments of make_array have no common type: " + argTypes));
        return argTypes.stream().map(a -> t).toList();
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return new DataType.ListType(argTypes.getFirst().valueType(), true);
    }

    @Override
    public String description() {
        return "A list of its arguments, per row (NULL arguments are NULL elements).";
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        DataType.ListType type = (DataType.ListType) DataType.fromField(call.returnField());
        if (call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar)) {
            List<Object> items = new ArrayList<>(call.args().size());
            for (ColumnarValue a : call.args()) {
                items.add(((ColumnarValue.Scalar) a).value().value());
            }
            return ColumnarValue.scalar(type, items);
        }
        BufferAllocator allocator = call.config().allocator();
        int rows = call.numberRows();
        List<ColumnarValue> made = new ArrayList<>();
        try {
            List<FieldVector> arrays = new ArrayList<>(call.args().size());
            for (ColumnarValue v : call.args()) {
                ColumnarValue.Array a = Values.toArray(v, rows, allocator);
                if (a != v) {
                    made.add(a);
                }
                arrays.add(a.vector());
            }
            return new ColumnarValue.Array(
                    build(arrays, rows, type, call.returnField().getName(), allocator));
        } finally {
            Resources.closeAll(made);
        }
    }

    /** The list vector; on failure everything it allocated is freed. */
    static ListVector build(
            List<FieldVector> arrays, int rows, DataType.ListType type, String name, BufferAllocator allocator) {
        int n = arrays.size();
        long total = (long) rows * n;
        if (total > Integer.MAX_VALUE) {
            throw new ResourceException(
                    "make_array of " + n + " arguments over " + rows + " rows makes more than 2^31 elements");
        }
        ListVector out = (ListVector) type.toField(name, true).createVector(allocator);
        try {
            // The list's own buffers for exactly `rows` rows; the child's are allocated below at their final size.
            out.setInitialCapacity(Math.max(rows, 1), 0.0);
            out.allocateNew();
            ArrowBuf offsets = out.getOffsetBuffer();
            for (int i = 0; i <= rows; i++) {
                offsets.setInt((long) i * ListVector.OFFSET_WIDTH, i * n);
            }
            setAll(out.getValidityBuffer(), rows);
            FieldVector child = out.getDataVector();
            copyElements(arrays, rows, child, (int) total);
            out.setLastSet(rows - 1);
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    private static void copyElements(List<FieldVector> arrays, int rows, FieldVector child, int total) {
        int n = arrays.size();
        switch (child) {
            case BitVector bits -> {
                bits.allocateNew(Math.max(total, 1));
                ArrowBuf data = bits.getDataBuffer();
                for (int k = 0; k < n; k++) {
                    BitVector src = (BitVector) arrays.get(k);
                    ArrowBuf sd = src.getDataBuffer();
                    for (int i = 0; i < rows; i++) {
                        if (BitVectorHelper.get(sd, i) != 0) {
                            BitVectorHelper.setBit(data, (long) i * n + k);
                        }
                    }
                }
                copyValidity(arrays, rows, bits.getValidityBuffer());
                bits.setValueCount(total);
            }
            case BaseFixedWidthVector fixed -> {
                fixed.allocateNew(Math.max(total, 1));
                int w = fixed.getTypeWidth();
                ArrowBuf data = fixed.getDataBuffer();
                for (int k = 0; k < n; k++) {
                    ArrowBuf sd = arrays.get(k).getDataBuffer();
                    copyStrided(sd, data, w, rows, n, k);
                }
                copyValidity(arrays, rows, fixed.getValidityBuffer());
                fixed.setValueCount(total);
            }
            case BaseVariableWidthVector vw -> {
                long bytes = 0;
                for (FieldVector a : arrays) {
                    ArrowBuf o = a.getOffsetBuffer();
                    bytes += rows == 0 ? 0 : o.getInt((long) rows * 4) - o.getInt(0);
                }
                vw.allocateNew(Math.max(bytes, 1), Math.max(total, 1));
                copyVariable(arrays, rows, vw.getOffsetBuffer(), vw.getDataBuffer(), 4);
                copyValidity(arrays, rows, vw.getValidityBuffer());
                vw.setLastSet(total - 1);
                vw.setValueCount(total);
            }
            case BaseLargeVariableWidthVector lw -> {
                long bytes = 0;
                for (FieldVector a : arrays) {
                    ArrowBuf o = a.getOffsetBuffer();
                    bytes += rows == 0 ? 0 : o.getLong((long) rows * 8) - o.getLong(0);
                }
                lw.allocateNew(Math.max(bytes, 1), Math.max(total, 1));
                copyVariable(arrays, rows, lw.getOffsetBuffer(), lw.getDataBuffer(), 8);
                copyValidity(arrays, rows, lw.getValidityBuffer());
                lw.setLastSet(total - 1);
                lw.setValueCount(total);
            }
            default -> {
                // Lists, structs: element by element through Arrow's own copy.
                child.setInitialCapacity(Math.max(total, 1));
                child.allocateNew();
                for (int i = 0; i < rows; i++) {
                    for (int k = 0; k < n; k++) {
                        child.copyFromSafe(i, i * n + k, arrays.get(k));
                    }
                }
                child.setValueCount(total);
            }
        }
    }

    /** Element {@code i * n + k} of {@code dst} = value {@code i} of {@code src}, {@code w} bytes each. */
    private static void copyStrided(ArrowBuf src, ArrowBuf dst, int w, int rows, int n, int k) {
        long stride = (long) n * w;
        long d = (long) k * w;
        switch (w) {
            case 1 -> {
                for (int i = 0; i < rows; i++, d += stride) {
                    dst.setByte(d, src.getByte(i));
                }
            }
            case 2 -> {
                for (int i = 0; i < rows; i++, d += stride) {
                    dst.setShort(d, src.getShort((long) i * 2));
                }
            }
            case 4 -> {
                for (int i = 0; i < rows; i++, d += stride) {
                    dst.setInt(d, src.getInt((long) i * 4));
                }
            }
            case 8 -> {
                for (int i = 0; i < rows; i++, d += stride) {
                    dst.setLong(d, src.getLong((long) i * 8));
                }
            }
            default -> {
                for (int i = 0; i < rows; i++, d += stride) {
                    dst.setBytes(d, src, (long) i * w, w);
                }
            }
        }
    }

    /** Row-major copy of the bytes of every element, writing the child's offsets ({@code width} 4 or 8 bytes). */
    private static void copyVariable(List<FieldVector> arrays, int rows, ArrowBuf offsets, ArrowBuf data, int width) {
        int n = arrays.size();
        ArrowBuf[] so = new ArrowBuf[n];
        ArrowBuf[] sd = new ArrowBuf[n];
        for (int k = 0; k < n; k++) {
            so[k] = arrays.get(k).getOffsetBuffer();
            sd[k] = arrays.get(k).getDataBuffer();
        }
        long pos = 0;
        long j = 0;
        setOffset(offsets, 0, 0, width);
        for (int i = 0; i < rows; i++) {
            for (int k = 0; k < n; k++) {
                long start = offset(so[k], i, width);
                long len = offset(so[k], i + 1, width) - start;
                if (len > 0) {
                    data.setBytes(pos, sd[k], start, len);
                }
                pos += len;
                setOffset(offsets, ++j, pos, width);
            }
        }
    }

    private static long offset(ArrowBuf b, long i, int width) {
        return width == 4 ? b.getInt(i * 4) : b.getLong(i * 8);
    }

    private static void setOffset(ArrowBuf b, long i, long v, int width) {
        if (width == 4) {
            b.setInt(i * 4, (int) v);
        } else {
            b.setLong(i * 8, v);
        }
    }

    /** Bit {@code i * n + k} of {@code dst} (zeroed) = validity bit {@code i} of argument k. */
    private static void copyValidity(List<FieldVector> arrays, int rows, ArrowBuf dst) {
        int n = arrays.size();
        for (int k = 0; k < n; k++) {
            FieldVector a = arrays.get(k);
            if (a.getNullCount() == 0) {
                for (int i = 0; i < rows; i++) {
                    BitVectorHelper.setBit(dst, (long) i * n + k);
                }
            } else {
                ArrowBuf v = a.getValidityBuffer();
                for (int i = 0; i < rows; i++) {
                    if (BitVectorHelper.get(v, i) != 0) {
                        BitVectorHelper.setBit(dst, (long) i * n + k);
                    }
                }
            }
        }
    }

    /** Sets the first {@code rows} bits of a bitmap. */
    static void setAll(ArrowBuf bitmap, int rows) {
        int full = rows / 8;
        if (full > 0) {
            bitmap.setOne(0, full);
        }
        for (int i = full * 8; i < rows; i++) {
            BitVectorHelper.setBit(bitmap, i);
        }
    }
}
