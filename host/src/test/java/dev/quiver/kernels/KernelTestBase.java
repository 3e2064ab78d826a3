package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;

/** A fresh allocator per test, input vectors closed after it, and zero bytes left at the end. */
abstract class KernelTestBase {
    protected RootAllocator root;
    protected BufferAllocator allocator;
    private final List<FieldVector> inputs = new ArrayList<>();

    @BeforeEach
    void openAllocator() {
        root = new RootAllocator();
        allocator = root.newChildAllocator("test", 0, Long.MAX_VALUE);
    }

    @AfterEach
    void closeAllocator() {
        inputs.forEach(FieldVector::close);
        inputs.clear();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked by the kernel");
        allocator.close();
        root.close();
    }

    /** A borrowed input array of {@code values} (null entries are nulls), closed after the test. */
    protected ColumnarValue.Array arr(DataType type, Object... values) {
        FieldVector v = Values.of(type, "in", Arrays.asList(values), allocator);
        inputs.add(v);
        return ColumnarValue.Array.borrowed(v);
    }

    /** {@code v}, made by the test, closed after it. */
    protected void track(FieldVector v) {
        inputs.add(v);
    }

    /** Like {@link #arr}, with every byte of the data behind null slots of a fixed-width vector set to {@code garbage}. */
    protected ColumnarValue.Array garbage(byte garbage, DataType type, Object... values) {
        ColumnarValue.Array a = arr(type, values);
        if (a.vector() instanceof BaseFixedWidthVector f && !(type instanceof DataType.Bool)) {
            ArrowBuf data = f.getDataBuffer();
            int w = f.getTypeWidth();
            for (int i = 0; i < values.length; i++) {
                if (values[i] == null) {
                    for (int k = 0; k < w; k++) {
                        data.setByte((long) i * w + k, garbage);
                    }
                }
            }
        } else if (type instanceof DataType.Bool) {
            ArrowBuf data = a.vector().getDataBuffer();
            for (int i = 0; i < values.length; i++) {
                if (values[i] == null) {
                    ResultVector.setBit(data, i, garbage != 0);
                }
            }
        }
        return a;
    }

    /** Like {@link #arr}, with random garbage behind the nulls (see {@link HostileColumns#scribble}). */
    protected ColumnarValue.Array hostile(HostileColumns random, DataType type, List<Object> values) {
        ColumnarValue.Array a = arr(type, values.toArray());
        random.scribble(a.vector(), values);
        return a;
    }

    protected static ColumnarValue.Scalar sc(DataType type, Object value) {
        return ColumnarValue.scalar(type, value);
    }

    /** The values of an array result (closing it), asserting it is an owned array of {@code rows} rows named "result". */
    protected static List<Object> values(ColumnarValue result, int rows) {
        ColumnarValue.Array a = assertInstanceOf(ColumnarValue.Array.class, result);
        try (result) {
            assertTrue(a.owned(), "a result array must be owned");
            assertEquals(rows, a.vector().getValueCount());
            assertEquals("result", a.vector().getName());
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                out.add(CastKernels.read(
                                a.vector(), i, DataType.fromField(a.vector().getField()))
                        .value());
            }
            return out;
        }
    }

    /** The value of a scalar result. */
    protected static Object scalar(ColumnarValue result) {
        ColumnarValue.Scalar s = assertInstanceOf(ColumnarValue.Scalar.class, result);
        return s.value().value();
    }

    protected static ScalarValue scalarValue(ColumnarValue result) {
        return assertInstanceOf(ColumnarValue.Scalar.class, result).value();
    }

    protected static List<Object> list(Object... values) {
        return Arrays.asList(values);
    }

    /** A binary kernel under test. */
    @FunctionalInterface
    protected interface Binary {
        ColumnarValue apply(ColumnarValue l, ColumnarValue r, int rows);
    }

    /**
     * Checks {@code f} on every shape: array op array (with zero and with 0x7F garbage behind
     * nulls) against {@code expected}; scalar op scalar per row (must be a scalar) against
     * {@code expected}; scalar op array and array op scalar against the scalar results.
     */
    protected void assertBinary(
            Binary f, DataType lt, DataType rt, List<Object> ls, List<Object> rs, List<Object> expected) {
        int n = expected.size();
        assertEquals(n, ls.size());
        assertEquals(n, rs.size());
        assertEquals(expected, values(f.apply(arr(lt, ls.toArray()), arr(rt, rs.toArray()), n), n), "array op array");
        assertEquals(
                expected,
                values(f.apply(garbage((byte) 0x7F, lt, ls.toArray()), garbage((byte) 0x7F, rt, rs.toArray()), n), n),
                "array op array, garbage behind nulls");
        for (int i = 0; i < n; i++) {
            assertEquals(
                    expected.get(i),
                    scalar(f.apply(sc(lt, ls.get(i)), sc(rt, rs.get(i)), n)),
                    "scalar op scalar, row " + i);
        }
        for (int row = 0; row < n; row++) {
            int i = row;
            List<Object> leftConst = new ArrayList<>();
            List<Object> rightConst = new ArrayList<>();
            for (int j = 0; j < n; j++) {
                leftConst.add(scalarOrFailure(f, sc(lt, ls.get(i)), sc(rt, rs.get(j))));
                rightConst.add(scalarOrFailure(f, sc(lt, ls.get(j)), sc(rt, rs.get(i))));
            }
            assertSameOutcome(
                    leftConst,
                    () -> f.apply(sc(lt, ls.get(i)), arr(rt, rs.toArray()), n),
                    n,
                    "scalar op array, scalar row " + i);
            assertSameOutcome(
                    rightConst,
                    () -> f.apply(arr(lt, ls.toArray()), sc(rt, rs.get(i)), n),
                    n,
                    "array op scalar, scalar row " + i);
        }
        assertEquals(List.of(), values(f.apply(arr(lt), arr(rt), 0), 0), "empty arrays");
    }

    private record Failure(Class<?> type) {}

    private static Object scalarOrFailure(Binary f, ColumnarValue l, ColumnarValue r) {
        try {
            return scalar(f.apply(l, r, 1));
        } catch (RuntimeException e) {
            return new Failure(e.getClass());
        }
    }

    private static void assertSameOutcome(List<Object> expected, Supplier<ColumnarValue> run, int n, String what) {
        Object failure =
                expected.stream().filter(o -> o instanceof Failure).findFirst().orElse(null);
        if (failure != null) {
            RuntimeException e = Assertions.assertThrows(RuntimeException.class, run::get, what);
            assertEquals(((Failure) failure).type(), e.getClass(), what);
        } else {
            assertEquals(expected, values(run.get(), n), what);
        }
    }
}
