package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.assertFloat64;
import static dev.quiver.opencl.Batches.assertInt32;
import static dev.quiver.opencl.Batches.float64;
import static dev.quiver.opencl.Batches.int32;
import static dev.quiver.opencl.Batches.int64;
import static dev.quiver.opencl.Batches.run;
import static dev.quiver.opencl.Batches.withNulls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

/** A zero divisor in a valid row is an error naming the first such row; behind a null it is nothing. */
class DivisionByZeroTest extends DeviceTestBase {
    private static final IrNode A = Ir.arg(0, ElementType.INT32);
    private static final IrNode B = Ir.arg(1, ElementType.INT32);
    private static final KernelProgram DIVIDE =
            new KernelProgram(List.of(ElementType.INT32, ElementType.INT32), Ir.div(A, B));

    @OnEveryDevice
    void firstValidRowWithZeroDivisorIsNamed(OpenClBackend backend) {
        int[] a = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};
        int[] b = {1, 2, 3, 4, 5, 0, 7, 8, 9, 0, 1, 2, 0};
        // Row 5 divides by zero but is null; row 9 is the first valid one.
        try (IntVector x = withNulls(int32(allocator, a), 5);
                IntVector y = int32(allocator, b)) {
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> run(backend, allocator, DIVIDE, x, y).close());
            assertEquals(9, e.row());
            assertEquals("integer division by zero in ($0 / $1) at row 9 (on " + backend.name() + ")", e.getMessage());
        }
    }

    @OnEveryDevice
    void zeroDivisorsBehindNullsAreIgnored(OpenClBackend backend) {
        int[] a = {7, Integer.MIN_VALUE, 9, -9, 1};
        int[] b = {0, -1, 0, 2, 0};
        try (IntVector x = withNulls(int32(allocator, a), 2);
                IntVector y = withNulls(int32(allocator, b), 0, 4);
                var out = run(backend, allocator, DIVIDE, x, y)) {
            assertInt32(out.vector(), i -> a[i] / b[i], DIVIDE.text());
            assertEquals(3, out.vector().getNullCount());
        }
    }

    @OnEveryDevice
    void computedDivisorsAreFound(OpenClBackend backend) {
        // $0 / ($1 - $2) + $0: the divisor is zero where $1 == $2.
        IrNode c = Ir.arg(2, ElementType.INT32);
        KernelProgram program = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT32, ElementType.INT32), Ir.add(Ir.div(A, Ir.sub(B, c)), A));
        try (IntVector x = int32(allocator, 1, 2, 3, 4);
                IntVector y = int32(allocator, 5, 6, 7, 8);
                IntVector z = int32(allocator, 4, 5, 7, 8)) {
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> run(backend, allocator, program, x, y, z).close());
            assertEquals(2, e.row());
        }
    }

    @OnEveryDevice
    void withTwoDivisionsTheEarliestFailingRowWins(OpenClBackend backend) {
        // $0 / $1 + $2 / $3: the first division fails at row 5, the second earlier, at row 2.
        IrNode c = Ir.arg(2, ElementType.INT32), d = Ir.arg(3, ElementType.INT32);
        KernelProgram program = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT32, ElementType.INT32, ElementType.INT32),
                Ir.add(Ir.div(A, B), Ir.div(c, d)));
        try (IntVector w = int32(allocator, 1, 2, 3, 4, 5, 6, 7);
                IntVector x = int32(allocator, 1, 1, 1, 1, 1, 0, 1);
                IntVector y = int32(allocator, 1, 2, 3, 4, 5, 6, 7);
                IntVector z = int32(allocator, 1, 1, 0, 1, 1, 1, 0)) {
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> run(backend, allocator, program, w, x, y, z).close());
            assertEquals(2, e.row());
        }
    }

    @OnEveryDevice
    void rowZeroAndInt64(OpenClBackend backend) {
        IrNode l = Ir.arg(0, ElementType.INT64);
        IrNode m = Ir.arg(1, ElementType.INT64);
        KernelProgram program = new KernelProgram(List.of(ElementType.INT64, ElementType.INT64), Ir.div(l, m));
        try (BigIntVector x = int64(allocator, Long.MIN_VALUE, 1);
                BigIntVector y = int64(allocator, 0, 0)) {
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> run(backend, allocator, program, x, y).close());
            assertEquals(0, e.row());
        }
    }

    @OnEveryDevice
    void integerDivisionInsideAFloatingPointProgram(OpenClBackend backend) {
        // cast($0 / $1 as Float64) * $2
        KernelProgram program = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT32, ElementType.FLOAT64),
                Ir.mul(Ir.div(A, B), Ir.arg(2, ElementType.FLOAT64)));
        int[] a = {9, 8, 7};
        int[] b = {2, 0, -1};
        double[] d = {0.5, 1.5, -0.0};
        try (IntVector x = int32(allocator, a);
                IntVector y = int32(allocator, b);
                Float8Vector z = float64(allocator, d)) {
            KernelArithmeticException e = assertThrows(
                    KernelArithmeticException.class,
                    () -> run(backend, allocator, program, x, y, z).close());
            assertEquals(1, e.row());
            assertTrue(e.getMessage().contains(program.text()));
        }
        try (IntVector x = int32(allocator, a);
                IntVector y = withNulls(int32(allocator, b), 1);
                Float8Vector z = float64(allocator, d);
                var out = run(backend, allocator, program, x, y, z)) {
            assertFloat64(out.vector(), i -> (a[i] / b[i]) * d[i], program.text());
        }
    }
}
