package dev.quiver.spark.arrow;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * The memory behind the values of Spark's own writable vectors, read in place: an off-heap
 * vector's native buffer ({@code valuesNativeAddress()}), an on-heap vector's primitive array
 * (a private field, read through a {@link VarHandle}; when a Spark version renames it, the bulk
 * getters are used instead). Only for vectors without a dictionary (whose values are ids) and
 * on little-endian machines (Arrow's byte order is little-endian; Spark's is the machine's).
 */
final class SparkVectorMemory {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final Map<Class<?>, VarHandle> ON_HEAP_ARRAYS = onHeapArrays();
    private static final VarHandle CAPACITY = capacity();

    private SparkVectorMemory() {}

    /**
     * A segment over the first {@code rows} values of {@code source} of Java type {@code carrier}
     * ({@code double.class}, ...), valid while the vector holds this batch; null when they cannot
     * be read in place.
     */
    static MemorySegment values(ColumnVector source, Class<?> carrier, int rows) {
        if (!LITTLE_ENDIAN || rows == 0) {
            return null;
        }
        long bytes = (long) rows * MemorySegmentWidth.of(carrier);
        if (source instanceof OffHeapColumnVector off && !off.hasDictionary()) {
            // Its native buffer holds `capacity` values: never read past it.
            if (CAPACITY == null || rows > (int) CAPACITY.get((WritableColumnVector) off)) {
                return null;
            }
            long address = off.valuesNativeAddress();
            return address == 0 ? null : MemorySegment.ofAddress(address).reinterpret(bytes);
        }
        if (source instanceof OnHeapColumnVector on && !on.hasDictionary()) {
            VarHandle h = ON_HEAP_ARRAYS.get(carrier);
            Object array = h == null ? null : h.get(on);
            MemorySegment segment = switch (array) {
                case byte[] a -> MemorySegment.ofArray(a);
                case short[] a -> MemorySegment.ofArray(a);
                case int[] a -> MemorySegment.ofArray(a);
                case long[] a -> MemorySegment.ofArray(a);
                case float[] a -> MemorySegment.ofArray(a);
                case double[] a -> MemorySegment.ofArray(a);
                case null, default -> null;
            };
            return segment == null || segment.byteSize() < bytes ? null : segment.asSlice(0, bytes);
        }
        return null;
    }

    private static VarHandle capacity() {
        try {
            var type = WritableColumnVector.class;
            return MethodHandles.privateLookupIn(type, MethodHandles.lookup())
                    .findVarHandle(type, "capacity", int.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Map<Class<?>, VarHandle> onHeapArrays() {
        Map<Class<?>, VarHandle> handles = new HashMap<>();
        try {
            MethodHandles.Lookup lookup =
                    MethodHandles.privateLookupIn(OnHeapColumnVector.class, MethodHandles.lookup());
            handles.put(byte.class, lookup.findVarHandle(OnHeapColumnVector.class, "byteData", byte[].class));
            handles.put(short.class, lookup.findVarHandle(OnHeapColumnVector.class, "shortData", short[].class));
            handles.put(int.class, lookup.findVarHandle(OnHeapColumnVector.class, "intData", int[].class));
            handles.put(long.class, lookup.findVarHandle(OnHeapColumnVector.class, "longData", long[].class));
            handles.put(float.class, lookup.findVarHandle(OnHeapColumnVector.class, "floatData", float[].class));
            handles.put(double.class, lookup.findVarHandle(OnHeapColumnVector.class, "doubleData", double[].class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Map.of(); // another Spark's layout: the bulk getters it is
        }
        return Map.copyOf(handles);
    }

    /** Bytes of one value of a Java primitive type. */
    private static final class MemorySegmentWidth {
        static long of(Class<?> carrier) {
            if (carrier == byte.class) {
                return 1;
            }
            if (carrier == short.class) {
                return 2;
            }
            if (carrier == int.class || carrier == float.class) {
                return 4;
            }
            return 8;
        }
    }
}
