package dev.quiver.opencl;

import static dev.quiver.opencl.Batches.assertInt32;
import static dev.quiver.opencl.Batches.assertInt64;
import static dev.quiver.opencl.Batches.int32;
import static dev.quiver.opencl.Batches.int64;
import static dev.quiver.opencl.Batches.run;
import static dev.quiver.opencl.Batches.withNulls;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntBinaryOperator;
import java.util.function.LongBinaryOperator;
import java.util.stream.IntStream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;

/** Integer programs: wrapping arithmetic, truncating division and MIN / -1, exactly as Java. */
class IntegerTest extends DeviceTestBase {
    private static final IrNode I = Ir.arg(0, ElementType.INT32);
    private static final IrNode J = Ir.arg(1, ElementType.INT32);
    private static final IrNode L = Ir.arg(0, ElementType.INT64);
    private static final IrNode M = Ir.arg(1, ElementType.INT64);

    private record Int32Case(IrNode node, IntBinaryOperator java) {}

    private record Int64Case(IrNode node, LongBinaryOperator java) {}

    @OnEveryDevice
    void int32Arithmetic(OpenClBackend backend) {
        int[][] c = Hostile.combinations(Hostile.INTS, 2);
        // Zero divisors sit behind nulls: the division must neither trap nor throw for them.
        int[] zeroDivisors =
                IntStream.range(0, c[1].length).filter(r -> c[1][r] == 0).toArray();
        List<Int32Case> cases = List.of(
                new Int32Case(Ir.add(I, J), (a, b) -> a + b),
                new Int32Case(Ir.sub(I, J), (a, b) -> a - b),
                new Int32Case(Ir.mul(I, J), (a, b) -> a * b),
                new Int32Case(Ir.div(I, J), (a, b) -> a / b),
                new Int32Case(Ir.min(I, J), Math::min),
                new Int32Case(Ir.max(I, J), Math::max),
                new Int32Case(Ir.neg(I), (a, b) -> -a),
                new Int32Case(Ir.abs(I), (a, b) -> Math.abs(a)),
                new Int32Case(Ir.fma(I, J, Ir.lit(Integer.MAX_VALUE)), (a, b) -> a * b + Integer.MAX_VALUE),
                new Int32Case(Ir.sub(Ir.mul(Ir.neg(J), I), Ir.div(I, J)), (a, b) -> -b * a - a / b));
        for (Int32Case k : cases) {
            KernelProgram program = new KernelProgram(List.of(ElementType.INT32, ElementType.INT32), k.node());
            try (IntVector a = int32(allocator, c[0]);
                    IntVector b = withNulls(int32(allocator, c[1]), zeroDivisors);
                    var out = run(backend, allocator, program, a, b)) {
                assertInt32(out.vector(), i -> k.java().applyAsInt(c[0][i], c[1][i]), program.text());
            }
        }
    }

    @OnEveryDevice
    void int64Arithmetic(OpenClBackend backend) {
        long[][] c = Hostile.combinations(Hostile.LONGS, 2);
        int[] zeroDivisors =
                IntStream.range(0, c[1].length).filter(r -> c[1][r] == 0).toArray();
        List<Int64Case> cases = List.of(
                new Int64Case(Ir.add(L, M), (a, b) -> a + b),
                new Int64Case(Ir.sub(L, M), (a, b) -> a - b),
                new Int64Case(Ir.mul(L, M), (a, b) -> a * b),
                new Int64Case(Ir.div(L, M), (a, b) -> a / b),
                new Int64Case(Ir.min(L, M), Math::min),
                new Int64Case(Ir.max(L, M), Math::max),
                new Int64Case(Ir.neg(L), (a, b) -> -a),
                new Int64Case(Ir.abs(L), (a, b) -> Math.abs(a)),
                new Int64Case(Ir.fma(L, M, Ir.lit(Long.MIN_VALUE)), (a, b) -> a * b + Long.MIN_VALUE));
        for (Int64Case k : cases) {
            KernelProgram program = new KernelProgram(List.of(ElementType.INT64, ElementType.INT64), k.node());
            try (BigIntVector a = int64(allocator, c[0]);
                    BigIntVector b = withNulls(int64(allocator, c[1]), zeroDivisors);
                    var out = run(backend, allocator, program, a, b)) {
                assertInt64(out.vector(), i -> k.java().applyAsLong(c[0][i], c[1][i]), program.text());
            }
        }
    }

    @OnEveryDevice
    void extremesSpelledOut(OpenClBackend backend) {
        int min = Integer.MIN_VALUE;
        KernelProgram divide = new KernelProgram(List.of(ElementType.INT32, ElementType.INT32), Ir.div(I, J));
        try (IntVector a = int32(allocator, min, -7, 7, -7, min, Integer.MAX_VALUE);
                IntVector b = int32(allocator, -1, 2, -2, -2, 1, -1);
                var out = run(backend, allocator, divide, a, b)) {
            IntVector v = (IntVector) out.vector();
            assertEquals(
                    List.of(min, -3, -3, 3, min, -Integer.MAX_VALUE),
                    IntStream.range(0, 6).mapToObj(v::get).toList(),
                    "truncating division, MIN / -1 = MIN");
        }
        KernelProgram abs = new KernelProgram(List.of(ElementType.INT64), Ir.abs(Ir.neg(L)));
        try (BigIntVector a = int64(allocator, Long.MIN_VALUE, Long.MAX_VALUE, -5);
                var out = run(backend, allocator, abs, a)) {
            BigIntVector v = (BigIntVector) out.vector();
            assertEquals(
                    List.of(Long.MIN_VALUE, Long.MAX_VALUE, 5L),
                    IntStream.range(0, 3).mapToObj(v::get).toList(),
                    "abs(-MIN) = MIN");
        }
    }

    @OnEveryDevice
    void int32WidensToInt64BeforeArithmetic(OpenClBackend backend) {
        int[][] c = Hostile.combinations(Hostile.INTS, 2);
        // $0 * $1 in INT64: no 32-bit wrap.
        KernelProgram program = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT64), Ir.mul(I, Ir.arg(1, ElementType.INT64)));
        long[] wide = Arrays.stream(c[1]).asLongStream().toArray();
        try (IntVector a = int32(allocator, c[0]);
                BigIntVector b = int64(allocator, wide);
                var out = run(backend, allocator, program, a, b)) {
            assertInt64(out.vector(), i -> (long) c[0][i] * wide[i], program.text());
        }
    }
}
