package dev.quiver.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.backend.RowMode;
import dev.quiver.functions.builtin.MathFunctions;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A program whose fused loop would exceed the JVM's 64 KiB method limit runs row by row through
 * the reference, with the loop's values, null rows and errors. Found by ExpressionFuzzTest:
 * {@code gcd(gcd(i64, i64), i64)} raised "Code length 97482 is outside the allowed range" on the
 * CPU (since its 130 {@code log2}s are calls, that loop fits; four nested calls do not).
 */
class LoopTooLargeTest {
    static KernelProgram nestedGcd(ElementType t) {
        IrNode b = Ir.arg(1, t);
        IrNode g = Ir.arg(0, t);
        for (int level = 0; level < 4; level++) {
            g = MathFunctions.GCD.kernel(List.of(g, b)).orElseThrow();
        }
        return new KernelProgram(List.of(t, t), g, "gcd(gcd(gcd(gcd(a, b), b), b), b)");
    }

    @Test
    void theLoopOfNestedInt64GcdsIsTooLargeForOneMethod() {
        KernelProgram p = nestedGcd(ElementType.INT64);
        assertThrows(
                FusedLoopCompiler.LoopTooLargeException.class, () -> FusedLoopCompiler.compile(p, RowMode.ALL_ROWS));
    }

    @Test
    void itRunsRowByRowAsTheReferenceDoes() {
        CpuBackend cpu = new CpuBackend(1);
        Random r = new Random(Oracle.SEED);
        KernelProgram p = nestedGcd(ElementType.INT64);
        for (int rows : new int[] {1, 7, 9, 64, 129}) {
            for (RowMode mode : RowMode.values()) {
                try (Arena arena = Arena.ofConfined()) {
                    List<MemorySegment> args = List.of(
                            Oracle.fill(arena, ElementType.INT64, rows, r),
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
        KernelProgram p = nestedGcd(ElementType.INT64);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(8 * 3, 8), b = arena.allocate(8 * 3, 8);
            long[] av = {12, Long.MIN_VALUE, 5};
            long[] bv = {18, 0, 0};
            for (int i = 0; i < 3; i++) {
                a.setAtIndex(ValueLayout.JAVA_LONG, i, av[i]);
                b.setAtIndex(ValueLayout.JAVA_LONG, i, bv[i]);
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
