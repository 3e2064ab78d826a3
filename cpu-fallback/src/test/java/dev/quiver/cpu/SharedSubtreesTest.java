package dev.quiver.cpu;

import static dev.quiver.types.ElementType.FLOAT64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Equal subtrees are computed once per step: DAGs give the right answers in less code. */
class SharedSubtreesTest {

    private static int classBytes(KernelProgram p, boolean share) {
        return FusedLoopCompiler.compile(p, RowMode.ALL_ROWS, FusedLoopCompiler.lanesFor(p), share)
                .classBytes();
    }

    /** x(k+1) = sqrt(|x(k)|) * 0.5 + x(k): each level uses the one below twice. */
    static IrNode tower(IrNode x, int depth) {
        for (int k = 0; k < depth; k++) {
            x = Ir.add(Ir.mul(Ir.sqrt(Ir.abs(x)), Ir.lit(0.5)), x);
        }
        return x;
    }

    @Test
    void aDagIsComputedRightAndOnce() {
        KernelProgram p = new KernelProgram(List.of(FLOAT64), tower(Ir.arg(0, FLOAT64), 7));
        int shared = classBytes(p, true), unshared = classBytes(p, false);
        assertTrue(shared * 4 < unshared, "shared " + shared + " bytes, unshared " + unshared);
        CpuBackend cpu = new CpuBackend();
        try (Arena arena = Arena.ofConfined()) {
            for (int rows : new int[] {1, 7, 63, 1000}) {
                Random r = new Random(rows);
                List<MemorySegment> args = List.of(Oracle.fill(arena, FLOAT64, rows, r));
                for (RowMode mode : RowMode.values()) {
                    Oracle.check(cpu, p, args, Oracle.validity(arena, rows, r, 0.1), rows, mode);
                }
            }
        }
    }

    @Test
    void equalSubtreesBuiltApartAreSharedToo() {
        // sin(x / 2) written twice as separate (structurally equal) trees, and once as one node used twice.
        IrNode x = Ir.arg(0, FLOAT64);
        IrNode apart = Ir.add(
                Ir.mul(Ir.unary(UnaryOp.SIN, Ir.div(x, Ir.lit(2.0))), Ir.unary(UnaryOp.SIN, Ir.div(x, Ir.lit(2.0)))),
                x);
        IrNode s = Ir.unary(UnaryOp.SIN, Ir.div(x, Ir.lit(2.0)));
        IrNode together = Ir.add(Ir.mul(s, s), x);
        KernelProgram a = new KernelProgram(List.of(FLOAT64), apart), b = new KernelProgram(List.of(FLOAT64), together);
        assertEquals(classBytes(b, true), classBytes(a, true));
        assertTrue(classBytes(a, true) < classBytes(a, false));
    }

    @Test
    void deepDagsCompileInLinearTime() {
        // 2^24 paths through 24 levels: only sharing by identity and by structure keeps the compiler linear.
        KernelProgram p = new KernelProgram(List.of(FLOAT64), tower(Ir.arg(0, FLOAT64), 12));
        long t0 = System.nanoTime();
        classBytes(p, true);
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
    }

    @Test
    void haversineMatchesTheReference() {
        // Composed functions: errors of the parts add up (and asin amplifies them near antipodes),
        // so the distance is checked to a millimetre, NaN for NaN.
        KernelProgram p = haversine();
        assertTrue(classBytes(p, true) < classBytes(p, false));
        CpuBackend cpu = new CpuBackend();
        try (Arena arena = Arena.ofConfined()) {
            for (int rows : new int[] {1, 7, 63, 1000}) {
                Random r = new Random(rows);
                List<MemorySegment> args = new ArrayList<>();
                for (int k = 0; k < 4; k++) {
                    MemorySegment s = arena.allocate(rows * 8L);
                    for (int i = 0; i < rows; i++) {
                        double v = r.nextInt(50) == 0
                                ? Oracle.HOSTILE_F64[r.nextInt(5)]
                                : (k % 2 == 0 ? 90 : 180) * (r.nextDouble() * 2 - 1);
                        RowInterpreter.write(s, FLOAT64, i, v);
                    }
                    args.add(s);
                }
                MemorySegment valid = Oracle.validity(arena, rows, r, 0.1);
                MemorySegment expected = arena.allocate(rows * 8L), actual = arena.allocate(rows * 8L);
                RowInterpreter.run(p, args, Oracle.copy(arena, valid), expected, rows, "reference");
                for (RowMode mode : RowMode.values()) {
                    cpu.execute(p, new KernelInvocation(args, Oracle.copy(arena, valid), actual, rows, mode));
                    for (int i = 0; i < rows; i++) {
                        if (!ValidityBitmaps.isValid(valid, i)) {
                            continue;
                        }
                        double e = RowInterpreter.read(expected, FLOAT64, i).doubleValue();
                        double a = RowInterpreter.read(actual, FLOAT64, i).doubleValue();
                        assertTrue(
                                Double.isNaN(e) ? Double.isNaN(a) : Math.abs(a - e) <= 1e-6,
                                "row " + i + " (" + mode + "): expected " + e + " got " + a);
                    }
                }
            }
        }
    }

    /** Great-circle distance in km of two points in degrees, as the RowFn guide writes it. */
    static KernelProgram haversine() {
        ElementType d = ElementType.FLOAT64;
        IrNode lat1 = Ir.arg(0, d), lon1 = Ir.arg(1, d), lat2 = Ir.arg(2, d), lon2 = Ir.arg(3, d);
        IrNode rad = Ir.lit(Math.PI / 180), half = Ir.lit(0.5);
        IrNode sdlat = Ir.unary(UnaryOp.SIN, Ir.mul(Ir.mul(Ir.sub(lat2, lat1), rad), half));
        IrNode sdlon = Ir.unary(UnaryOp.SIN, Ir.mul(Ir.mul(Ir.sub(lon2, lon1), rad), half));
        IrNode a = Ir.add(
                Ir.mul(sdlat, sdlat),
                Ir.mul(
                        Ir.mul(Ir.unary(UnaryOp.COS, Ir.mul(lat1, rad)), Ir.unary(UnaryOp.COS, Ir.mul(lat2, rad))),
                        Ir.mul(sdlon, sdlon)));
        IrNode c = Ir.mul(Ir.lit(2.0), Ir.unary(UnaryOp.ASIN, Ir.sqrt(a)));
        return new KernelProgram(List.of(d, d, d, d), Ir.mul(Ir.lit(6371.0), c), "haversine");
    }
}
