package dev.quiver.rowfn.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RowInterpreter#firstFailingRow}: the slow path that locates a failing row for backends that only see a flag. */
class RowInterpreterFailingRowTest {
    private static final IrNode A = Ir.arg(0, ElementType.INT32);
    private static final IrNode B = Ir.arg(1, ElementType.INT32);

    private static long search(KernelProgram program, int[] a, int[] b, int validBits) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocateFrom(ValueLayout.JAVA_INT, a);
            MemorySegment sb = arena.allocateFrom(ValueLayout.JAVA_INT, b);
            MemorySegment validity = arena.allocate(8);
            validity.set(ValueLayout.JAVA_INT, 0, validBits);
            return RowInterpreter.firstFailingRow(program, List.of(sa, sb), validity, a.length);
        }
    }

    @Test
    void findsTheFirstValidRowOnly() {
        KernelProgram divide = new KernelProgram(List.of(ElementType.INT32, ElementType.INT32), Ir.div(A, B));
        int[] a = {1, 2, 3, 4, 5};
        int[] b = {1, 0, 1, 0, 0};
        assertEquals(1, search(divide, a, b, 0b11111));
        assertEquals(3, search(divide, a, b, 0b11101));
        assertEquals(-1, search(divide, a, b, 0b00101));
    }

    @Test
    void evaluatesComputedAndNestedDivisors() {
        // $0 / ($1 / $0): the inner division fails where $0 == 0, the outer where |$1| < |$0|.
        KernelProgram nested =
                new KernelProgram(List.of(ElementType.INT32, ElementType.INT32), Ir.div(A, Ir.div(B, A)));
        assertEquals(1, search(nested, new int[] {1, 0, 2}, new int[] {5, 5, 5}, 0b111));
        assertEquals(2, search(nested, new int[] {1, 1, 7}, new int[] {5, 5, 5}, 0b111));
        // Wrapping arithmetic as in Java: MIN * -1 wraps to MIN, and MIN + MIN to 0.
        KernelProgram wrapped = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT32), Ir.div(B, Ir.add(A, Ir.mul(A, Ir.lit(-1)))));
        assertEquals(
                -1,
                search(
                        new KernelProgram(
                                List.of(ElementType.INT32, ElementType.INT32),
                                Ir.div(B, Ir.add(Ir.mul(A, Ir.lit(-1)), Ir.lit(1)))),
                        new int[] {Integer.MIN_VALUE},
                        new int[] {3},
                        1));
        assertEquals(0, search(wrapped, new int[] {Integer.MIN_VALUE}, new int[] {3}, 1));
    }

    @Test
    void looksInsideFloatingPointPrograms() {
        KernelProgram program = new KernelProgram(
                List.of(ElementType.INT32, ElementType.INT32),
                Ir.sqrt(Ir.div(Ir.cast(A, ElementType.INT64), Ir.cast(B, ElementType.INT64))));
        assertEquals(2, search(program, new int[] {1, 2, 3}, new int[] {1, 2, 0}, 0b111));
    }
}
