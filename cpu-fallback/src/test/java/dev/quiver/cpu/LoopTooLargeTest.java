package dev.quiver.cpu;

import dev.quiver.backend.RowMode;
import dev.quiver.functions.builtin.MathFunctions;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A program whose fused loop would exceed the JVM's 64 KiB method limit runs row by row through
 * the reference, with the loop's values, null rows and errors. Found by ExpressionFuzzTest:
 * {@code gcd(gcd(i64, i64), i64)} raised "Code length 97482 is outside the allowed range" on the
 * CPU. Nested gcds are now deeper than a kernel program may be (the planner runs them unfused), so
 * the loop here is six gcds side by side.
 */
class LoopTooLargeTest {
    /**
     * {@code gcd(a, b) + gcd(a + 1, b) + ... + gcd(a + 5, b)}: six unrolled Euclid loops side by side.
     * One {@code gcd} is 590 levels deep, so nesting two would pass {@link KernelProgram#MAX_DEPTH};
     * six side by side stay 596 deep and their loop is far over 64 KiB.
     */
    static KernelProgram wideGcds(ElementType t) {
        IrNode b = Ir.arg(1, t);
        IrNode sum = null;
        for (int k = 0; k < 6; k++) {
            IrNode a = k == 0 ? Ir.arg(0, t) : Ir.add(Ir.arg(0, t), Ir.lit(t, k));
            IrNode g = MathFunctions.GCD.kernel(List.of(a, b)).orElseThrow();
            sum = sum == null ? g : Ir.add(sum, g);
        }
        return new KernelProgram(List.of(t, t), sum, "gcd(a, b) + gcd(a + 1, b) + ... + gcd(a + 5, b)");
    }

    @Test
    void theLoopOfNestedInt64GcdsIsTooLargeForOneMethod() {
        KernelProgram p = wideGcds(ElementType.INT64);
        assertThrows(FusedLoopCompiler.LoopTooLargeException.class, () -> FusedLoopCompiler.compile(p, RowMode.ALL_ROWS));
    }

    @Test
    void itRunsRowByRowAsTheReferenceDoes() {
        CpuBackend cpu = new CpuBackend(1);
        Random r = new Random(Oracle.SEED);
        KernelProgram p = wideGcds(ElementType.INT64);
        for (int rows : new int[] {1, 7, 9, 64, 129}) {
            for (RowMode mode : RowMode.values()) {
                try (Arena arena = Arena.ofConfined()) {
                    List<MemorySegment> args = List.of(Oracle.fill(arena, ElementType.INT64, rows, r),
                            Oracle.fill(arena, ElementType.INT64, rows, r));
                    MemorySegment validity = Oracle.validity(arena, rows, r, 0.2);
                    Oracle.check(cpu, p, args, validity, rows, mode);
                }
            }
        }
        assertEquals(0, cpu.classBytes(p, RowMode.VALID_ROWS), "no loop: row by row");
    }

    @Test
    void aFailingRowRaisesAsTheLoopWould() {
        CpuBackend cpu = new CpuBackend(1);
        KernelProgram p = wideGcds(ElementType.INT64);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(8 * 3, 8), b = arena.allocate(8 * 3, 8);
            long[] av = {12, Long.MIN_VALUE, 5};
            long[] bv = {18, 0, 0};
            for (int i = 0; i < 3; i++) {
                a.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, i, av[i]);
                b.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, i, bv[i]);
            }
            MemorySegment validity = arena.allocate(8, 8);
            for (int i = 0; i < 3; i++) {
                ValidityBitmaps.set(validity, i);
            }
            // gcd(MIN_VALUE, 0) is 2^63: row 1 fails, in both modes.
            for (RowMode mode : RowMode.values()) {
                assertNull(Oracle.check(cpu, p, List.of(a, b), validity, 3, mode), mode.name());
            }
        }
    }
}
